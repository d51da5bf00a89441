/* stat -I's compact text form: one line per interval and process. */
#include "config.h"
#include <inttypes.h>
#include <string.h>
#include "intervalout.h"
#include "output.h"

/* The widest line kept before it is cut to the terminal. */
#define LINE_MAX_LEN 512

void interval_sums_of(const struct proc_snap *p, struct interval_sums *s)
{
	s->ops = p->read_ops + p->write_ops;
	s->in = p->read_bytes;
	s->out = p->write_bytes;
	s->cs = p->voluntary + p->involuntary;
}

/*
 * Write the busiest fd of @p (the first by --sort), such as "7 tcp
 * 127.0.0.1:6379 -> ...", or "-".
 */
static void busiest(char *buf, size_t len, const struct proc_snap *p)
{
	const struct fd_snap *f = p->nr_fds ? &p->fds[0] : NULL;
	char name[320];

	if (!f || !fd_active(f)) {
		snprintf(buf, len, "-");
		return;
	}
	if (f->folded) {	/* closed connections folded into one row */
		snprintf(buf, len, "* %s %s (%" PRIu64 " closed conns)", ipcperf_fd_kind_name(f->kind),
			 cli_esc(name, sizeof(name), *f->endpoint ? f->endpoint : "unix"), f->conns);
		return;
	}
	snprintf(buf, len, "%d %s %s", f->fd, ipcperf_fd_kind_name(f->kind),
		 cli_esc(name, sizeof(name), f->detail && *f->detail ? f->detail : f->object));
}

/* Write @line to c->f, cut to the terminal's width (but not when writing to a file or a pipe). */
static void put_cut(struct intervalout *c, char *line)
{
	int w = cli_term_width(c->f);

	if (w > 0 && (int)strlen(line) > w)
		line[w] = '\0';
	fprintf(c->f, "%s\n", line);
}

static void put_header(struct intervalout *c)
{
	char line[LINE_MAX_LEN];

	snprintf(line, sizeof(line), "#%9s  %-18s %8s %10s %10s %6s %7s  %s", "time", "process",
		 "ops", "read B", "write B", "cs", "MB/s", "busiest fd");
	put_cut(c, line);
}

static void put_proc(struct intervalout *c, const struct snap *sn, const struct proc_snap *p)
{
	char line[LINE_MAX_LEN], who[CLI_ESC_LEN(CLI_COMM_LEN) + CLI_INT_LEN + 24], fd[320];
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];
	struct interval_sums s;
	double mbs;

	interval_sums_of(p, &s);
	mbs = sn->duration_ns ? (double)(s.in + s.out) / ((double)sn->duration_ns / 1e9) / 1e6 : 0;
	if (p->folded)	/* the exited processes of one comm folded in this interval */
		snprintf(who, sizeof(who), "%s[%" PRIu64 " exited]",
			 p->comm && *p->comm ? cli_esc(comm, sizeof(comm), p->comm) : "?", p->folded);
	else
		snprintf(who, sizeof(who), "%s[%d]",
			 p->comm && *p->comm ? cli_esc(comm, sizeof(comm), p->comm) : "?", (int)p->pid);
	busiest(fd, sizeof(fd), p);
	snprintf(line, sizeof(line),
		 "%10.3f  %-18s %8" PRIu64 " %10" PRIu64 " %10" PRIu64 " %6" PRIu64 " %7.2f  %s",
		 sn->time_ns / 1e9, who, s.ops, s.in, s.out, s.cs, mbs, fd);
	put_cut(c, line);
}

void intervalout_print(struct intervalout *c, const struct snap *sn)
{
	for (size_t i = 0; i < sn->nr_procs; i++) {
		if (c->since_header % INTERVALOUT_HEADER_EVERY == 0) {
			put_header(c);
			c->since_header = 0;
		}
		put_proc(c, sn, &sn->procs[i]);
		c->since_header++;
	}
	fflush(c->f);
}
