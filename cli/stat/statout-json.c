/* ipcperf stat --json: a snapshot as one JSON document (schema 1, doc/json.md). */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flowout.h"
#include "output.h"
#include "statout.h"

/* ------------------------------------------------------------------ JSON */

static void json_io(struct json *j, const char *key, const struct ipcperf_io *io,
		    const struct ipcperf_moved *mv)
{
	const struct json_u64_row calls[] = {
		{ "ops", io->ops }, { "bytes", io->bytes }, { "errors", io->errors }, { "time_ns", io->time_ns },
	};
	const struct json_u64_row more[] = {
		{ "msgs", io->msgs }, { "zero_copy_ops", mv->ops }, { "zero_copy_bytes", mv->bytes },
		{ "again", io->again },
	};

	json_object_begin(j, key);
	json_u64_rows(j, calls, JSON_NROWS(calls));
	json_lat(j, "lat_ns", &io->lat_ns);
	json_u64_rows(j, more, JSON_NROWS(more));
	json_object_end(j);
}

/*
 * Write the counters as schema 1 has them: a number, or null when not
 * supported, not counted, or none.
 */
static void json_counters(struct json *j, const char *key, const struct cnt_set *set)
{
	json_object_begin(j, key);
	for (size_t i = 0; i < STATOUT_NR_CNT; i++) {
		const struct ipcperf_counter_value *v = set && set->valid ? &set->v[statout_cnt_info[i].id]
									   : NULL;

		if (v && v->status == IPCPERF_CNT_OK)
			json_u64(j, statout_cnt_info[i].json, v->value);
		else
			json_null(j, statout_cnt_info[i].json);
	}
	json_object_end(j);
}

/* Write why a counter is null, for readers who need to tell "not supported" from "not counted". */
static void json_counter_status(struct json *j, const char *key, const struct cnt_set *set)
{
	json_object_begin(j, key);
	for (size_t i = 0; i < STATOUT_NR_CNT; i++) {
		const struct ipcperf_counter_value *v = &set->v[statout_cnt_info[i].id];

		json_str(j, statout_cnt_info[i].json, v->status == IPCPERF_CNT_OK ? "ok"
					      : v->status == IPCPERF_CNT_NOT_SUPPORTED ? "not supported"
					      : v->status == IPCPERF_CNT_NOT_REQUESTED ? "not requested"
					      : "not counted");
	}
	json_object_end(j);
}

/* Write the process at the other end: its pid and name, or null when not known. */
static void json_peer(struct json *j, const struct fd_snap *fd)
{
	if (fd->peer_pid) {
		json_i64(j, "peer_pid", fd->peer_pid);
		json_str(j, "peer_comm", fd->peer_comm);
	} else {
		json_null(j, "peer_pid");
		json_null(j, "peer_comm");
	}
}

static void json_fd(struct json *j, const struct fd_snap *fd)
{
	json_object_begin(j, NULL);
	json_i64(j, "fd", fd->fd);
	json_str(j, "object", fd->object);
	json_str(j, "kind", ipcperf_fd_kind_name(fd->kind));
	json_str(j, "detail", fd->detail);
	json_io(j, "read", &fd->read, &fd->read_moved);
	json_io(j, "write", &fd->write, &fd->write_moved);
	json_peer(j, fd);
	if (fd->folded)
		json_u64(j, "folded_conns", fd->conns);
	json_object_end(j);
}

static const char *const group_roles[] = {
	[IPCPERF_GROUP_ONE] = "fd", [IPCPERF_GROUP_SERVED] = "served",
	[IPCPERF_GROUP_CLIENT] = "client", [IPCPERF_GROUP_UNIX] = "unix",
};

/* How a group was made: by what, on which endpoint, of how many connections, how many by ports. */
static void json_grouped(struct json *j, const struct fd_snap *g)
{
	json_str(j, "grouped", (size_t)g->role < sizeof(group_roles) / sizeof(group_roles[0]) &&
			       group_roles[g->role] ? group_roles[g->role] : "fd");
	json_str(j, "endpoint", g->endpoint);
	json_u64(j, "conns", g->conns);
	json_u64(j, "by_ports", g->by_ports);
}

static void json_group(struct json *j, const struct fd_snap *g)
{
	json_object_begin(j, NULL);
	json_str(j, "kind", ipcperf_fd_kind_name(g->kind));
	json_grouped(j, g);
	json_i64(j, "fd", g->fd);
	json_str(j, "object", g->object);
	json_str(j, "detail", g->detail);
	json_peer(j, g);
	json_io(j, "read", &g->read, &g->read_moved);
	json_io(j, "write", &g->write, &g->write_moved);
	json_object_end(j);
}

/* The array @key of @n rows, each by @write, then the rows left out (@omitted_key), if any. */
static void json_fd_rows(struct json *j, const char *key, const struct fd_snap *v, size_t n,
			 void (*write)(struct json *j, const struct fd_snap *row),
			 const char *omitted_key, size_t omitted)
{
	json_array_begin(j, key);
	for (size_t k = 0; k < n; k++)
		write(j, &v[k]);
	json_array_end(j);
	if (omitted)
		json_u64(j, omitted_key, omitted);
}

static void json_proc(struct statout *c, struct json *j, const struct snap *sn,
		      const struct proc_snap *p)
{
	json_object_begin(j, NULL);
	json_i64(j, "pid", p->pid);
	json_str(j, "comm", p->comm);
	json_bool(j, "exited", p->exited);
	if (p->folded)
		json_u64(j, "folded_processes", p->folded);
	json_u64(j, "threads", p->threads);
	json_object_begin(j, "context_switches");
	json_u64(j, "voluntary", p->voluntary);
	json_u64(j, "involuntary", p->involuntary);
	json_object_end(j);
	json_u64(j, "cpu_migrations", p->migrations);
	json_u64(j, "wakeups", p->wakeups);
	json_u64(j, "io_uring_unaccounted", p->uring_unaccounted);
	if (p->left_ns)
		json_u64(j, "left_after_ns", snap_left_after_ns(sn, p));
	json_counters(j, "counters", p->cnt);
	if (p->cnt && p->cnt->valid)
		json_counter_status(j, "counters_status", p->cnt);
	json_fd_rows(j, "fds", p->fds, p->nr_fds, json_fd, "fds_omitted", p->fds_omitted);
	json_fd_rows(j, "groups", p->groups, p->nr_groups, json_group, "groups_omitted",
		     p->groups_omitted);
	sc_json_rows(j, "syscalls", p->scs.v, p->scs.n, c->o->per_thread, false);
	json_object_end(j);
}

void statout_json(struct statout *c, const struct snap *sn)
{
	const struct cli_summary sum = {
		.duration_ns = sn->duration_ns, .lost = sn->lost, .unpaired = sn->unpaired,
		.records = sn->records, .fd_identity = sn->fd_identity,
		.syscall_records = sn->syscall_records,
		.sched_records = sn->sched_records,
		.exit_status = sn->exit_status,
	};
	struct json j;

	/* With -I, write one document per line (NDJSON). */
	json_init(&j, c->f, !c->o->interval_ms);
	json_doc_begin(&j);
	if (c->o->interval_ms) {
		json_bool(&j, "interval", sn->is_interval);
		json_u64(&j, "time_ns", sn->time_ns);
	}
	json_doc_summary(&j, &sum);
	json_array_begin(&j, "processes");
	for (size_t i = 0; i < sn->nr_procs; i++)
		json_proc(c, &j, sn, &sn->procs[i]);
	json_array_end(&j);
	if (c->o->sc_total)
		sc_json_rows(&j, "syscalls_total", sn->total_scs.v, sn->total_scs.n, false, true);
	/*
	 * The counters over all targets (with -a, the whole system); each
	 * process's own are under it.
	 */
	json_counters(&j, "counters", sn->all);
	if (sn->all && sn->all->valid)
		json_counter_status(&j, "counters_status", sn->all);
	if (sn->flows) {
		flowout_json(&j, sn->flows);
	} else {
		/*
		 * The key is always there, as the contract says; flows are
		 * computed only with --flows.
		 */
		json_array_begin(&j, "flows");
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end_document(&j);
}
