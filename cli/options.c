/*
 * The option table of every subcommand, and what is made from it: the
 * getopt_long() loop, the --help texts, the words of the bash completion.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "httpd.h"
#include "util.h"

/* Where an option's value goes in each command's options struct (see cli_option.to). */
#define STAT(f) [CMD_STAT] = offsetof(struct stat_opts, f) + 1
#define TRACE(f) [CMD_TRACE] = offsetof(struct trace_opts, f) + 1
#define FLOWS(f) [CMD_FLOWS] = offsetof(struct flows_opts, f) + 1
#define PATHS(f) [CMD_PATHS] = offsetof(struct paths_opts, f) + 1
#define RECORD(f) [CMD_RECORD] = offsetof(struct record_opts, f) + 1
#define REPORT(f) [CMD_REPORT] = offsetof(struct report_opts, f) + 1
#define LIST(f) [CMD_LIST] = offsetof(struct list_opts, f) + 1
#define CHECK(f) [CMD_CHECK] = offsetof(struct check_opts, f) + 1
#define TOP(f) [CMD_TOP] = offsetof(struct top_opts, f) + 1
/* A field of the struct cli_target of the commands that capture. */
#define CAPTURE(f) STAT(t.f), TRACE(t.f), FLOWS(t.f), PATHS(t.f), RECORD(t.f)

#define IN(cmd) (1u << CMD_##cmd)
#define IN_CAPTURE (IN(STAT) | IN(TRACE) | IN(FLOWS) | IN(PATHS) | IN(RECORD))
#define IN_ALL ((1u << CMD__MAX) - 1)

/* The largest ring -m takes, in pages. */
#define RING_PAGES_MAX 65536
/* The longest -d, in seconds: a year. */
#define DURATION_MAX (365.0 * 24 * 3600)

static cli_opt_set_fn set_ids, set_duration, set_pages, set_separator, set_sc_sort, set_events,
	set_path, set_listen, set_trace_sel;

static const struct cli_word scope_words[] = {
	{ "auto", IPCPERF_SCOPE_AUTO }, { "cpu", IPCPERF_SCOPE_CPU },
	{ "task", IPCPERF_SCOPE_TASK }, { NULL, 0 },
};
static const struct cli_word view_words[] = {
	{ "stat", VIEW_STAT }, { "syscalls", VIEW_SYSCALLS }, { "flows", VIEW_FLOWS }, { "paths", VIEW_PATHS },
	{ NULL, 0 },
};
static const struct cli_word top_key_words[] = {
	{ "bytes", TOP_KEY_BYTES }, { "ops", TOP_KEY_OPS }, { "time", TOP_KEY_TIME },
	{ "switches", TOP_KEY_SWITCHES }, { "b", TOP_KEY_BYTES }, { "o", TOP_KEY_OPS },
	{ "t", TOP_KEY_TIME }, { "c", TOP_KEY_SWITCHES }, { NULL, 0 },
};
static const struct cli_word stamp_words[] = {
	{ "time", TRACE_STAMP_TIME }, { "us", TRACE_STAMP_US }, { "unix", TRACE_STAMP_UNIX },
	{ NULL, 0 },
};
static const struct cli_word sort_words[] = {
	{ "ops", SORT_OPS }, { "bytes", SORT_BYTES }, { "time", SORT_TIME }, { NULL, 0 },
};

/*
 * In the order of the help. An option with a short name is "-x" in the
 * messages, else "--long".
 */
static const struct cli_option options[] = {
	{ .name = "input", .letter = 'i', .arg = "FILE", .to = { REPORT(input), PATHS(t.input) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "the capture to read (default: ipcperf.data)",
	  .help_for = { { IN(PATHS), NULL, "the requests of a capture (ipcperf record) instead\n"
					  "of tracing: no target then, the capture's are used" } } },
	{ .name = "view", .arg = "VIEW", .to = { REPORT(view) },
	  .set = cli_opt_enum, .values = view_words, .complete = CPL_WORDS,
	  .help = "stat (default), syscalls (stat -s), flows or paths" },
	{ .name = "pid", .letter = 'p', .arg = "PID[,PID...]", .to = { CAPTURE(pids), TOP(t.pids) },
	  .set = set_ids, .complete = CPL_PID,
	  .help = "trace these processes (all their threads)" },
	{ .name = "tid", .letter = 't', .arg = "TID[,TID...]", .to = { CAPTURE(tids), TOP(t.tids) },
	  .set = set_ids, .complete = CPL_TID,
	  .help = "trace these threads" },
	{ .name = "all-cpus", .letter = 'a', .to = { CAPTURE(system_wide), TOP(t.system_wide) },
	  .set = cli_opt_flag,
	  .help = "trace the whole system",
	  .help_for = { { IN(TOP), NULL, "watch the whole system (the default: needs root)" } } },
	{ .name = "duration", .letter = 'd', .arg = "SECS", .to = { CAPTURE(duration) },
	  .set = set_duration, .complete = CPL_NOTHING,
	  .help = "stop after SECS seconds (and end the command of\n"
		  "-- CMD: SIGTERM, SIGKILL 0.5 s later)" },
	{ .name = "keep-running", .more = IN(STAT), .to = { CAPTURE(keep_running) },
	  .set = cli_opt_flag,
	  .help = "when -d ends the capture, leave the command of -- CMD\n"
		  "running: report, then wait for it and exit with its status" },
	{ .name = "delay", .letter = 'd', .arg = "SECS", .to = { TOP(delay) },
	  .set = set_duration, .complete = CPL_NOTHING,
	  .help = "seconds between two frames, as top's (default 1;\n"
		  "fractions too: -d 0.5)" },
	{ .name = "sort-key", .letter = 's', .arg = "KEY", .to = { TOP(key) },
	  .set = cli_opt_enum, .values = top_key_words, .complete = CPL_WORDS,
	  .help = "order the rows by bytes (b, the default), ops (o),\n"
		  "time in the calls (t) or context switches (c) per\n"
		  "second, largest first; the same keys change it live" },
	{ .name = "batch", .letter = 'b', .to = { TOP(batch) },
	  .set = cli_opt_flag,
	  .help = "no full screen: print each frame as text on standard\n"
		  "output (every row), then a last one at the end" },
	{ .name = "iterations", .letter = 'n', .arg = "N", .to = { TOP(frames) },
	  .set = cli_opt_uint, .min = 1, .max = INT_MAX, .complete = CPL_NOTHING,
	  .help = "end after N frames (and end the command of -- CMD)" },
	{ .name = "mmap-pages", .more = IN(STAT), .letter = 'm', .arg = "PAGES",
	  .to = { CAPTURE(ring_pages), CHECK(ring_pages), TOP(t.ring_pages) },
	  .set = set_pages, .max = RING_PAGES_MAX, .complete = CPL_POW2,
	  .help = "pages per CPU ring, a power of two (default: the most\n"
		  "the memlock limit lets ipcperf lock, up to 8192; root:\n"
		  "up to 256 MiB for all CPUs together)",
	  .help_for = { { IN(CHECK), NULL, "ring size to check, pages per CPU, a power of two\n"
					   "(default: the other commands' default)" } } },
	{ .name = "output", .letter = 'o', .arg = "FILE", .to = { CAPTURE(output), REPORT(output) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "write to FILE instead of standard output",
	  .help_for = { { IN(RECORD), NULL, "the capture (replaced if it exists; default:\n"
					   "ipcperf.data, the last one kept as ipcperf.data.old)" } } },
	{ .name = NULL, .arg = "CMD [ARGS]", .cmds = IN_CAPTURE | IN(TOP),
	  .help = "run CMD and trace it and its children (with -p/-t:\n"
		  "those from now, CMD from its exec; CMD's end ends the run)" },
	{ .name = "scope", .more = IN(STAT), .arg = "auto|cpu|task", .to = { CAPTURE(scope), TOP(t.scope) },
	  .set = cli_opt_enum, .values = scope_words, .complete = CPL_WORDS,
	  .help = "tracepoints on every CPU, keeping the targets' records\n"
		  "(cpu: cheaper for the targets; needs root or CAP_PERFMON),\n"
		  "or per task (task: no other process's records);\n"
		  "auto (default): cpu when allowed",
	  .help_for = { { IN(RECORD), "auto|task",
			  "per task (auto and task alike: a capture holds the\n"
			  "targets' records only; cpu is refused)" } } },
	{ .name = "no-bpf", .more = IN(STAT), .to = { CAPTURE(no_bpf), TOP(t.no_bpf) },
	  .set = cli_opt_flag,
	  .help = "name fds from /proc only, not from the kernel's records\n"
		  "at the call (ipcperf check says which this machine gets)" },
	{ .name = "syscall-samples", .more = IN(STAT),
	  .to = { STAT(t.syscall_samples), TRACE(t.syscall_samples), FLOWS(t.syscall_samples) },
	  .set = cli_opt_flag,
	  .help = "take each call from its sys_enter and sys_exit samples,\n"
		  "as captures do, not from one record per call paired in\n"
		  "the kernel (the default with BPF: the same calls, half\n"
		  "the ring records)" },
	{ .name = "interval", .letter = 'I', .compat = "interval-print", .arg = "MS",
	  .to = { STAT(interval_ms) },
	  .set = cli_opt_uint, .min = 10, .max = 3600000, .complete = CPL_NOTHING,
	  .help = "print the deltas every MS milliseconds (>= 10), then the\n"
		  "totals: in text one line per process and interval (exact\n"
		  "counts, rates, the busiest fd; --interval-full: the full\n"
		  "tables); with --json one object per line (\"interval\": true,\n"
		  "and false for the totals); with -x a leading time column\n"
		  "(\"total\" on the rows of the totals)" },
	{ .name = "interval-full", .more = IN(STAT), .to = { STAT(interval_full) },
	  .set = cli_opt_flag,
	  .help = "with -I in text, every interval as the full tables of\n"
		  "the totals (by default one line per process and\n"
		  "interval: exact counts, rates and the busiest fd)" },
	{ .name = "json", .letter = 'j',
	  .to = { STAT(json), FLOWS(json), PATHS(json), REPORT(json), LIST(json) },
	  .set = cli_opt_flag,
	  .help = "JSON, schema 1 (fields: ipcperf-stat(1), doc/json.md;\n"
		  "added, never renamed); fds without I/O included",
	  .help_for = {
		  { IN(FLOWS), NULL, "JSON, schema 1 (fields: ipcperf-flows(1), doc/json.md)" },
		  { IN(PATHS), NULL, "JSON, schema 1 (fields: ipcperf-paths(1), doc/json.md)" },
		  { IN(REPORT), NULL, "JSON, as the view's --json" },
		  { IN(LIST), NULL, "one JSON document: {\"schema\": 1, \"events\": [{\"name\",\n"
				    "\"group\", \"status\", \"errno\", \"reason\", \"fix\"}],\n"
				    "\"supported\", \"not_supported\", \"denied\",\n"
				    "\"fd_identity\": {\"source\", \"why\"}}" } } },
	{ .name = "field-separator", .letter = 'x', .arg = "SEP", .to = { STAT(sep), REPORT(sep) },
	  .set = set_separator, .complete = CPL_NOTHING,
	  .help = "rows of fields separated by SEP, as perf stat -x: per\n"
		  "fd side, per process (sched), per counter, a summary\n"
		  "with the lost events; lines starting with '#' name\n"
		  "the fields of each kind of row",
	  .help_for = { { IN(REPORT), NULL, "rows of fields separated by SEP (stat and syscalls)" } } },
	{ .name = "sort", .more = IN(STAT), .arg = "ops|bytes|time", .to = { STAT(sort) },
	  .set = cli_opt_enum, .values = sort_words, .complete = CPL_WORDS,
	  .help = "order of the fd rows, largest first (default: bytes)" },
	{ .name = "top", .more = IN(STAT), .arg = "N", .to = { STAT(top) },
	  .set = cli_opt_uint, .min = 1, .max = INT_MAX, .complete = CPL_NOTHING,
	  .help = "at most N fd rows per process (in every format)" },
	/* One meaning everywhere: every syscall, not only the I/O and fd calls. */
	{ .name = "syscalls", .letter = 's', .alias = "all-syscalls",
	  .to = { STAT(syscalls), RECORD(all_syscalls) },
	  .set = cli_opt_flag,
	  .help = "trace every system call (raw_syscalls) and add the\n"
		  "strace -c -w view: per process, per syscall, % time,\n"
		  "seconds, usecs/call, min, p99 and max (usecs), calls,\n"
		  "errors, and a total row. Without -s, JSON still lists\n"
		  "the calls traced for the fd table (I/O and fd calls)",
	  .help_for = { { IN(RECORD), NULL,
			  "every syscall (raw_syscalls), not only I/O and fd calls,\n"
			  "for report --view syscalls" } } },
	{ .name = "summary-sort-by", .more = IN(STAT), .letter = 'S', .arg = "KEY", .to = { STAT(sc_sort) },
	  .set = set_sc_sort, .words = SC_SORT_KEYS, .complete = CPL_WORDS, .implies = "syscalls",
	  .help = "order of the syscall rows: time (default), calls,\n"
		  "errors, avg, max, min, p99 (largest first) or name\n"
		  "(A to Z); implies -s" },
	{ .name = "total", .more = IN(STAT), .to = { STAT(sc_total) },
	  .set = cli_opt_flag, .implies = "syscalls",
	  .help = "one syscall table for all processes together (rows\n"
		  "merged by name), as strace -c -f, in place of the\n"
		  "per-process tables; JSON adds\n"
		  "\"syscalls_total\" and keeps the per-process rows.\n"
		  "Calls, errors, time, min and max are exact sums and\n"
		  "extremes; p50 and p99 are those of all the calls\n"
		  "together (the processes' histograms merged);\n"
		  "implies -s" },
	{ .name = "per-thread", .more = IN(STAT), .to = { STAT(per_thread) },
	  .set = cli_opt_flag, .implies = "syscalls",
	  .help = "a syscall table per thread, headed \"PID/TID COMM\"\n"
		  "(JSON and CSV rows carry the tid); implies -s" },
	{ .name = "errno", .more = IN(STAT), .alias = "errno-summary", .to = { STAT(sc_errnos) },
	  .set = cli_opt_flag, .implies = "syscalls",
	  .help = "after each table, the errors of each syscall by errno\n"
		  "name (EBADF, ENOENT, ...); JSON and CSV always have\n"
		  "them (\"errnos\"); implies -s" },
	{ .name = "flows", .to = { STAT(flows) },
	  .set = cli_opt_flag,
	  .help = "also the IPC flows between the targets (as ipcperf flows):\n"
		  "a table after the processes, and the \"flows\" array of\n"
		  "--json (empty without --flows); records switch-in/out\n"
		  "for blocked times, which costs more records" },
	{ .name = "dot", .arg = "FILE", .to = { FLOWS(dot), REPORT(dot) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "also write the flow graph for Graphviz to FILE\n"
		  "(dot -Tsvg FILE > flows.svg)",
	  .help_for = { { IN(REPORT), NULL, "flows: the flow graph in Graphviz DOT" } } },
	{ .name = "trace-out", .arg = "FILE", .to = { FLOWS(trace_out), REPORT(trace_out) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "also write a timeline in the Chrome Trace Event Format\n"
		  "to FILE, for Perfetto UI or chrome://tracing: read and\n"
		  "write calls per thread, an arrow from each write to each\n"
		  "read that took its bytes, queued bytes per channel",
	  .help_for = { { IN(REPORT), NULL, "flows: the timeline (Chrome trace JSON)" } } },
	{ .name = "event", .letter = 'e', .arg = "EVENT[,EVENT...]", .to = { STAT(counter_mask) },
	  .set = set_events, .complete = CPL_COUNTERS,
	  .help = "count only these counters, by perf's names (as ipcperf\n"
		  "list and perf stat -e give them): task-clock,\n"
		  "page-faults, context-switches, cpu-migrations, cycles,\n"
		  "instructions, cache-references, cache-misses (default:\n"
		  "all); may be repeated" },
	/* trace: strace's -s, -T and timestamps; every syscall is traced by default. */
	{ .name = "string-limit", .letter = 's', .arg = "SIZE", .to = { TRACE(strsize) },
	  .set = cli_opt_uint, .min = 0, .max = TRACE_STR_MAX, .complete = CPL_NOTHING,
	  .help = "print at most SIZE bytes of each string and buffer\n"
		  "(default 32, as strace -s), then \"...\"; paths in full" },
	{ .name = "syscall-times", .letter = 'T', .to = { TRACE(times) },
	  .set = cli_opt_flag,
	  .help = "the time spent in each call, \" <0.000012>\" after it,\n"
		  "as strace -T" },
	{ .name = "follow-forks", .letter = 'f', .to = { TRACE(strace_habit) },
	  .set = cli_opt_flag,
	  .help = "accepted as strace -f: children are always followed" },
	{ .name = "decode-fds", .letter = 'y', .to = { TRACE(strace_habit) },
	  .set = cli_opt_flag,
	  .help = "accepted as strace -y and -yy: every fd is always\n"
		  "named (path, socket endpoints); -tt and -ttt are\n"
		  "--timestamps us and unix (-t stays --tid)" },
	{ .name = "timestamps", .arg = "FORMAT", .to = { TRACE(stamps) },
	  .set = cli_opt_enum, .values = stamp_words, .complete = CPL_WORDS,
	  .help = "start each line with the time the call began: time\n"
		  "(HH:MM:SS, strace -t), us (HH:MM:SS.uuuuuu, -tt) or unix\n"
		  "(seconds since 1970 with microseconds, -ttt)" },
	{ .name = "all-syscalls", .alias = "syscalls", .to = { TRACE(all_syscalls) },
	  .set = cli_opt_flag,
	  .help = "every syscall: the default now, kept for scripts\n"
		  "(-e trace=%desc gives the I/O and fd calls of old)" },
	{ .name = "trace", .letter = 'e', .arg = "trace=SET", .to = { TRACE(sel) },
	  .set = set_trace_sel,
	  .help = "print only these calls, as strace -e trace=: names and\n"
		  "classes (%file, %desc, %network, %process, %memory,\n"
		  "%signal, %ipc), comma-separated, '!' first for all but\n"
		  "them; traces every syscall to choose from; may be repeated" },
	{ .name = "wide", .more = IN(STAT), .to = { STAT(wide), FLOWS(wide), REPORT(wide) },
	  .set = cli_opt_flag,
	  .help = "every column of the tables: on a terminal narrower than a\n"
		  "table, some columns are left out (by default) in the\n"
		  "order the manual page gives; not on a file or a pipe" },
	{ .name = "no-fds", .more = IN(STAT), .to = { STAT(no_fds) },
	  .set = cli_opt_flag,
	  .help = "the text report without the fd tables: per process its\n"
		  "scheduling and counters, as perf stat prints them (JSON\n"
		  "and CSV keep every row)" },
	{ .name = "per-fd", .to = { STAT(per_fd) },
	  .set = cli_opt_flag,
	  .help = "the text's fd tables with a row per fd: by default the\n"
		  "connections of a process to one endpoint with one peer\n"
		  "process are one row (\"127.0.0.1:6379 <- redis-benchmark[42]\",\n"
		  "N conns); JSON has both (fds and groups)" },
	{ .name = "per-flow", .to = { FLOWS(per_flow) },
	  .set = cli_opt_flag,
	  .help = "the text's flow table with a row per flow: by default the\n"
		  "flows of one writer side, reader side, kind and endpoint\n"
		  "are one row (N conns, their wire times merged, their bytes\n"
		  "added up); JSON has both (flows and flow_groups)" },
	{ .name = "no-counters", .more = IN(STAT), .to = { STAT(no_counters) },
	  .set = cli_opt_flag,
	  .help = "open no counters: each is switched in and out with the\n"
		  "targets at every context switch, which a program that\n"
		  "blocks often pays for" },
	{ .name = "record", .more = IN(STAT), .arg = "FILE", .to = { STAT(t.record), PATHS(t.record) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "also write the capture to FILE (perf.data format, mode\n"
		  "0600; see ipcperf record): `ipcperf report -i FILE`\n"
		  "then gives the same numbers",
	  .help_for = { { IN(PATHS), NULL, "also write the capture to FILE (perf.data format, mode\n"
					  "0600; see ipcperf record): `ipcperf paths -i FILE`\n"
					  "then gives the same requests" } } },
	{ .name = "openmetrics", .more = IN(STAT), .arg = "FILE", .to = { STAT(om_path) },
	  .set = set_path, .complete = CPL_FILE,
	  .help = "also write the totals as metrics (Prometheus text format\n"
		  "0.0.4, ending in '# EOF'; doc/metrics.md) to FILE: at the\n"
		  "start, every -I interval (the running totals since the\n"
		  "start, not the deltas), and at the end; each time to a\n"
		  "temporary file renamed over FILE, as node_exporter's\n"
		  "textfile collector expects" },
	{ .name = "listen", .more = IN(STAT), .arg = "[ADDR:]PORT", .to = { STAT(listen) },
	  .set = set_listen, .complete = CPL_NOTHING,
	  .help = "serve the running totals at http://ADDR:PORT/metrics\n"
		  "while the capture runs (ADDR: default 127.0.0.1; PORT 0:\n"
		  "any free port); OpenMetrics to scrapers that ask for it\n"
		  "(Prometheus does), else the text format" },
	{ .name = "listen-linger", .more = IN(STAT), .arg = "SECS", .to = { STAT(linger_s) },
	  .set = cli_opt_uint, .min = 0, .max = 86400, .complete = CPL_NOTHING,
	  .help = "after the capture, go on serving its final totals until\n"
		  "one scrape has fetched them, at most SECS seconds" },
	{ .name = "openmetrics-pid", .more = IN(STAT), .to = { STAT(om_pid) },
	  .set = cli_opt_flag,
	  .help = "a pid label on the fd, process and counter metrics\n"
		  "(by default processes of one name are summed)" },
	{ .name = "metrics-per-fd", .more = IN(STAT), .to = { STAT(metrics_per_fd) },
	  .set = cli_opt_flag,
	  .help = "an object label (the fd's object: an inode, a path) on\n"
		  "the fd and flow metrics: a series per fd and per flow,\n"
		  "which thousands of connections make thousands of" },
	{ .name = "requests", .to = { PATHS(requests), REPORT(requests) },
	  .set = cli_opt_flag,
	  .help = "with --json, every request too: its hops, their times",
	  .help_for = { { IN(REPORT), NULL, "paths, with --json: every request too" } } },
	{ .name = "quiet", .letter = 'q',
	  .to = { STAT(quiet), TRACE(quiet), FLOWS(quiet), PATHS(quiet), RECORD(quiet) },
	  .set = cli_opt_flag,
	  .help = "no live status line on the terminal",
	  .help_for = {
		  { IN(TRACE), NULL, "no live status line (shown on a terminal when the\n"
				     "trace itself goes to a file or a pipe)" },
		  { IN(RECORD), NULL, "no summary line on stderr" } } },
	{ .name = "verbose", .letter = 'v',
	  .to = { STAT(verbose), TRACE(verbose), FLOWS(verbose), PATHS(verbose), RECORD(verbose),
		  REPORT(verbose),
		  LIST(verbose), CHECK(verbose), TOP(verbose) },
	  .set = cli_opt_flag,
	  .help = "more diagnostics",
	  .help_for = {
		  { IN(STAT), NULL, "more diagnostics; show fds and processes without I/O" },
		  { IN(CHECK), NULL, "more diagnostics (missing tracepoints, library messages)" } } },
	{ .name = "help", .letter = 'h', .cmds = IN_ALL,
	  .help = "this help" },
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/* getopt_long()'s value for the option at index @i of the table (above any letter). */
#define OPT_VAL(i) (256 + (int)(i))

int cli_parsed_exit(enum cli_parsed p)
{
	return p == CLI_PARSED_HELP ? EXIT_OK : EXIT_USAGE;
}

static bool takes(const struct cli_option *o, enum cli_cmd_id cmd)
{
	return o->set ? o->to[cmd] != 0 : (o->cmds >> cmd) & 1;
}

static bool is_dashdash(const struct cli_option *o)
{
	return !o->name;
}

const char *cli_opt_name(const struct cli_option *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* ------------------------------------------------------------------ setters */

int cli_opt_flag(const struct cli_option *o, const char *arg, void *dst)
{
	*(bool *)dst = true;
	return 0;
}

int cli_opt_string(const struct cli_option *o, const char *arg, void *dst)
{
	*(const char **)dst = arg;
	return 0;
}

int cli_opt_uint(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32];
	double v;

	if (cli_parse_number(arg, false, (double)o->max, &v) < 0 || v < (double)o->min) {
		cli_err("invalid value '%s' for %s: give a number from %lu to %lu, in digits only", arg,
			cli_opt_name(o, name, sizeof(name)), o->min, o->max);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

int cli_opt_enum(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32], words[128];
	size_t n = 0;

	for (const struct cli_word *w = o->values; w->word; w++) {
		if (!strcmp(arg, w->word)) {
			*(int *)dst = w->value;
			return 0;
		}
	}
	/* "give a, b or c" */
	for (const struct cli_word *w = o->values; w->word && n < sizeof(words); w++)
		n += (size_t)snprintf(words + n, sizeof(words) - n, "%s%s",
				      w == o->values ? "" : w[1].word ? ", " : " or ", w->word);
	cli_err("invalid value '%s' for %s: give %s", arg, cli_opt_name(o, name, sizeof(name)),
		words);
	return -1;
}

/*
 * Each item of the comma-separated list @arg to @item, until one fails; an
 * empty item ("1,,2", "1,") is a usage error. @return 0, or -1.
 */
static int each_item(const char *arg, int (*item)(const struct cli_option *o, const char *tok,
						 void *dst), const struct cli_option *o, void *dst)
{
	char *copy = strdup(arg), *tok = copy, *comma;
	char name[32];
	int ret = copy ? 0 : -1;

	for (; tok && !ret; tok = comma ? comma + 1 : NULL) {
		if ((comma = strchr(tok, ',')))
			*comma = '\0';
		if (!*tok) {
			cli_err("invalid list '%s' for %s: an empty item; give items separated by "
				"single commas", arg, cli_opt_name(o, name, sizeof(name)));
			ret = -1;
		} else {
			ret = item(o, tok, dst);
		}
	}
	free(copy);
	return ret;
}

/* An id of -p or -t: a positive number; a usage error names the bad item. */
static int add_id(const struct cli_option *o, const char *tok, void *dst)
{
	struct cli_ids *ids = dst;
	char name[32];
	double v;

	if (cli_parse_number(tok, false, INT_MAX, &v) < 0 || v < 1) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("invalid id '%s' in %s: give positive numbers in digits, e.g. %s 1234,5678", tok,
			name, name);
		return -1;
	}
	/* A repeated id is the same target: once, or every per-target cost is paid again. */
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == (pid_t)v)
			return 0;
	if (cli_grow((void **)&ids->v, &ids->cap, ids->n + 1, sizeof(*ids->v)) < 0)
		return -1;
	ids->v[ids->n++] = (pid_t)v;
	return 0;
}

/*
 * @arg with each run of blanks made one comma, and blanks at either end or
 * beside a comma dropped: "1 2", " 1", "1, 2" read as perf reads them, so
 * that -p "$(pidof nginx)" works. NULL (errno set) if out of memory.
 */
static char *blanks_to_commas(const char *arg)
{
	char *out = malloc(strlen(arg) + 1), *w = out;
	bool blank = false;

	if (!out)
		return NULL;
	for (const char *r = arg; *r; r++) {
		if (isspace((unsigned char)*r)) {
			blank = true;
			continue;
		}
		if (blank && w > out && w[-1] != ',' && *r != ',')
			*w++ = ',';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
	return out;
}

/* -p, -t: "1,2,3" (or "1 2 3", as pidof prints them) into a list of ids. */
static int set_ids(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32], *ids = blanks_to_commas(arg);
	int ret;

	if (!ids) {
		cli_err("cannot read %s: %s", arg, strerror(errno));
		return -1;
	}
	if (!*ids) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("%s needs at least one id, e.g. %s 1234", name, name);
		free(ids);
		return -1;
	}
	ret = each_item(ids, add_id, o, dst);
	free(ids);
	return ret;
}

static int set_duration(const struct cli_option *o, const char *arg, void *dst)
{
	double v;

	if (cli_parse_number(arg, true, DURATION_MAX, &v) < 0 || !(v > 0)) {
		cli_err("invalid duration '%s' for -d: give seconds in digits, > 0 and at most %.0f "
			"(a year), e.g. -d 2.5", arg, DURATION_MAX);
		return -1;
	}
	*(double *)dst = v;
	return 0;
}

static int set_pages(const struct cli_option *o, const char *arg, void *dst)
{
	unsigned long v;
	double d;

	v = cli_parse_number(arg, false, (double)o->max, &d) < 0 ? 0 : (unsigned long)d;
	if (!v || (v & (v - 1))) {
		cli_err("invalid ring size '%s' for -m: give a power of two from 1 to %lu pages, in digits",
			arg, o->max);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

/* A string that may not be empty: "-x needs a separator, e.g. -x ,". */
static int set_nonempty(const struct cli_option *o, const char *arg, void *dst, const char *what,
			const char *example)
{
	char name[32];

	if (!*arg) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("%s needs %s, e.g. %s %s", name, what, name, example);
		return -1;
	}
	return cli_opt_string(o, arg, dst);
}

static int set_separator(const struct cli_option *o, const char *arg, void *dst)
{
	return set_nonempty(o, arg, dst, "a separator", ",");
}

static int set_sc_sort(const struct cli_option *o, const char *arg, void *dst)
{
	if (sc_sort_parse(arg, dst) < 0) {
		cli_err("invalid value '%s' for -S: give " SC_SORT_KEYS, arg);
		return -1;
	}
	return 0;
}

/* A counter of -e, by perf's name; a usage error lists the valid names. */
static int add_event(const struct cli_option *o, const char *tok, void *dst)
{
	char names[256];
	size_t n = 0;

	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		if (!strcmp(tok, ipcperf_counter_perf_name(i))) {
			*(unsigned int *)dst |= IPCPERF_CNT_BIT(i);
			return 0;
		}
	}
	for (int k = 0; k < IPCPERF_CNT__MAX; k++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", k ? "," : "",
				      ipcperf_counter_perf_name(k));
	cli_err("unknown event '%s' for -e: give some of %s", tok, names);
	return -1;
}

/* -e a,b,...: perf's names of counters into a mask. */
static int set_events(const struct cli_option *o, const char *arg, void *dst)
{
	if (each_item(arg, add_event, o, dst) < 0)
		return -1;
	if (!*(unsigned int *)dst) {
		cli_err("-e needs at least one event, e.g. -e task-clock,page-faults");
		return -1;
	}
	return 0;
}

static int set_trace_sel(const struct cli_option *o, const char *arg, void *dst)
{
	(void)o;
	return tracesel_parse(dst, arg);
}

/* A FILE: "" names none, a usage error as any other (not a file that cannot be opened). */
static int set_path(const struct cli_option *o, const char *arg, void *dst)
{
	static const char *const examples[][2] = {
		{ "input", "capture.data" }, { "record", "capture.data" }, { "dot", "flows.dot" },
		{ "trace-out", "trace.json" }, { "openmetrics", "ipcperf.prom" },
	};
	const char *example = "out.txt";

	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		if (!strcmp(o->name, examples[i][0]))
			example = examples[i][1];
	return set_nonempty(o, arg, dst, "a file", example);
}

static int set_listen(const struct cli_option *o, const char *arg, void *dst)
{
	struct stat_listen *l = dst;

	if (httpd_parse_addr(arg, &l->addr, &l->len) < 0)
		return -1;
	l->on = true;
	return 0;
}

/* ------------------------------------------------------------------ parsing */

static const struct cli_option *find_long(enum cli_cmd_id cmd, const char *name)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].name && !strcmp(options[i].name, name) && takes(&options[i], cmd))
			return &options[i];
	return NULL;
}

static const struct cli_option *find_letter(enum cli_cmd_id cmd, int letter)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].letter && options[i].letter == letter && takes(&options[i], cmd))
			return &options[i];
	return NULL;
}

/*
 * An option that takes a value for @cmd must say where it goes, and an
 * option @implies must exist there: a table that breaks this is a bug.
 */
static void check_table(enum cli_cmd_id cmd)
{
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!takes(o, cmd) || !o->implies || find_long(cmd, o->implies))
			continue;
		fprintf(stderr, "%s: option table: --%s implies --%s, which %s does not take\n",
			cli_prog, o->name, o->implies, cli_command(cmd)->name);
		abort();
	}
}

/* getopt_long()'s optstring and longopts for the options of @cmd. */
static void getopt_spec(enum cli_cmd_id cmd, char *optstring, struct option *longopts)
{
	size_t n = 0;

	*optstring++ = '+';	/* options end at the first argument that is not one */
	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];
		const char *names[] = { o->name, o->alias, o->compat };
		int has_arg = o->arg ? required_argument : no_argument;

		if (!takes(o, cmd) || is_dashdash(o))
			continue;
		if (o->letter) {
			*optstring++ = o->letter;
			if (o->arg)
				*optstring++ = ':';
		}
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (names[k])
				longopts[n++] = (struct option){ names[k], has_arg, NULL, OPT_VAL(i) };
	}
	*optstring = 0;
	longopts[n] = (struct option){ 0 };
}

/*
 * Words that getopt would misread, taken as another spelling first: strace's
 * -tt and -ttt would be -t (--tid) with the value "t".
 */
static const struct {
	enum cli_cmd_id cmd;
	const char *word;
	char *as;
} respelled[] = {
	{ CMD_TRACE, "-tt", (char *)"--timestamps=us" },
	{ CMD_TRACE, "-ttt", (char *)"--timestamps=unix" },
};

/*
 * Respell the word getopt reads next, @argv[@optind], if it is one of the
 * above. Only a whole word: one that is an option's value was consumed with
 * its option, and getopt is never inside a word of these between two calls.
 */
static void respell_next(enum cli_cmd_id cmd, int argc, char **argv)
{
	int i = optind ? optind : 1;

	if (i >= argc)
		return;
	for (size_t k = 0; k < sizeof(respelled) / sizeof(respelled[0]); k++)
		if (respelled[k].cmd == cmd && !strcmp(argv[i], respelled[k].word))
			argv[i] = respelled[k].as;
}

/* Store the value of @o (given @arg) in @opts, and what it implies. */
static int apply(enum cli_cmd_id cmd, const struct cli_option *o, const char *arg, void *opts)
{
	if (o->set(o, arg, (char *)opts + o->to[cmd] - 1) < 0)
		return -1;
	if (o->implies)
		return apply(cmd, find_long(cmd, o->implies), NULL, opts);
	return 0;
}

enum cli_parsed cli_options_parse(enum cli_cmd_id cmd, int argc, char **argv, void *opts,
				  int *first)
{
	char optstring[2 + 2 * NR_OPTIONS], prog[32];
	struct option longopts[3 * NR_OPTIONS + 1];
	int c;

	check_table(cmd);
	getopt_spec(cmd, optstring, longopts);
	/* What getopt's own messages (an unknown option, a missing value) start with. */
	snprintf(prog, sizeof(prog), "%s %s", cli_prog, cli_command(cmd)->name);
	argv[0] = prog;
	optind = 0;	/* from the start, whatever parsed before */
	for (; respell_next(cmd, argc, argv),
	       (c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1;) {
		const struct cli_option *o = c >= OPT_VAL(0) ? &options[c - OPT_VAL(0)] :
					     find_letter(cmd, c);

		if (!o)
			return CLI_PARSED_USAGE;	/* getopt said what, in one line */
		if (!o->set) {
			cli_options_help(stdout, cmd);	/* -h: the only one without a value */
			return CLI_PARSED_HELP;
		}
		if (apply(cmd, o, optarg, opts) < 0)
			return CLI_PARSED_USAGE;
	}
	*first = optind;
	return CLI_PARSED_RUN;
}

enum cli_parsed cli_options_parse_capture(enum cli_cmd_id cmd, int argc, char **argv, void *opts,
					  struct cli_target *t)
{
	int first;
	enum cli_parsed p = cli_options_parse(cmd, argc, argv, opts, &first);

	if (p == CLI_PARSED_RUN && cli_target_finish(t, argc, argv, first) < 0)
		p = CLI_PARSED_USAGE;
	return p;
}

/* ------------------------------------------------------------------ help */

/* Where the help text of an option starts; a longer name goes on a line of its own. */
#define HELP_COLUMN 26

static const struct cli_opt_help *help_for(const struct cli_option *o, enum cli_cmd_id cmd)
{
	for (size_t i = 0; i < CLI_OPT_HELPS && o->help_for[i].cmds; i++)
		if ((o->help_for[i].cmds >> cmd) & 1)
			return &o->help_for[i];
	return NULL;
}

/* "  -p, --pid PID[,PID...]  trace these ...", and the text's other lines under its first. */
static void help_option(FILE *f, const struct cli_option *o, enum cli_cmd_id cmd)
{
	const struct cli_opt_help *h = help_for(o, cmd);
	const char *arg = h && h->arg ? h->arg : o->arg, *text = h ? h->text : o->help;
	char label[80];
	int n;

	if (is_dashdash(o))
		n = snprintf(label, sizeof(label), "  -- %s", arg);
	else
		n = snprintf(label, sizeof(label), "  %c%c%s --%s%s%s%s%s", o->letter ? '-' : ' ',
			     o->letter ? o->letter : ' ', o->letter ? "," : " ", o->name,
			     o->alias ? ", --" : "", o->alias ? o->alias : "", arg ? " " : "",
			     arg ? arg : "");
	if (n + 2 > HELP_COLUMN)
		fprintf(f, "%s\n%*s", label, HELP_COLUMN, "");
	else
		fprintf(f, "%-*s", HELP_COLUMN, label);
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");

		fprintf(f, "%.*s\n", (int)len, line);
		line += len;
		if (*line && *++line)
			fprintf(f, "%*s", HELP_COLUMN, "");
	}
}

/* The options of @cmd that are (@more) or are not among its "More options". */
static void help_options(FILE *f, enum cli_cmd_id cmd, bool more)
{
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (takes(&options[i], cmd) && !!((options[i].more >> cmd) & 1) == more)
			help_option(f, &options[i], cmd);
}

/* The common options first, the rest under a heading of their own. */
void cli_options_help(FILE *f, enum cli_cmd_id cmd)
{
	const struct cli_command *c = cli_command(cmd);
	bool any_more = false;

	for (size_t i = 0; i < NR_OPTIONS; i++)
		any_more |= takes(&options[i], cmd) && ((options[i].more >> cmd) & 1);
	fputs(c->usage, f);
	help_options(f, cmd, false);
	if (any_more) {
		fputs("\nMore options:\n", f);
		help_options(f, cmd, true);
	}
	fputs(c->epilog, f);
}

/* ------------------------------------------------------------------ completion */

/* The most characters of words on a line of the generated completion. */
#define BASH_WORDS_WIDTH 64

/*
 * The option words of @cmd as the completion offers them ("-p", "--pid",
 * and "--" for the command), each after @sep but the first.
 */
static void option_words(FILE *f, enum cli_cmd_id cmd, const char *sep)
{
	const char *before = "";

	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!takes(o, cmd))
			continue;
		if (o->letter) {
			fprintf(f, "%s-%c", before, o->letter);
			before = sep;
		}
		fprintf(f, "%s--%s", before, o->name ? o->name : "");
		before = sep;
	}
}

void cli_options_list(FILE *f, enum cli_cmd_id cmd)
{
	option_words(f, cmd, "\n");
	fputc('\n', f);
}

/* How the completion offers the value of @o, as _ipcperf_value says it: "words a b c". */
static void value_kind(FILE *f, const void *arg)
{
	static const char *const kinds[] = {
		[CPL_NOTHING] = "nothing", [CPL_FILE] = "file", [CPL_PID] = "pid",
		[CPL_TID] = "tid", [CPL_WORDS] = "words", [CPL_COUNTERS] = "list",
		[CPL_POW2] = "words",
	};
	const struct cli_option *o = arg;

	fputs(kinds[o->complete], f);
	if (o->complete == CPL_COUNTERS) {
		for (int i = 0; i < IPCPERF_CNT__MAX; i++)
			fprintf(f, " %s", ipcperf_counter_perf_name(i));
	} else if (o->complete == CPL_POW2) {
		for (unsigned long p = 1; p <= o->max; p <<= 1)
			fprintf(f, " %lu", p);
	} else if (o->values) {
		for (const struct cli_word *w = o->values; w->word; w++)
			fprintf(f, " %s", w->word);
	} else if (o->words) {
		fputc(' ', f);
		for (const char *c = o->words; *c; c++)
			fputc(*c == '|' ? ' ' : *c, f);
	}
}

static void command_words(FILE *f, const void *arg)
{
	option_words(f, *(const enum cli_cmd_id *)arg, " ");
}

/* What @print writes, in a string to free; NULL when out of memory. */
static char *printed(void (*print)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print(f, arg);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * " echo 'WORDS' ;;" with the words of @print wrapped at blanks, the lines
 * after the first indented by two tabs (inside the quotes, where a newline
 * parts words as a blank does). @return 0, or -ENOMEM.
 */
static int bash_echo(FILE *f, void (*print)(FILE *f, const void *arg), const void *arg)
{
	char *words = printed(print, arg), *w = words;
	size_t col = 0;

	if (!words)
		return -ENOMEM;
	fputs(" echo '", f);
	while (*w) {
		size_t len = strcspn(w, " ");

		if (col + len > BASH_WORDS_WIDTH) {
			fputs("\n\t\t", f);
			col = 0;
		}
		fprintf(f, "%s%.*s", col ? " " : "", (int)len, w);
		col += len + 1;
		w += len + strspn(w + len, " ");
	}
	fputs("' ;;\n", f);
	free(words);
	return 0;
}

/* "	-p | --pid) echo 'pid' ;;": how the value of @o is completed. */
static int bash_value_case(FILE *f, const struct cli_option *o)
{
	const char *names[] = { o->name, o->alias, o->compat };

	fputc('\t', f);
	if (o->letter)
		fprintf(f, "-%c | ", o->letter);
	for (size_t k = 0, n = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (names[k])
			fprintf(f, "%s--%s", n++ ? " | " : "", names[k]);
	fputc(')', f);
	return bash_echo(f, value_kind, o);
}

int cli_options_bash(FILE *f)
{
	int err = 0;

	fputs("# BEGIN generated by `ipcperf --bash-completion` from cli/options.c: do not edit\n"
	      "_ipcperf_commands='", f);
	for (int c = 0; c < CMD__MAX; c++)
		fprintf(f, "%s%s", c ? " " : "", cli_command(c)->name);
	fputs("'\n\n# _ipcperf_opts SUBCOMMAND: the options of SUBCOMMAND.\n"
	      "_ipcperf_opts()\n{\n\tcase $1 in\n", f);
	for (enum cli_cmd_id c = 0; c < CMD__MAX && !err; c++) {
		fprintf(f, "\t%s)", cli_command(c)->name);
		err = bash_echo(f, command_words, &c);
	}
	fputs("\tesac\n}\n\n"
	      "# _ipcperf_value OPTION: how the value of OPTION is completed: nothing, file,\n"
	      "# pid, tid, words WORD..., or list WORD... (comma-separated); nothing is said\n"
	      "# for an option that takes no value.\n"
	      "_ipcperf_value()\n{\n\tcase $1 in\n", f);
	for (size_t i = 0; i < NR_OPTIONS && !err; i++)
		if (options[i].arg && !is_dashdash(&options[i]))
			err = bash_value_case(f, &options[i]);
	fputs("\tesac\n}\n# END generated\n", f);
	return err;
}
