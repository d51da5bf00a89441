/* The flow graph of ipcperf flows --dot, for Graphviz (flowout-dot.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flowout-dot.h"
#include "util.h"

/* ------------------------------------------------------------------ DOT */

/*
 * A DOT string literal's content: " and \ escaped; anything outside printable
 * ASCII becomes '?' (a comm is arbitrary bytes, and dot warns on bad UTF-8).
 */
static void dot_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', f);
	}
}

static void dot_edge(FILE *f, const char *from, const char *to, const struct ipcperf_flow *fw,
		     uint64_t duration_ns)
{
	char b[CLI_NUM_LEN], w[CLI_NUM_LEN];

	fprintf(f, "  %s -> %s [label=\"", from, to);
	dot_escape(f, fw->object);
	fprintf(f, "\\n%s", fmt_bytes(b, sizeof(b), fw->bytes_read));
	if (duration_ns)
		fprintf(f, ", %.2f MB/s", (double)fw->bytes_read / ((double)duration_ns / 1e9) / 1e6);
	if (fw->matches)
		fprintf(f, "\\nwire p99 %s", fmt_ns(w, sizeof(w), fw->wire_ns.p99));
	fprintf(f, "\\nblocked: writer %s", fmt_ns(b, sizeof(b), fw->writer_blocked_ns));
	fprintf(f, ", reader %s", fmt_ns(w, sizeof(w), fw->reader_blocked_ns));
	fprintf(f, "\\n%s\"", ipcperf_verdict_name(fw->verdict));
	switch (fw->verdict) {
	case IPCPERF_VERDICT_BACKPRESSURE:
		fprintf(f, ", color=\"red\", fontcolor=\"red\", style=\"bold\", penwidth=3");
		break;
	case IPCPERF_VERDICT_CONSUMER_STARVED:
		fprintf(f, ", color=\"blue\", fontcolor=\"blue\", style=\"dashed\", penwidth=1.5");
		break;
	case IPCPERF_VERDICT_IDLE:
		fprintf(f, ", color=\"grey70\", fontcolor=\"grey50\", style=\"dotted\"");
		break;
	default:
		fprintf(f, ", color=\"grey50\", fontcolor=\"grey30\"");
		break;
	}
	fprintf(f, "];\n");
}

static bool is_neck(const struct flowout *fo, pid_t pid)
{
	for (size_t i = 0; i < fo->nr_necks; i++)
		if (fo->necks[i].pid == pid)
			return true;
	return false;
}

/* A process's node; a bottleneck's filled and saying so. */
static void dot_node(FILE *f, const struct flowout *fo, pid_t pid)
{
	bool neck = is_neck(fo, pid);

	fprintf(f, "  p%d [label=\"", (int)pid);
	dot_escape(f, flowout_comm(fo, pid));
	fprintf(f, "\\n%d%s\"", (int)pid, neck ? "\\nbottleneck" : "");
	if (neck)
		fprintf(f, ", style=\"rounded,filled,bold\", fillcolor=\"#ffd6d6\", color=\"red\"");
	fprintf(f, "];\n");
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

void flowout_dot(FILE *f, const struct flowout *fo, uint64_t duration_ns)
{
	pid_t *pids;
	size_t n = 0, cap = 0;

	fprintf(f, "digraph ipcperf_flows {\n"
		   "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=12, labelloc=t,"
		   " label=\"ipcperf flows\"];\n"
		   "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=9];\n");
	/* Nodes: every process that wrote or read a flow, once. */
	for (size_t i = 0; i < fo->nr_flows; i++)
		cap += fo->flows[i].c.f.nr_writers + fo->flows[i].c.f.nr_readers;
	pids = malloc((cap + 1) * sizeof(*pids));
	for (size_t i = 0; pids && i < fo->nr_flows; i++) {
		const struct ipcperf_flow *fw = &fo->flows[i].c.f;

		memcpy(pids + n, fw->writers, fw->nr_writers * sizeof(*pids));
		n += fw->nr_writers;
		memcpy(pids + n, fw->readers, fw->nr_readers * sizeof(*pids));
		n += fw->nr_readers;
	}
	if (pids)
		qsort(pids, n, sizeof(*pids), cmp_pid);
	for (size_t i = 0; pids && i < n; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		dot_node(f, fo, pids[i]);
	}
	free(pids);
	for (size_t i = 0; i < fo->nr_flows; i++) {
		const struct ipcperf_flow *fw = &fo->flows[i].c.f;
		char from[32], to[32];

		/* A side nobody traced (written before the capture, or by another process). */
		if (!fw->nr_writers)
			fprintf(f, "  w%zu [label=\"not traced\", style=\"rounded,dashed\", "
				   "fontcolor=\"grey40\"];\n", i);
		if (!fw->nr_readers)
			fprintf(f, "  r%zu [label=\"not traced\", style=\"rounded,dashed\", "
				   "fontcolor=\"grey40\"];\n", i);
		for (size_t a = 0; a < (fw->nr_writers ? fw->nr_writers : 1); a++) {
			if (fw->nr_writers)
				snprintf(from, sizeof(from), "p%d", (int)fw->writers[a]);
			else
				snprintf(from, sizeof(from), "w%zu", i);
			for (size_t b = 0; b < (fw->nr_readers ? fw->nr_readers : 1); b++) {
				if (fw->nr_readers)
					snprintf(to, sizeof(to), "p%d", (int)fw->readers[b]);
				else
					snprintf(to, sizeof(to), "r%zu", i);
				dot_edge(f, from, to, fw, duration_ns);
			}
		}
	}
	fprintf(f, "  legend [shape=plaintext, fontsize=8, fontcolor=\"grey30\", label=\""
		   "red, bold: backpressure (writers wait on a full channel)\\l"
		   "blue, dashed: consumer-starved (readers wait on an empty one)\\l"
		   "grey: balanced; dotted: idle; filled: the bottleneck\\l\"];\n"
		   "}\n");
}
