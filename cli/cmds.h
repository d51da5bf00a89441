/*
 * The subcommands: each one's options struct, filled from the command line
 * as its struct cli_command says (the option table of options.c says which
 * option goes to which field) and run by its run() (options.h);
 * report's views of a capture are stat's, flows' and paths' (stat_replay(),
 * flows_replay(), paths_replay()).
 */
#ifndef IPCPERF_CLI_CMDS_H
#define IPCPERF_CLI_CMDS_H
#include <stdbool.h>
#include <sys/socket.h>
#include "cli.h"
#include "options.h"
#include "syscalls-out.h"
#include "tracesel.h"

/* Each subcommand, defined by its cmd-*.c. */
extern const struct cli_command cli_cmd_stat, cli_cmd_trace, cli_cmd_flows, cli_cmd_paths,
	cli_cmd_top,
	cli_cmd_record, cli_cmd_report, cli_cmd_list, cli_cmd_check;

/* ------------------------------------------------------------------ stat */

/* Where --listen serves the metrics. */
struct stat_listen {
	bool on;
	struct sockaddr_storage addr;
	socklen_t len;
};

/* The order of the fd rows (--sort), largest first. */
enum stat_sort { SORT_BYTES, SORT_OPS, SORT_TIME };

struct stat_opts {
	struct cli_target t;
	bool json;			/* -j */
	const char *sep;		/* -x SEP: CSV */
	enum stat_sort sort;
	unsigned int top;		/* at most this many fd rows per process; 0 = all */
	unsigned int interval_ms;	/* -I: 0 = no intervals */
	bool interval_full;		/* --interval-full: -I's text as the full tables */
	bool syscalls;			/* -s, or implied by -S, --total, --per-thread, --errno */
	enum sc_sort sc_sort;		/* -S */
	bool sc_total, per_thread, sc_errnos;
	bool flows;			/* --flows */
	unsigned int counter_mask;	/* -e: the counters to open; 0 = all */
	bool no_counters;		/* --no-counters */
	bool no_fds;			/* --no-fds: the text without the fd tables */
	const char *om_path;		/* --openmetrics FILE */
	bool om_pid;			/* --openmetrics-pid */
	struct stat_listen listen;	/* --listen [ADDR:]PORT */
	unsigned int linger_s;		/* --listen-linger SECS */
	bool wide;			/* --wide: tables never fitted to the terminal */
	bool quiet, verbose;
	bool per_fd;			/* --per-fd: the text's fd tables a row per fd, not per group */
	bool metrics_per_fd;		/* --metrics-per-fd: an object label on fd and flow metrics */
};
void stat_opts_init(struct stat_opts *o);
/*
 * Whether @o keeps a running view (-I, --openmetrics, --listen): then an
 * exited process folds into the row of the exited processes of its comm
 * once its report is settled, so that a tracer left running keeps what
 * lives plus a row per comm (doc/accuracy.md, "Memory").
 */
bool stat_folds_exited(const struct stat_opts *o);
/* The stat or syscalls view of a capture: ipcperf report's options, as stat's. */
struct report_opts;
int stat_replay(const struct report_opts *o);

/* ------------------------------------------------------------------ trace */

/* trace's --timestamps: none, as strace -t, -tt, -ttt. */
enum trace_stamp { TRACE_STAMP_NONE, TRACE_STAMP_TIME, TRACE_STAMP_US, TRACE_STAMP_UNIX };
/* The largest -s of trace: what the kernel reads of a buffer (IPCPERF_CALL_MEM_MAX). */
#define TRACE_STR_MAX 256

struct trace_opts {
	struct cli_target t;
	bool all_syscalls;		/* --all-syscalls: the default, kept */
	unsigned int strsize;		/* -s SIZE (default 32) */
	bool times;			/* -T */
	int stamps;			/* --timestamps (enum trace_stamp); -tt, -ttt */
	bool strace_habit;		/* -f, -y, -yy: what trace does anyway */
	struct tracesel sel;		/* -e trace=SET */
	bool quiet, verbose;
};

/* ------------------------------------------------------------------ flows */

struct flows_opts {
	struct cli_target t;
	bool json;
	const char *dot;		/* --dot FILE */
	const char *trace_out;		/* --trace-out FILE */
	bool wide;			/* --wide: tables never fitted to the terminal */
	bool per_flow;			/* --per-flow: the text's table a row per flow, not per group */
	unsigned int interval_ms;	/* -I: 0 = no intervals */
	bool quiet, verbose;
};
/* The flows view of a capture (ipcperf report), a row per flow. */
int flows_replay(const struct report_opts *o);

/* ------------------------------------------------------------------ paths */

struct paths_opts {
	struct cli_target t;		/* t.input: the first -i */
	struct cli_inputs inputs;	/* -i, each: two or more join the captures of several hosts */
	bool json;
	bool requests;			/* --requests: with --json, every request */
	const char *otlp;		/* --otlp FILE: OpenTelemetry traces, OTLP/JSON */
	const char *otlp_endpoint;	/* --otlp-endpoint URL: the same, POSTed */
	const char *perfetto;		/* --perfetto FILE: a timeline, Chrome trace JSON */
	bool quiet, verbose;
};
/* The paths view of a capture (ipcperf report --view paths), or of several joined. */
int paths_replay(const struct report_opts *o);
/*
 * The flows view of the captures of several hosts joined (ipcperf report
 * --view flows -i A -i B): each host's flows, and the flows of the TCP
 * connections seen from two hosts, one a direction (paths/joinflows.c).
 */
int paths_join_flows(const struct report_opts *o);

/* ------------------------------------------------------------------ top */

/* What top's rows are ordered by (-s, and the keys o b t c), largest first. */
enum top_key { TOP_KEY_BYTES, TOP_KEY_OPS, TOP_KEY_TIME, TOP_KEY_SWITCHES, TOP_KEY__MAX };

struct top_opts {
	struct cli_target t;		/* no target: -a */
	double delay;			/* -d SECS between frames; 0 = the default, 1 s */
	enum top_key key;		/* -s */
	bool batch;			/* -b: frames as plain text, one per interval */
	unsigned int frames;		/* -n N: end after N frames; 0 = never */
	bool per_fd;			/* --per-fd: the fd pane a row per fd, not per group */
	bool verbose;
};

/* ------------------------------------------------------------------ record */

/* The capture record writes and report reads when no file is given; the last one is kept as .old. */
#define CLI_DEFAULT_CAPTURE "ipcperf.data"

struct record_opts {
	struct cli_target t;		/* t.output is the capture, t.record too */
	bool keep_old;			/* the default file: an existing one becomes FILE.old */
	bool all_syscalls;		/* -s */
	bool quiet, verbose;
};

/* ------------------------------------------------------------------ report */

/* VIEW_UNSET: no --view; then flows with several -i, else stat. */
enum report_view { VIEW_STAT, VIEW_SYSCALLS, VIEW_FLOWS, VIEW_PATHS, VIEW_UNSET };

struct report_opts {
	const char *input;		/* the first -i FILE */
	struct cli_inputs inputs;	/* -i, each: two or more join the captures of several hosts */
	enum report_view view;
	bool json;
	const char *sep;		/* -x SEP */
	const char *output;		/* -o FILE */
	const char *dot, *trace_out;	/* the flows view's --dot, --trace-out */
	bool requests;			/* the paths view's --requests */
	bool verbose;
	bool wide;			/* --wide */
};
/* The views report runs: the commands' own, on the capture. */
struct report_views {
	int (*stat)(const struct report_opts *o);	/* stat and syscalls: stat_replay() */
	int (*flows)(const struct report_opts *o);	/* flows_replay() */
	int (*paths)(const struct report_opts *o);	/* paths_replay() */
	int (*joined_flows)(const struct report_opts *o);	/* paths_join_flows() */
};
/*
 * ipcperf report: parse, run the view @v has for it. The dispatcher
 * (ipcperf.c) hands @v, so that report's file calls no other command's.
 */
int report_main(int argc, char **argv, const struct report_views *v);

/* ------------------------------------------------------------------ list, check */

struct list_opts {
	bool json, verbose;
	char **patterns;		/* the arguments: shell patterns; none = all */
	int nr_patterns;
};

struct check_opts {
	unsigned int ring_pages;	/* -m */
	bool verbose;
};

/* Room for the options struct of any command the dispatch parses and runs by its run(). */
union cli_cmd_opts {
	struct stat_opts stat;
	struct trace_opts trace;
	struct flows_opts flows;
	struct paths_opts paths;
	struct top_opts top;
	struct record_opts record;
	struct list_opts list;
	struct check_opts check;
};

#endif
