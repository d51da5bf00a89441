/*
 * Renderers of request paths: the requests gathered by shape (the names of
 * their processes along the tree), the text report (a block per shape) and
 * the JSON "shapes" and "requests" arrays of doc/json.md.
 */
#ifndef IPCPERF_CLI_PATHSOUT_H
#define IPCPERF_CLI_PATHSOUT_H
#include <stdbool.h>
#include <stdio.h>
#include "ipcperf/ipcperf.h"
#include "output.h"

struct pathsout;

/* @return a collection freed with pathsout_delete(); NULL (ENOMEM). @keep: each request's tree too. */
struct pathsout *pathsout_new(bool keep);
void pathsout_delete(struct pathsout *po);
/* The callback of ipcperf_paths__on_path(): @ctx is the collection. */
void pathsout_add(void *ctx, const struct ipcperf_path *path);
/* The requests kept (pathsout_new(true)), in the order they completed. */
size_t pathsout_nr_requests(const struct pathsout *po);
const struct ipcperf_path *pathsout_request(const struct pathsout *po, size_t i);
/* Out of memory while adding: the report would be short. */
bool pathsout_failed(const struct pathsout *po);

/* The text report, fitted to 100 columns; @what: the targets, said. */
void pathsout_text(FILE *f, const struct pathsout *po, const char *what,
		   const struct ipcperf_paths_stats *ps, const struct cli_summary *sum);
/*
 * A host whose events the requests are of: where its capture (or the live
 * session) was made, and, when captures of several hosts are joined, its
 * clock against the first host's (doc/accuracy.md).
 */
struct paths_host {
	struct ipcperf_capture_info ci;
	bool joined;			/* its clock was placed against the first host's */
	int64_t offset_ns;		/* its clock less the first host's */
	uint64_t uncertainty_ns;	/* the true offset is within offset_ns +- this */
	bool drifting;			/* no one offset fits: offset_ns is at ref_ns, */
	int64_t drift_ppb;		/* changing by this many ns a second */
	uint64_t ref_ns;		/* on the first host's clock */
};

struct json;
/*
 * A joined host's clock against the first host's, as JSON members:
 * offset_ns, uncertainty_ns, drift_ppb (null: one offset) and drift_ref_ns.
 */
void pathsout_json_clock(struct json *j, const struct paths_host *h);

/* Captures joined: @hosts (which must outlive @po) name the hops' hosts in shapes and JSON. */
void pathsout_set_hosts(struct pathsout *po, const struct paths_host *hosts, size_t n);
/* The name of host @host when captures are joined; NULL for one host. */
const char *pathsout_host(const struct pathsout *po, unsigned int host);

/*
 * The JSON document (schema 1): the hosts, shapes, the unattributed, and
 * with @requests every request.
 */
void pathsout_json(FILE *f, const struct pathsout *po, const struct ipcperf_paths_stats *ps,
		   const struct cli_summary *sum, bool requests, const struct paths_host *hosts,
		   size_t nr_hosts);

/*
 * One span of request @req (the OTLP and timeline writers'): hop @hop's
 * server span, or (!@server) the client span its caller made for it.
 */
struct paths_span {
	const struct ipcperf_path *p;
	size_t req, hop;
	bool server;
	unsigned int host;		/* its process's (captures joined; else 0) */
	pid_t pid, tid;
	const char *comm;		/* its process's */
	int fd;
	uint64_t start_ns, end_ns;
	unsigned lane;			/* the timeline's track of its thread: 0, the first */
};
void paths_span_of(struct paths_span *s, const struct ipcperf_path *p, size_t req, size_t hop,
		   bool server);

#endif /* IPCPERF_CLI_PATHSOUT_H */
