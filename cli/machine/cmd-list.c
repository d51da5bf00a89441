/* ipcperf list: every event a session may open here, tried for real, with its status. */
#include "config.h"
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "output.h"

struct list_ctx {
	FILE *out;
	struct json *json;		/* NULL: text */
	char *const *patterns;		/* shell patterns on the name or group; none = all */
	int nr_patterns;
	unsigned int total, ok, missing, denied;
};

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(err) : NULL;

	return name ? name : "error";
}

static bool is_tracepoint(const struct ipcperf_event_info *ev)
{
	return strchr(ev->name, ':') != NULL;
}

/* Why an event is missing: what the errno means for this kind of event. */
static const char *missing_reason(const struct ipcperf_event_info *ev)
{
	if (is_tracepoint(ev))
		return ev->err == ENOENT ? "this kernel has no such tracepoint" : strerror(ev->err);
	if (!strcmp(ev->group, "hardware") &&
	    (ev->err == ENOENT || ev->err == EOPNOTSUPP || ev->err == ENODEV))
		return "no PMU counts it on this machine, e.g. a VM without a virtual PMU";
	return strerror(ev->err);
}

/*
 * The fix for a denial ('ipcperf check' tells which applies here). A
 * tracepoint needs its id from tracefs, which only root may read by default:
 * a group mount gives it, or cap_dac_read_search, for tracefs only.
 */
static const char *denied_fix(const struct ipcperf_event_info *ev)
{
	if (is_tracepoint(ev))
		return "run as root, or: sudo setcap cap_perfmon+ep $(command -v ipcperf), with "
		       "tracefs readable (ipcperf check says how)";
	return "run as root, or: sudo sysctl -w kernel.perf_event_paranoid=1, or: "
	       "sudo setcap cap_perfmon+ep $(command -v ipcperf)";
}

static const char *status_word(enum ipcperf_avail a)
{
	switch (a) {
	case IPCPERF_AVAIL_OK: return "supported";
	case IPCPERF_AVAIL_MISSING: return "not supported";
	case IPCPERF_AVAIL_DENIED: return "permission denied";
	}
	return "unknown";
}

static bool wanted(const struct list_ctx *c, const struct ipcperf_event_info *ev)
{
	if (!c->nr_patterns)
		return true;
	for (int i = 0; i < c->nr_patterns; i++)
		if (!fnmatch(c->patterns[i], ev->name, 0) || !fnmatch(c->patterns[i], ev->group, 0))
			return true;
	return false;
}

static int on_event(void *ctx, const struct ipcperf_event_info *ev)
{
	struct list_ctx *c = ctx;
	const char *reason = NULL, *fix = NULL;

	if (!wanted(c, ev))
		return 0;
	c->total++;
	switch (ev->status) {
	case IPCPERF_AVAIL_OK:
		c->ok++;
		break;
	case IPCPERF_AVAIL_MISSING:
		c->missing++;
		reason = missing_reason(ev);
		break;
	case IPCPERF_AVAIL_DENIED:
		c->denied++;
		reason = strerror(ev->err);
		fix = denied_fix(ev);
		break;
	}
	if (c->json) {
		struct json *j = c->json;

		json_object_begin(j, NULL);
		json_str(j, "name", ev->name);
		json_str(j, "group", ev->group);
		json_str(j, "status", status_word(ev->status));
		if (ev->status == IPCPERF_AVAIL_OK) {
			json_null(j, "errno");
			json_null(j, "reason");
		} else {
			json_str(j, "errno", errno_name(ev->err));
			json_str(j, "reason", reason);
		}
		if (fix)
			json_str(j, "fix", fix);
		else
			json_null(j, "fix");
		json_object_end(j);
		return 0;
	}
	fprintf(c->out, "%-40s %-13s %s", ev->name, ev->group, status_word(ev->status));
	if (ev->status == IPCPERF_AVAIL_MISSING)
		fprintf(c->out, " (%s: %s)", errno_name(ev->err), reason);
	else if (ev->status == IPCPERF_AVAIL_DENIED)
		fprintf(c->out, " (%s: %s)", errno_name(ev->err), fix);
	fputc('\n', c->out);
	return 0;
}

/* The arguments: the patterns. */
static int list_check(void *opts, int argc, char **argv, int first)
{
	struct list_opts *o = opts;

	o->patterns = argv + first;
	o->nr_patterns = argc - first;
	return 0;
}

static int list_run(const void *opts)
{
	const struct list_opts *o = opts;
	struct list_ctx c = { .patterns = o->patterns, .nr_patterns = o->nr_patterns };
	struct cli_out out;
	enum ipcperf_fdid_source fdid;
	char why[256];
	struct json j;
	int err;

	cli_setup_print(o->verbose);
	if (cli_out_open(&out, NULL, "the list") < 0)
		return EXIT_RUNTIME;
	c.out = out.f;
	if (o->json) {
		json_init(&j, c.out, true);
		c.json = &j;
		json_doc_begin(&j);
		json_array_begin(&j, "events");
	}
	err = ipcperf_list_events(on_event, &c);
	fdid = ipcperf_fd_identity_probe(why, sizeof(why));
	if (o->json) {
		json_array_end(&j);
		json_u64(&j, "supported", c.ok);
		json_u64(&j, "not_supported", c.missing);
		json_u64(&j, "denied", c.denied);
		json_object_begin(&j, "fd_identity");
		json_str(&j, "source", fdid == IPCPERF_FDID_BPF ? "bpf" : "proc");
		json_str(&j, "why", why);
		json_object_end(&j);
		json_object_end(&j);
		json_end_document(&j);
	} else {
		fprintf(c.out, "# %u events: %u supported, %u not supported, %u permission denied\n",
			c.total, c.ok, c.missing, c.denied);
		fprintf(c.out, "# fd identity: %s: %s\n", fdid == IPCPERF_FDID_BPF ? "bpf" : "proc",
			why);
	}
	if (cli_out_close(&out) < 0)
		return EXIT_RUNTIME;	/* said, with the errno */
	if (err < 0) {
		cli_err("cannot list the events: %s", strerror(-err));
		return EXIT_RUNTIME;
	}
	if (c.nr_patterns && !c.total) {
		cli_err("no event matches the pattern%s given", c.nr_patterns > 1 ? "s" : "");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

const struct cli_command cli_cmd_list = {
	.id = CMD_LIST,
	.name = "list",
	.summary = "the events and counters ipcperf can use here, and which are supported",
	.usage =
		"usage: ipcperf list [OPTIONS] [PATTERN...]\n\n"
		"List every event ipcperf can use (syscall and sched tracepoints, software and\n"
		"hardware counters), each opened here for real, one line each:\n"
		"  NAME GROUP STATUS\n"
		"where STATUS is 'supported', 'not supported (ERRNO: reason)' when this kernel or\n"
		"machine lacks it (e.g. hardware counters in a VM), or 'permission denied (ERRNO:\n"
		"fix)' when it exists but this user may not open it. PATTERNs are shell patterns\n"
		"matched against the name or the group, e.g. 'syscalls:*write*' or hardware.\n"
		"After a '#', a line counts the events by status, and the last line says\n"
		"where fd identities come from here: bpf (the kernel's records at the call:\n"
		"exact) or proc (/proc, read after the call), and why.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Exit status: 0 listed (whatever the statuses), 1 the events could not be\n"
		"listed, 2 usage error. 'ipcperf check' says what to change when events are\n"
		"missing or denied.\n",
	.check = list_check,
	.run = list_run,
};
