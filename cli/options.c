/*
 * The option table of every subcommand, and what is made from it: the
 * getopt_long() loop, the --help texts, the words of the bash completion.
 * The setters that convert and store the values are options-set.c's.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "util.h"

/*
 * A row's setter and the fields it stores to, in the options struct of each
 * command that takes it (cli_option.set and .to): STORE(cli_opt_flag,
 * STAT(json), FLOWS(json)). A field of another type than the setter's does
 * not compile (CLI_OPT_STORE, options.h).
 */
#define STORE CLI_OPT_STORE
#define STAT(f) CLI_OPT_AT(CMD_STAT, struct stat_opts, f)
#define TRACE(f) CLI_OPT_AT(CMD_TRACE, struct trace_opts, f)
#define FLOWS(f) CLI_OPT_AT(CMD_FLOWS, struct flows_opts, f)
#define PATHS(f) CLI_OPT_AT(CMD_PATHS, struct paths_opts, f)
#define RECORD(f) CLI_OPT_AT(CMD_RECORD, struct record_opts, f)
#define REPORT(f) CLI_OPT_AT(CMD_REPORT, struct report_opts, f)
#define LIST(f) CLI_OPT_AT(CMD_LIST, struct list_opts, f)
#define CHECK(f) CLI_OPT_AT(CMD_CHECK, struct check_opts, f)
#define TOP(f) CLI_OPT_AT(CMD_TOP, struct top_opts, f)
/* A field of the struct cli_target of the commands that capture. */
#define CAPTURE(f) STAT(t.f), TRACE(t.f), FLOWS(t.f), PATHS(t.f), RECORD(t.f)

#define IN(cmd) (1u << CMD_##cmd)
#define IN_CAPTURE (IN(STAT) | IN(TRACE) | IN(FLOWS) | IN(PATHS) | IN(RECORD))
#define IN_ALL ((1u << CMD__MAX) - 1)

/* The largest ring -m takes, in pages. */
#define RING_PAGES_MAX 65536

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

/* --record's help, the command that reads the capture back and what it gives the same. */
#define RECORD_HELP(cmd, what) \
	"also write the capture to FILE (perf.data format, mode\n" \
	"0600; see ipcperf record): `ipcperf " cmd " -i FILE`\n" \
	"then gives the same " what

/*
 * In the order of the help. An option with a short name is "-x" in the
 * messages, else "--long".
 */
static const struct cli_option options[] = {
	{ .name = "input", .letter = 'i', .arg = "FILE",
	  STORE(cli_opt_input_add, REPORT(inputs), PATHS(inputs)), .complete = CPL_FILE,
	  .help = "the capture to read (default: ipcperf.data); given\n"
		  "again, the captures of several hosts joined (the\n"
		  "flows and paths views): a TCP connection seen from\n"
		  "both ends is one flow a direction",
	  .help_for = { { IN(PATHS), NULL,
			  "the requests of a capture (ipcperf record) instead\n"
			  "of tracing: no target then, the capture's are used;\n"
			  "given again, the captures of several hosts joined: a\n"
			  "TCP connection seen from both ends is one channel,\n"
			  "each host's clock placed by the bytes between them" } } },
	{ .name = "view", .arg = "VIEW",
	  STORE(cli_opt_enum, REPORT(view)), .values = view_words, .complete = CPL_WORDS,
	  .help = "stat (default; flows with several -i), syscalls\n"
		  "(stat -s), flows or paths" },
	{ .name = "pid", .letter = 'p', .arg = "PID[,PID...]",
	  STORE(cli_opt_ids, CAPTURE(pids), TOP(t.pids)), .complete = CPL_PID,
	  .help = "trace these processes (all their threads)" },
	{ .name = "tid", .letter = 't', .arg = "TID[,TID...]",
	  STORE(cli_opt_ids, CAPTURE(tids), TOP(t.tids)), .complete = CPL_TID,
	  .help = "trace these threads" },
	{ .name = "all-cpus", .letter = 'a',
	  STORE(cli_opt_flag, CAPTURE(system_wide), TOP(t.system_wide)),
	  .help = "trace the whole system",
	  .help_for = { { IN(TOP), NULL, "watch the whole system (the default: needs root)" } } },
	{ .name = "duration", .letter = 'd', .arg = "SECS",
	  STORE(cli_opt_duration, CAPTURE(duration)), .complete = CPL_NOTHING,
	  .help = "stop after SECS seconds (and end the command of\n"
		  "-- CMD: SIGTERM, SIGKILL 0.5 s later)" },
	{ .name = "keep-running", .more = IN(STAT),
	  STORE(cli_opt_flag, CAPTURE(keep_running)),
	  .help = "when -d ends the capture, leave the command of -- CMD\n"
		  "running: report, then wait for it and exit with its status" },
	{ .name = "delay", .letter = 'd', .arg = "SECS",
	  STORE(cli_opt_duration, TOP(delay)), .complete = CPL_NOTHING,
	  .help = "seconds between two frames, as top's (default 1;\n"
		  "fractions too: -d 0.5)" },
	{ .name = "sort-key", .letter = 's', .arg = "KEY",
	  STORE(cli_opt_enum, TOP(key)), .values = top_key_words, .complete = CPL_WORDS,
	  .help = "order the rows by bytes (b, the default), ops (o),\n"
		  "time in the calls (t) or context switches (c) per\n"
		  "second, largest first; the same keys change it live" },
	{ .name = "batch", .letter = 'b',
	  STORE(cli_opt_flag, TOP(batch)),
	  .help = "no full screen: print each frame as text on standard\n"
		  "output (every row), then a last one at the end" },
	{ .name = "iterations", .letter = 'n', .arg = "N",
	  STORE(cli_opt_uint, TOP(frames)), .min = 1, .max = INT_MAX, .complete = CPL_NOTHING,
	  .help = "end after N frames (and end the command of -- CMD)" },
	{ .name = "mmap-pages", .more = IN(STAT), .letter = 'm', .arg = "PAGES",
	  STORE(cli_opt_pages, CAPTURE(ring_pages), CHECK(ring_pages), TOP(t.ring_pages)),
	  .max = RING_PAGES_MAX, .complete = CPL_POW2,
	  .help = "pages per CPU ring, a power of two (default: the most\n"
		  "the memlock limit lets ipcperf lock, up to 8192, and up\n"
		  "to 40 MiB for all CPUs together: 4096 on 2 CPUs)",
	  .help_for = { { IN(CHECK), NULL, "ring size to check, pages per CPU, a power of two\n"
					   "(default: the other commands' default)" } } },
	{ .name = "output", .letter = 'o', .arg = "FILE",
	  STORE(cli_opt_path, CAPTURE(output), REPORT(output)), .complete = CPL_FILE,
	  .help = "write to FILE instead of standard output",
	  .help_for = { { IN(RECORD), NULL, "the capture (replaced if it exists; default:\n"
					   "ipcperf.data, the last one kept as ipcperf.data.old)" } } },
	{ .name = NULL, .arg = "CMD [ARGS]", .cmds = IN_CAPTURE | IN(TOP),
	  .help = "run CMD and trace it and its children (with -p/-t:\n"
		  "those from now, CMD from its exec; CMD's end ends the run)" },
	{ .name = "scope", .more = IN(STAT), .arg = "auto|cpu|task",
	  STORE(cli_opt_enum, CAPTURE(scope), TOP(t.scope)),
	  .values = scope_words, .complete = CPL_WORDS,
	  .help = "tracepoints on every CPU, keeping the targets' records\n"
		  "(cpu: cheaper for the targets; needs root or CAP_PERFMON),\n"
		  "or per task (task: no other process's records);\n"
		  "auto (default): cpu when allowed",
	  .help_for = { { IN(RECORD), "auto|task",
			  "per task (auto and task alike: a capture holds the\n"
			  "targets' records only; cpu is refused)" } } },
	{ .name = "no-bpf", .more = IN(STAT),
	  STORE(cli_opt_flag, CAPTURE(no_bpf), TOP(t.no_bpf)),
	  .help = "name fds from /proc only, not from the kernel's records\n"
		  "at the call (ipcperf check says which this machine gets)" },
	{ .name = "syscall-samples", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(t.syscall_samples), TRACE(t.syscall_samples),
		FLOWS(t.syscall_samples)),
	  .help = "take each call from its sys_enter and sys_exit samples,\n"
		  "as captures do, not from one record per call paired in\n"
		  "the kernel (the default with BPF: the same calls, half\n"
		  "the ring records)" },
	{ .name = "interval", .letter = 'I', .compat = "interval-print", .arg = "MS",
	  STORE(cli_opt_uint, STAT(interval_ms), FLOWS(interval_ms)),
	  .min = 10, .max = 3600000, .complete = CPL_NOTHING,
	  .help = "print the deltas every MS milliseconds (>= 10), then the\n"
		  "totals: in text one line per process and interval (exact\n"
		  "counts, rates, the busiest fd; --interval-full: the full\n"
		  "tables); with --json one object per line (\"interval\": true,\n"
		  "and false for the totals); with -x a leading time column\n"
		  "(\"total\" on the rows of the totals)",
	  .help_for = { { IN(FLOWS), NULL,
			  "every MS milliseconds (>= 10), the flows with a call in\n"
			  "the interval, each with its bytes, waits, wire times\n"
			  "and verdict in it (the phases of a program), then the\n"
			  "whole run's table; with --json, the document's\n"
			  "\"intervals\" array" } } },
	{ .name = "interval-full", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(interval_full)),
	  .help = "with -I in text, every interval as the full tables of\n"
		  "the totals (by default one line per process and\n"
		  "interval: exact counts, rates and the busiest fd)" },
	{ .name = "json", .letter = 'j',
	  STORE(cli_opt_flag, STAT(json), FLOWS(json), PATHS(json), REPORT(json), LIST(json)),
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
	{ .name = "field-separator", .letter = 'x', .arg = "SEP",
	  STORE(cli_opt_separator, STAT(sep), REPORT(sep)), .complete = CPL_NOTHING,
	  .help = "rows of fields separated by SEP, as perf stat -x: per\n"
		  "fd side, per process (sched), per counter, a summary\n"
		  "with the lost events; lines starting with '#' name\n"
		  "the fields of each kind of row",
	  .help_for = { { IN(REPORT), NULL, "rows of fields separated by SEP (stat and syscalls)" } } },
	{ .name = "sort", .more = IN(STAT), .arg = "ops|bytes|time",
	  STORE(cli_opt_enum, STAT(sort)), .values = sort_words, .complete = CPL_WORDS,
	  .help = "order of the fd rows, largest first (default: bytes)" },
	{ .name = "top", .more = IN(STAT), .arg = "N",
	  STORE(cli_opt_uint, STAT(top)), .min = 1, .max = INT_MAX, .complete = CPL_NOTHING,
	  .help = "at most N fd rows per process (in every format)" },
	/* One meaning everywhere: every syscall, not only the I/O and fd calls. */
	{ .name = "syscalls", .letter = 's', .alias = "all-syscalls",
	  STORE(cli_opt_flag, STAT(syscalls), RECORD(all_syscalls)),
	  .help = "trace every system call (raw_syscalls) and add the\n"
		  "strace -c -w view: per process, per syscall, % time,\n"
		  "seconds, usecs/call, min, p99 and max (usecs), calls,\n"
		  "errors, and a total row. Without -s, JSON still lists\n"
		  "the calls traced for the fd table (I/O and fd calls)",
	  .help_for = { { IN(RECORD), NULL,
			  "every syscall (raw_syscalls), not only I/O and fd calls,\n"
			  "for report --view syscalls" } } },
	{ .name = "summary-sort-by", .more = IN(STAT), .letter = 'S', .arg = "KEY",
	  STORE(cli_opt_sc_sort, STAT(sc_sort)),
	  .words = SC_SORT_KEYS, .complete = CPL_WORDS, .implies = "syscalls",
	  .help = "order of the syscall rows: time (default), calls,\n"
		  "errors, avg, max, min, p99 (largest first) or name\n"
		  "(A to Z); implies -s" },
	{ .name = "total", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(sc_total)), .implies = "syscalls",
	  .help = "one syscall table for all processes together (rows\n"
		  "merged by name), as strace -c -f, in place of the\n"
		  "per-process tables; JSON adds\n"
		  "\"syscalls_total\" and keeps the per-process rows.\n"
		  "Calls, errors, time, min and max are exact sums and\n"
		  "extremes; p50 and p99 are those of all the calls\n"
		  "together (the processes' histograms merged);\n"
		  "implies -s" },
	{ .name = "per-thread", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(per_thread)), .implies = "syscalls",
	  .help = "a syscall table per thread, headed \"PID/TID COMM\"\n"
		  "(JSON and CSV rows carry the tid); implies -s" },
	{ .name = "errno", .more = IN(STAT), .alias = "errno-summary",
	  STORE(cli_opt_flag, STAT(sc_errnos)), .implies = "syscalls",
	  .help = "after each table, the errors of each syscall by errno\n"
		  "name (EBADF, ENOENT, ...); JSON and CSV always have\n"
		  "them (\"errnos\"); implies -s" },
	{ .name = "flows",
	  STORE(cli_opt_flag, STAT(flows)),
	  .help = "also the IPC flows between the targets (as ipcperf flows):\n"
		  "a table after the processes, and the \"flows\" array of\n"
		  "--json (empty without --flows); records switch-in/out\n"
		  "for blocked times, which costs more records" },
	{ .name = "dot", .arg = "FILE",
	  STORE(cli_opt_path, FLOWS(dot), REPORT(dot)), .complete = CPL_FILE,
	  .help = "also write the flow graph for Graphviz to FILE\n"
		  "(dot -Tsvg FILE > flows.svg)",
	  .help_for = { { IN(REPORT), NULL, "flows: the flow graph in Graphviz DOT" } } },
	{ .name = "trace-out", .arg = "FILE",
	  STORE(cli_opt_path, FLOWS(trace_out), REPORT(trace_out)), .complete = CPL_FILE,
	  .help = "also write a timeline in the Chrome Trace Event Format\n"
		  "to FILE, for Perfetto UI or chrome://tracing: read and\n"
		  "write calls per thread, an arrow from each write to each\n"
		  "read that took its bytes, queued bytes per channel",
	  .help_for = { { IN(REPORT), NULL, "flows: the timeline (Chrome trace JSON)" } } },
	{ .name = "event", .letter = 'e', .arg = "EVENT[,EVENT...]",
	  STORE(cli_opt_events, STAT(counter_mask)), .complete = CPL_COUNTERS,
	  .help = "count only these counters, by perf's names (as ipcperf\n"
		  "list and perf stat -e give them): task-clock,\n"
		  "page-faults, context-switches, cpu-migrations, cycles,\n"
		  "instructions, cache-references, cache-misses (default:\n"
		  "all); may be repeated" },
	/* trace: strace's -s, -T and timestamps; every syscall is traced by default. */
	{ .name = "string-limit", .letter = 's', .arg = "SIZE",
	  STORE(cli_opt_uint, TRACE(strsize)),
	  .min = 0, .max = TRACE_STR_MAX, .complete = CPL_NOTHING,
	  .help = "print at most SIZE bytes of each string and buffer\n"
		  "(default 32, as strace -s), then \"...\"; paths in full" },
	{ .name = "syscall-times", .letter = 'T',
	  STORE(cli_opt_flag, TRACE(times)),
	  .help = "the time spent in each call, \" <0.000012>\" after it,\n"
		  "as strace -T" },
	{ .name = "follow-forks", .letter = 'f',
	  STORE(cli_opt_flag, TRACE(strace_habit)),
	  .help = "accepted as strace -f: children are always followed" },
	{ .name = "decode-fds", .letter = 'y',
	  STORE(cli_opt_flag, TRACE(strace_habit)),
	  .help = "accepted as strace -y and -yy: every fd is always\n"
		  "named (path, socket endpoints); -tt and -ttt are\n"
		  "--timestamps us and unix (-t stays --tid)" },
	{ .name = "timestamps", .arg = "FORMAT",
	  STORE(cli_opt_enum, TRACE(stamps)), .values = stamp_words, .complete = CPL_WORDS,
	  .help = "start each line with the time the call began: time\n"
		  "(HH:MM:SS, strace -t), us (HH:MM:SS.uuuuuu, -tt) or unix\n"
		  "(seconds since 1970 with microseconds, -ttt)" },
	{ .name = "all-syscalls", .alias = "syscalls",
	  STORE(cli_opt_flag, TRACE(all_syscalls)),
	  .help = "every syscall: the default now, kept for scripts\n"
		  "(-e trace=%desc gives the I/O and fd calls of old)" },
	{ .name = "trace", .letter = 'e', .arg = "trace=SET",
	  STORE(cli_opt_trace_sel, TRACE(sel)),
	  .help = "print only these calls, as strace -e trace=: names and\n"
		  "classes (%file, %desc, %network, %process, %memory,\n"
		  "%signal, %ipc), comma-separated, '!' first for all but\n"
		  "them; traces every syscall to choose from; may be repeated" },
	{ .name = "wide", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(wide), FLOWS(wide), REPORT(wide)),
	  .help = "every column of the tables: on a terminal narrower than a\n"
		  "table, some columns are left out (by default) in the\n"
		  "order the manual page gives; not on a file or a pipe" },
	{ .name = "no-fds", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(no_fds)),
	  .help = "the text report without the fd tables: per process its\n"
		  "scheduling and counters, as perf stat prints them (JSON\n"
		  "and CSV keep every row)" },
	{ .name = "per-fd",
	  STORE(cli_opt_flag, STAT(per_fd), TOP(per_fd)),
	  .help = "the text's fd tables with a row per fd: by default the\n"
		  "connections of a process to one endpoint with one peer\n"
		  "process are one row (\"127.0.0.1:6379 <- redis-benchmark[42]\",\n"
		  "N conns); JSON has both (fds and groups)",
	  .help_for = { { IN(TOP), NULL, "the fd pane with a row per fd: by default the\n"
					 "connections of a process to one endpoint are one row\n"
					 "(\"127.0.0.1:6379 <- redis-benchmark[42], 50 conns\");\n"
					 "the key f switches between the two" } } },
	{ .name = "per-flow",
	  STORE(cli_opt_flag, FLOWS(per_flow)),
	  .help = "the text's flow table with a row per flow: by default the\n"
		  "flows of one writer side, reader side, kind and endpoint\n"
		  "are one row (N conns, their wire times merged, their bytes\n"
		  "added up); JSON has both (flows and flow_groups)" },
	{ .name = "no-counters", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(no_counters)),
	  .help = "open no counters: each is switched in and out with the\n"
		  "targets at every context switch, which a program that\n"
		  "blocks often pays for" },
	{ .name = "record", .more = IN(STAT), .arg = "FILE",
	  STORE(cli_opt_path, STAT(t.record), PATHS(t.record)), .complete = CPL_FILE,
	  .help = RECORD_HELP("report", "numbers"),
	  .help_for = { { IN(PATHS), NULL, RECORD_HELP("paths", "requests") } } },
	{ .name = "host", .arg = "NAME",
	  STORE(cli_opt_host, RECORD(t.host), PATHS(t.host)), .complete = CPL_NOTHING,
	  .help = "the host the capture says it was recorded on (default:\n"
		  "the hostname): name two hosts that share one apart, so\n"
		  "that `ipcperf paths -i A -i B` joins their captures",
	  .help_for = { { IN(PATHS), NULL, "with --record: the host the capture says it was\n"
					  "recorded on (default: the hostname), to join it with\n"
					  "another host's (`ipcperf paths -i A -i B`)" } } },
	{ .name = "openmetrics", .more = IN(STAT), .arg = "FILE",
	  STORE(cli_opt_path, STAT(om_path)), .complete = CPL_FILE,
	  .help = "also write the totals as metrics (Prometheus text format\n"
		  "0.0.4, ending in '# EOF'; doc/metrics.md) to FILE: at the\n"
		  "start, every -I interval (the running totals since the\n"
		  "start, not the deltas), and at the end; each time to a\n"
		  "temporary file renamed over FILE, as node_exporter's\n"
		  "textfile collector expects" },
	{ .name = "listen", .more = IN(STAT), .arg = "[ADDR:]PORT",
	  STORE(cli_opt_listen, STAT(listen)), .complete = CPL_NOTHING,
	  .help = "serve the running totals at http://ADDR:PORT/metrics\n"
		  "while the capture runs (ADDR: default 127.0.0.1; PORT 0:\n"
		  "any free port); OpenMetrics to scrapers that ask for it\n"
		  "(Prometheus does), else the text format" },
	{ .name = "listen-linger", .more = IN(STAT), .arg = "SECS",
	  STORE(cli_opt_uint, STAT(linger_s)), .min = 0, .max = 86400, .complete = CPL_NOTHING,
	  .help = "after the capture, go on serving its final totals until\n"
		  "one scrape has fetched them, at most SECS seconds" },
	{ .name = "openmetrics-pid", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(om_pid)),
	  .help = "a pid label on the fd, process and counter metrics\n"
		  "(by default processes of one name are summed)" },
	{ .name = "metrics-per-fd", .more = IN(STAT),
	  STORE(cli_opt_flag, STAT(metrics_per_fd)),
	  .help = "an object label (the fd's object: an inode, a path) on\n"
		  "the fd and flow metrics: a series per fd and per flow,\n"
		  "which thousands of connections make thousands of" },
	{ .name = "requests",
	  STORE(cli_opt_flag, PATHS(requests), REPORT(requests)),
	  .help = "with --json, every request too: its hops, their times",
	  .help_for = { { IN(REPORT), NULL, "paths, with --json: every request too" } } },
	{ .name = "otlp", .arg = "FILE",
	  STORE(cli_opt_path, PATHS(otlp)), .complete = CPL_FILE,
	  .help = "also write the requests as OpenTelemetry traces to FILE\n"
		  "(OTLP/JSON, an ExportTraceServiceRequest): a trace per\n"
		  "request, a resource per process, server and client spans" },
	{ .name = "otlp-endpoint", .arg = "URL",
	  STORE(cli_opt_url, PATHS(otlp_endpoint)), .complete = CPL_NOTHING,
	  .help = "also POST those traces to an OTLP/HTTP collector, as\n"
		  "JSON (http://127.0.0.1:4318/v1/traces)" },
	{ .name = "perfetto", .arg = "FILE",
	  STORE(cli_opt_path, PATHS(perfetto)), .complete = CPL_FILE,
	  .help = "also write the requests as a timeline to FILE (Chrome\n"
		  "trace JSON, for ui.perfetto.dev or chrome://tracing): a\n"
		  "track per thread, a slice per span, an arrow per message" },
	{ .name = "quiet", .letter = 'q',
	  STORE(cli_opt_flag, STAT(quiet), TRACE(quiet), FLOWS(quiet), PATHS(quiet), RECORD(quiet)),
	  .help = "no live status line on the terminal",
	  .help_for = {
		  { IN(TRACE), NULL, "no live status line (shown on a terminal when the\n"
				     "trace itself goes to a file or a pipe)" },
		  { IN(RECORD), NULL, "no summary line on stderr" } } },
	{ .name = "verbose", .letter = 'v',
	  STORE(cli_opt_flag, STAT(verbose), TRACE(verbose), FLOWS(verbose), PATHS(verbose),
		RECORD(verbose),
		REPORT(verbose), LIST(verbose), CHECK(verbose), TOP(verbose)),
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
static void check_table(const struct cli_command *c)
{
	enum cli_cmd_id cmd = c->id;

	for (size_t i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!takes(o, cmd) || !o->implies || find_long(cmd, o->implies))
			continue;
		fprintf(stderr, "%s: option table: --%s implies --%s, which %s does not take\n",
			cli_prog, o->name, o->implies, c->name);
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

enum cli_parsed cli_command_parse(const struct cli_command *command, int argc, char **argv,
				  void *opts, size_t size)
{
	enum cli_cmd_id cmd = command->id;
	char optstring[2 + 2 * NR_OPTIONS], prog[32];
	struct option longopts[3 * NR_OPTIONS + 1];
	int c;

	check_table(command);
	getopt_spec(cmd, optstring, longopts);
	/* What getopt's own messages (an unknown option, a missing value) start with. */
	snprintf(prog, sizeof(prog), "%s %s", cli_prog, command->name);
	argv[0] = prog;
	memset(opts, 0, size);
	if (command->init)
		command->init(opts);
	optind = 0;	/* from the start, whatever parsed before */
	for (; respell_next(cmd, argc, argv),
	       (c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1;) {
		const struct cli_option *o = c >= OPT_VAL(0) ? &options[c - OPT_VAL(0)] :
					     find_letter(cmd, c);

		if (!o)
			return CLI_PARSED_USAGE;	/* getopt said what, in one line */
		if (!o->set) {
			cli_options_help(stdout, command);	/* -h: the only one without a value */
			return CLI_PARSED_HELP;
		}
		if (apply(cmd, o, optarg, opts) < 0)
			return CLI_PARSED_USAGE;
	}
	/* optind: the first argument that is not an option */
	if (command->check && command->check(opts, argc, argv, optind) < 0)
		return CLI_PARSED_USAGE;
	return CLI_PARSED_RUN;
}

void cli_options_free(const struct cli_command *cmd, void *opts)
{
	/* cli_opt_ids() is the one setter that allocates. */
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].set == cli_opt_ids && options[i].to[cmd->id]) {
			struct cli_ids *ids = (void *)((char *)opts + options[i].to[cmd->id] - 1);

			free(ids->v);
			*ids = (struct cli_ids){ 0 };
		}
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
void cli_options_help(FILE *f, const struct cli_command *c)
{
	enum cli_cmd_id cmd = c->id;
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

void cli_options_list(FILE *f, const struct cli_command *c)
{
	option_words(f, c->id, "\n");
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

int cli_options_bash(FILE *f, const struct cli_command *const cmds[CMD__MAX])
{
	int err = 0;

	fputs("# BEGIN generated by `ipcperf --bash-completion` from cli/options.c: do not edit\n"
	      "_ipcperf_commands='", f);
	for (int c = 0; c < CMD__MAX; c++)
		fprintf(f, "%s%s", c ? " " : "", cmds[c]->name);
	fputs("'\n\n# _ipcperf_opts SUBCOMMAND: the options of SUBCOMMAND.\n"
	      "_ipcperf_opts()\n{\n\tcase $1 in\n", f);
	for (enum cli_cmd_id c = 0; c < CMD__MAX && !err; c++) {
		fprintf(f, "\t%s)", cmds[c]->name);
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
