/*
 * The calls ipcperf trace prints: -e trace=SET, as strace takes it (tracesel.c).
 * A SET is a comma-separated list of syscall names and classes (%file,
 * %desc, %network or %net, %process, %memory, %signal, %ipc), all of them
 * negated by a leading '!'.
 */
#ifndef IPCPERF_CLI_TRACESEL_H
#define IPCPERF_CLI_TRACESEL_H
#include <stdbool.h>
#include <stdint.h>

/* Syscall numbers a set can hold (this architecture's are well below). */
#define TRACESEL_MAX 1024

struct tracesel {
	bool on;			/* a set was given: print only its calls */
	uint64_t bits[TRACESEL_MAX / 64];
};

/*
 * Add the set @expr ("trace=SET" or "SET") to @s (zeroed at first: all
 * calls; each -e adds its set to the earlier ones'). An unknown name or
 * class, or an empty item, is said on stderr in one line. @return 0, or -1.
 */
int tracesel_parse(struct tracesel *s, const char *expr);

/* Whether syscall number @nr is to be printed. */
bool tracesel_has(const struct tracesel *s, int nr);

#endif
