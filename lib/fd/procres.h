/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The /proc resolver of fd identity: what fd N of a process is, read from
 * /proc/PID/fd/N (and, for a socket, sock_diag), with the time it was read.
 *
 * A /proc answer read at T describes the incarnation of the fd open at T.
 * The fd table (fdtable.c) sees a call only once the merge hands it out,
 * tens of milliseconds after the call: an fd that lived less than that was
 * gone by then. So the resolver also reads ahead: the pipeline shows it
 * each syscall record as it is taken from a ring (before the merge), and it
 * reads /proc at once when a record makes or connects an fd (the exit of
 * openat, socket, accept, dup; connect) or is the first call seen on an fd.
 * It keeps those answers (failed reads too, with their time) until the fd
 * table asks: ipp_procres__take() gives the earliest answer read after the
 * incarnation could have started, which the table then holds to its usual
 * check (the incarnation must not have ended before the answer was read).
 *
 * Not pure: it reads /proc and asks the kernel about sockets. Refcounted:
 * shared by the pipeline that feeds it and every fd table that asks.
 */
#ifndef IPCPERF_PROCRES_H
#define IPCPERF_PROCRES_H

#include "fd/fdtable.h"

struct ipp_procres;
struct ipp_scdesc;

/* @return a resolver with one reference, put with ipp_procres__put(); NULL (ENOMEM). */
struct ipp_procres *ipp_procres__new(void);
/* Another reference to @r (NULL: NULL). */
struct ipp_procres *ipp_procres__get(struct ipp_procres *r);
/* Drop a reference; the last frees it. Accepts NULL. */
void ipp_procres__put(struct ipp_procres *r);

/*
 * Read @fd of @pid from /proc now into @id: IPP_ID_PROC with res_ns the
 * time of the read, or IPP_ID_UNKNOWN with read_ns and read_err saying when
 * and why not (-ENOENT not open, -ESRCH no such process, -EACCES...).
 * A pipe's capacity is asked for with pidfd_getfd. A TCP or UDP socket
 * the socket table lacks is looked up again in a new dump when the table
 * is older than the read. @return 0 or the -errno.
 */
int ipp_procres__read(struct ipp_procres *r, pid_t pid, int fd, struct ipp_ident *id);
/* The socket table is older than the connection just made: the next socket read refreshes it. */
void ipp_procres__stale_sockets(struct ipp_procres *r);
/*
 * Every fd of @pid now, each to @cb as an IPP_ID_PROC identity (with
 * @pipe_cap, a pipe's capacity asked for). @return as ipp_procfd_scan().
 */
int ipp_procres__scan(struct ipp_procres *r, pid_t pid, bool pipe_cap,
		      int (*cb)(void *ctx, int fd, const struct ipp_ident *id), void *ctx);

/*
 * Read ahead, from a record taken from a ring (any order between rings):
 * an enter (@args of the call) or an exit (@ret) of syscall @sc by thread
 * @tid of @pid at @time.
 */
void ipp_procres__on_enter(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			   pid_t tid, const uint64_t *args, unsigned int nr_args, uint64_t time);
void ipp_procres__on_exit(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			  pid_t tid, int64_t ret, uint64_t time);
/* A call whose enter and exit come as one record (the kernel paired it). */
void ipp_procres__on_call(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			  pid_t tid, const uint64_t *args, unsigned int nr_args, int64_t ret,
			  uint64_t start_ns, uint64_t end_ns);

/*
 * The answer read ahead for @fd of @pid that can describe an incarnation
 * that began no earlier than @floor_ns: the earliest successful one read at
 * or after @floor_ns (one with a socket's addresses before one without),
 * else the latest failed one. Answers read before
 * @floor_ns are dropped (no later incarnation can use them).
 * @return 0 with *@id (as ipp_procres__read() gives it); -ENOENT: none.
 */
int ipp_procres__take(struct ipp_procres *r, pid_t pid, int fd, uint64_t floor_ns,
		      struct ipp_ident *id);
/*
 * @r as the fd table's resolver (resolve.h): the earliest answer read ahead
 * that can describe the incarnation, else /proc now. A reference is taken,
 * dropped by the resolver's put. NULL: NULL.
 */
struct ipp_resolver;
struct ipp_resolver *ipp_procres__resolver(struct ipp_procres *r);
/* How many /proc reads were made ahead (for the tests and -v). */
uint64_t ipp_procres__reads_ahead(const struct ipp_procres *r);

#endif /* IPCPERF_PROCRES_H */
