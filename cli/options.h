/*
 * The options of every subcommand, in one table (options.c): each option
 * once, with its names, its value and where it goes, its help text, and the
 * commands that take it. getopt's optstring and longopts, each command's
 * --help and the bash completion are all made from it.
 *
 * Adding an option: an entry in the table and a field in the options
 * struct of each command that takes it (cmds.h).
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

/* A subcommand: its name and the text of its --help around the options. */
struct cli_command {
	const char *name;		/* "stat" */
	const char *summary;		/* its line in ipcperf --help */
	const char *usage;		/* its --help up to and with "Options:\n" */
	const char *epilog;		/* its --help after the options: "" or "\n..." */
	int (*main)(int argc, char **argv);
};
/* Defined by each cmd-*.c. */
extern const struct cli_command cli_cmd_stat, cli_cmd_trace, cli_cmd_flows, cli_cmd_paths,
	cli_cmd_top,
	cli_cmd_record, cli_cmd_report, cli_cmd_list, cli_cmd_check;
/* The subcommand @id. */
const struct cli_command *cli_command(enum cli_cmd_id id);

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

/* What a command's parse() found. */
enum cli_parsed {
	CLI_PARSED_RUN,			/* the options are complete: run the command */
	CLI_PARSED_HELP,		/* --help was asked and printed: exit 0 */
	CLI_PARSED_USAGE,		/* a usage error, said in one line: exit 2 */
};
/* The exit code of a command that will not run. */
int cli_parsed_exit(enum cli_parsed p);

/*
 * getopt_long() over @argv with the options of command @cmd, each stored in
 * @opts (that command's options struct) as the table says; -h prints the
 * help. Stops at the first argument that is not an option, or after "--":
 * *@first is its index.
 */
enum cli_parsed cli_options_parse(enum cli_cmd_id cmd, int argc, char **argv, void *opts,
				  int *first);

/* The same for a command that captures: then the targets of @t (in @opts), cli_target_finish(). */
struct cli_target;
enum cli_parsed cli_options_parse_capture(enum cli_cmd_id cmd, int argc, char **argv, void *opts,
					  struct cli_target *t);

/* The --help of @cmd: its usage, the options of the table, its epilog. */
void cli_options_help(FILE *f, enum cli_cmd_id cmd);
/* Every option word of @cmd that the completion offers ("-p", "--pid", "--"), a line each. */
void cli_options_list(FILE *f, enum cli_cmd_id cmd);
/*
 * The part of contrib/bash-completion/ipcperf that comes from the table:
 * the subcommands, their options, how each option's value is completed.
 * @return 0, or -ENOMEM.
 */
int cli_options_bash(FILE *f);

/* Setters for the table (a usage error names the option as given, e.g. "-I"). */
cli_opt_set_fn cli_opt_flag;	/* bool = true */
cli_opt_set_fn cli_opt_string;	/* const char * = arg */
cli_opt_set_fn cli_opt_uint;	/* unsigned int from min to max */
cli_opt_set_fn cli_opt_enum;	/* int = the value of one of @values */

/* How messages name an option: "-I" when it has a short name, else "--top". */
const char *cli_opt_name(const struct cli_option *o, char *buf, size_t len);

#endif
