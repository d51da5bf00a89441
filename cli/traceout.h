/* The lines of ipcperf trace: one call each, as strace -y prints it. */
#ifndef IPCPERF_CLI_TRACEOUT_H
#define IPCPERF_CLI_TRACEOUT_H

#include <stdio.h>
#include <ipcperf/ipcperf.h>

/*
 * PID/TID NAME(ARGS) = RET <SECONDS>, fds with what they are (3</etc/hosts>,
 * 4<pipe:[123]>), the flags of open, socket, pipe2 and fcntl decoded;
 * @fds NULL: plain fd numbers.
 */
void traceout_call(FILE *f, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds);

/* The symbolic form of open flags: "O_WRONLY|O_CREAT|O_CLOEXEC" (@buf, @len). */
const char *traceout_open_flags(char *buf, size_t len, uint64_t flags);

#endif
