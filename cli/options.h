/*
 * The options of every subcommand, in one table (options.c): each option
 * once, with its names, its value and where it goes, its help text, and the
 * commands that take it. getopt's optstring and longopts, each command's
 * --help and the bash completion are all made from it.
 *
 * Adding an option: an entry in the table and a field in the options
 * struct of each command that takes it (cmds.h). The entry's setter and
 * fields are bound with CLI_OPT_STORE(): a field of another type than the
 * setter stores does not compile (tests/test-option-types.sh).
 */
#ifndef IPCPERF_CLI_OPTIONS_H
#define IPCPERF_CLI_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The subcommands, in the order of ipcperf --help. */
enum cli_cmd_id {
	CMD_STAT,
	CMD_TRACE,
	CMD_FLOWS,
	CMD_PATHS,
	CMD_TOP,
	CMD_RECORD,
	CMD_REPORT,
	CMD_LIST,
	CMD_CHECK,
	CMD__MAX
};

/* What the parse of a command's options found (cli_command_parse()). */
enum cli_parsed {
	CLI_PARSED_RUN,			/* the options are complete: run the command */
	CLI_PARSED_HELP,		/* --help was asked and printed: exit 0 */
	CLI_PARSED_USAGE,		/* a usage error, said in one line: exit 2 */
};

/*
 * A subcommand: its name, the text of its --help around the options, its
 * init(), check() and run(). Each cmd-*.c defines its own (cmds.h); the
 * functions below are handed the command, so that they call nothing above
 * them.
 */
struct cli_command {
	enum cli_cmd_id id;
	const char *name;		/* "stat" */
	const char *summary;		/* its line in ipcperf --help */
	const char *usage;		/* its --help up to and with "Options:\n" */
	const char *epilog;		/* its --help after the options: "" or "\n..." */
	/*
	 * How cli_command_parse() fills the command's options struct (cmds.h):
	 * zeroed, then given @init's defaults (NULL: none), then the options
	 * of the command line as the option table says; when they are
	 * complete, @check checks them and takes the arguments from
	 * argv[@first] on (the command of "-- CMD", patterns): 0, or -1 after
	 * saying the usage error in one line.
	 */
	void (*init)(void *opts);
	int (*check)(void *opts, int argc, char **argv, int first);
	/*
	 * The dispatch runs a command whose options are complete with @run
	 * (but report: report_main(), cmds.h), which returns the exit code of
	 * the command (re-raising the signal that killed the command of
	 * "-- CMD"). Either way what the options took is freed after
	 * (cli_options_free()).
	 */
	int (*run)(const void *opts);
};
struct cli_option;

/*
 * Convert @arg (NULL for an option without a value) and store it at @dst;
 * a bad value is a usage error, said in one line. @return 0, or -1.
 */
typedef int cli_opt_set_fn(const struct cli_option *o, const char *arg, void *dst);

/* The help text of an option for some of the commands that take it. */
struct cli_opt_help {
	unsigned int cmds;		/* bits 1 << enum cli_cmd_id */
	const char *arg;		/* the value's name there; NULL: the option's own */
	const char *text;		/* lines separated by '\n' */
};

/* How the bash completion offers an option's value. */
enum cli_complete {
	CPL_NOTHING,			/* a number, a separator: nothing to offer */
	CPL_FILE,
	CPL_PID,			/* a comma-separated list of pids (/proc) */
	CPL_TID,			/* ... of tids */
	CPL_WORDS,			/* one of @values, or of @words */
	CPL_COUNTERS,			/* a comma-separated list of perf's names of counters */
	CPL_POW2,			/* a power of two from 1 to @max */
};

/* A word an option takes, and the value it stands for (cli_opt_enum). */
struct cli_word {
	const char *word;
	int value;
};

#define CLI_OPT_HELPS 4

struct cli_option {
	const char *name;		/* long name, without "--"; NULL: the "-- CMD" line */
	char letter;			/* short name, or 0 */
	const char *alias;		/* another long name, shown in the help after it */
	const char *compat;		/* another long name, accepted and not shown */
	unsigned int more;		/* IN(cmd)s whose help shows it under "More options" */
	const char *arg;		/* the value's name (NULL: it takes none) */
	/*
	 * Where the value goes in the options struct of each command that takes
	 * the option: offsetof() + 1, and 0 for a command that does not take it.
	 * These are the commands that take it, unless @set is NULL (-h, "--"),
	 * when @cmds says.
	 */
	size_t to[CMD__MAX];
	unsigned int cmds;
	cli_opt_set_fn *set;
	unsigned long min, max;		/* bounds of a number */
	const struct cli_word *values;	/* the words an enum takes, ending with { NULL } */
	const char *words;		/* the words completed, when not @values: "a b c" */
	enum cli_complete complete;
	const char *implies;		/* the long name of a flag it sets too */
	const char *help;		/* lines separated by '\n' */
	struct cli_opt_help help_for[CLI_OPT_HELPS];	/* other texts for some commands */
};

/* The exit code of a command that will not run. */
int cli_parsed_exit(enum cli_parsed p);

/*
 * Fill @opts, the options struct of command @cmd (@size bytes), from @argv
 * as struct cli_command says: @cmd's defaults, then getopt_long() with its
 * options, each stored as the table says (-h prints the help), up to the
 * first argument that is not an option, or after "--"; then @cmd's check.
 * @return CLI_PARSED_RUN when the command may run, else what to exit with.
 */
enum cli_parsed cli_command_parse(const struct cli_command *cmd, int argc, char **argv,
				  void *opts, size_t size);

/*
 * Free what the options of @cmd took into @opts, its options struct
 * (the lists of -p and -t), whether its parse ended well or not.
 */
void cli_options_free(const struct cli_command *cmd, void *opts);

/* The --help of @cmd: its usage, the options of the table, its epilog. */
void cli_options_help(FILE *f, const struct cli_command *cmd);
/* Every option word of @cmd that the completion offers ("-p", "--pid", "--"), a line each. */
void cli_options_list(FILE *f, const struct cli_command *cmd);
/*
 * The part of contrib/bash-completion/ipcperf that comes from the table:
 * the subcommands @cmds (by id), their options, how each option's value is
 * completed. @return 0, or -ENOMEM.
 */
int cli_options_bash(FILE *f, const struct cli_command *const cmds[CMD__MAX]);

/*
 * A row's setter and the fields it stores to, bound at compile time:
 *
 *	CLI_OPT_STORE(cli_opt_flag, CLI_OPT_AT(CMD_STAT, struct stat_opts, json), ...)
 *
 * gives the row's .set and .to (one CLI_OPT_AT() a command, at most 10), and
 * does not compile ("static assertion failed: ... is not of the type
 * cli_opt_flag stores") when a field is not of the type the setter writes:
 * each setter S says which in a macro S_stores(p), true when @p points to
 * such a field. The setters write through void *, so without this a row
 * that paired a setter with a field of another type would compile and
 * overwrite the fields beside it.
 */
#define CLI_OPT_AT(cmd, type, field) (cmd, type, field)
#define CLI_OPT_STORE(setter, ...) \
	.set = setter, .to = { CLI_OPT_MAP_(setter, __VA_ARGS__) }
/* Whether @p points to a @type. */
#define CLI_OPT_IS(p, type) _Generic((p), type *: 1, default: 0)

/* CLI_OPT_BIND_() on each CLI_OPT_AT() of a row: the preprocessor counts them first. */
#define CLI_OPT_MAP_(s, ...) CLI_OPT_MAP_N_(CLI_OPT_COUNT_(__VA_ARGS__), s, __VA_ARGS__)
#define CLI_OPT_MAP_N_(n, s, ...) CLI_OPT_MAP_N__(n, s, __VA_ARGS__)
#define CLI_OPT_MAP_N__(n, s, ...) CLI_OPT_MAP_##n(s, __VA_ARGS__)
#define CLI_OPT_COUNT_(...) CLI_OPT_COUNT__(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define CLI_OPT_COUNT__(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, n, ...) n
#define CLI_OPT_MAP_1(s, a) CLI_OPT_BIND_(s, CLI_OPT_UNPACK_ a)
#define CLI_OPT_MAP_2(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_1(s, __VA_ARGS__)
#define CLI_OPT_MAP_3(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_2(s, __VA_ARGS__)
#define CLI_OPT_MAP_4(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_3(s, __VA_ARGS__)
#define CLI_OPT_MAP_5(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_4(s, __VA_ARGS__)
#define CLI_OPT_MAP_6(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_5(s, __VA_ARGS__)
#define CLI_OPT_MAP_7(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_6(s, __VA_ARGS__)
#define CLI_OPT_MAP_8(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_7(s, __VA_ARGS__)
#define CLI_OPT_MAP_9(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_8(s, __VA_ARGS__)
#define CLI_OPT_MAP_10(s, a, ...) CLI_OPT_MAP_1(s, a), CLI_OPT_MAP_9(s, __VA_ARGS__)
#define CLI_OPT_UNPACK_(...) __VA_ARGS__
#define CLI_OPT_BIND_(...) CLI_OPT_BIND__(__VA_ARGS__)
/* [cmd] = offset + 1, plus 0 times the size of a struct that holds the check. */
#define CLI_OPT_BIND__(s, cmd, type, field) \
	[cmd] = offsetof(type, field) + 1 + 0 * sizeof(struct { \
		_Static_assert(s##_stores(&((type *)0)->field), \
			       #type "." #field " is not of the type " #s " stores"); \
		char c; })

/* Setters for the table (a usage error names the option as given, e.g. "-I"). */
cli_opt_set_fn cli_opt_flag;	/* bool = true */
#define cli_opt_flag_stores(p) CLI_OPT_IS(p, bool)
cli_opt_set_fn cli_opt_string;	/* const char * = arg */
#define cli_opt_string_stores(p) CLI_OPT_IS(p, const char *)
cli_opt_set_fn cli_opt_uint;	/* unsigned int from min to max */
#define cli_opt_uint_stores(p) CLI_OPT_IS(p, unsigned int)
/*
 * An int = the value of one of @values: into an int, or an enum (of the
 * size of an int, compatible with int or unsigned int as its values say).
 */
cli_opt_set_fn cli_opt_enum;
#define cli_opt_enum_stores(p) (CLI_OPT_IS(p, int) || CLI_OPT_IS(p, unsigned int))
/* -p, -t: a list of ids, "1,2,3" or "1 2 3" (pidof's), into a struct cli_ids. */
cli_opt_set_fn cli_opt_ids;
#define cli_opt_ids_stores(p) CLI_OPT_IS(p, struct cli_ids)
/* -d: seconds, > 0, fractions too, into a double. */
cli_opt_set_fn cli_opt_duration;
#define cli_opt_duration_stores(p) CLI_OPT_IS(p, double)
/* -m: a power of two of pages up to max, into an unsigned int. */
cli_opt_set_fn cli_opt_pages;
#define cli_opt_pages_stores(p) CLI_OPT_IS(p, unsigned int)
/* -x: a separator, not empty. */
cli_opt_set_fn cli_opt_separator;
#define cli_opt_separator_stores(p) CLI_OPT_IS(p, const char *)
/* -S: a key of the syscall rows, into an enum sc_sort. */
cli_opt_set_fn cli_opt_sc_sort;
#define cli_opt_sc_sort_stores(p) CLI_OPT_IS(p, enum sc_sort)
/* -e: perf's names of counters, added to a mask (unsigned int). */
cli_opt_set_fn cli_opt_events;
#define cli_opt_events_stores(p) CLI_OPT_IS(p, unsigned int)
/* A FILE: not empty. */
cli_opt_set_fn cli_opt_path;
#define cli_opt_path_stores(p) CLI_OPT_IS(p, const char *)
/* paths -i: one more capture, into a struct cli_inputs. */
cli_opt_set_fn cli_opt_input_add;
#define cli_opt_input_add_stores(p) CLI_OPT_IS(p, struct cli_inputs)
/* A host's name (--host): 1 to IPCPERF_HOST_MAX - 1 bytes, no space nor control. */
cli_opt_set_fn cli_opt_host;
#define cli_opt_host_stores(p) CLI_OPT_IS(p, const char *)
/* A URL: http:// or https://. */
cli_opt_set_fn cli_opt_url;
#define cli_opt_url_stores(p) CLI_OPT_IS(p, const char *)
/* --listen [ADDR:]PORT, into a struct stat_listen. */
cli_opt_set_fn cli_opt_listen;
#define cli_opt_listen_stores(p) CLI_OPT_IS(p, struct stat_listen)
/* trace's -e trace=SET, added to a struct tracesel. */
cli_opt_set_fn cli_opt_trace_sel;
#define cli_opt_trace_sel_stores(p) CLI_OPT_IS(p, struct tracesel)

/* How messages name an option: "-I" when it has a short name, else "--top". */
const char *cli_opt_name(const struct cli_option *o, char *buf, size_t len);

#endif
