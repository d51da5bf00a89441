/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Request paths (the public ipcperf_paths): each request followed from
 * process to process, over the flows' byte matching.
 *
 *   paths.c     the public object: its tap on the flows, its handlers (the
 *               waits, the connects), the threads (what each holds; its
 *               waits' returns), the flush
 *   order.c     the tap's calls and matches put back in the order they
 *               happened (a write's start, a read's end)
 *   exchange.c  connections and their messages: turn-taking cuts each
 *               direction's bytes into requests and responses; a request
 *               that starts is an exchange, hung under what its thread holds
 *               (or what its socket was connected for)
 *   turn.c      a caller's turn: its requests (a write call each), answered
 *               first in, first out; folded back into one when not answered
 *               one by one
 *   sockfd.c    a process's socket fds: the request a connect was made
 *               for, the connection an fd is on (a close may end it)
 *   tree.c      an exchange completed: when its whole tree is, the public
 *               path is made of it (times nested, self time) and handed out
 *   sched.c     each thread's scheduling (on CPU, runnable, blocked) from
 *               the session, to split a span's self time
 *   idmap.c     a map of 64-bit keys to pointers (inodes, tids, pids)
 *   pipes.c     pipe chains (src | a | b | sink): a message is a write's
 *               bytes, passed on by the next write of the stage that read it
 *   join.c      captures of several hosts: each host's events through a
 *               port (its pids, inodes and times apart), a TCP connection
 *               seen from two hosts one channel, the hosts' clocks bounded
 *   clockfit.c  a clock that drifts: the line (an offset and a rate) that
 *               fits the bounds an exchange puts on two hosts' clocks
 *   joinflows.c such a connection's flows, a direction each: its bytes and
 *               wire times, its ends
 *
 * It may call the flows' tap (flowtap.h), the stats' public getters, the
 * session's sched hook (session.h) and util.c; nothing calls into it but the flows' tap and the session.
 */
#ifndef IPCPERF_PATHS_PATHS_H
#define IPCPERF_PATHS_PATHS_H

#include <stdbool.h>
#include <stdint.h>
#include "internal.h"
#include "pipeline/pipeline.h"

struct ipp_ident;
struct ipp_join;

/*
 * Joined hosts (join.c): host k's pids and tids are k * IPP_HOST_PIDS on
 * (pids stay below 2^22, the kernel's PID_MAX_LIMIT), its inodes have k in
 * their bits from IPP_HOST_INO_SHIFT up; host 0's are its own.
 */
#define IPP_HOST_PIDS (1 << 22)
#define IPP_HOST_INO_SHIFT 48
#define IPP_HOSTS_MAX 64

/* ------------------------------------------------------------------ clockfit.c */
/* A bound on a clock's offset (v, ns) at a time (t, ns on the first host's clock). */
struct ipp_clockpt {
	int64_t t, v;
};

/* The bounds on one host's clock less another's, the tightest of each window of time. */
struct ipp_clockfit {
	uint64_t t0, width;		/* window k: [t0 + k * width, t0 + (k + 1) * width) */
	struct ipp_clockpt *up, *lo;	/* a window's least upper bound, greatest lower one */
};

/* A line that fits them: offset_ns at ref_ns, changing by drift_ppb ns a second. */
struct ipp_clockline {
	bool fits;
	int64_t offset_ns, drift_ppb;
	uint64_t ref_ns, uncertainty_ns;
};

/* The offset at @t is at most @v (@upper), or at least @v. @return 0; -ENOMEM. */
int ipp_clockfit__add(struct ipp_clockfit *f, uint64_t t, int64_t v, bool upper);
/*
 * The line that leaves the most room under the upper bounds and over the
 * lower ones; @out->fits false when none fits, or the bounds do not tell
 * the rate (no bound on one side, or all at one time). @return 0; -ENOMEM.
 */
int ipp_clockfit__line(const struct ipp_clockfit *f, struct ipp_clockline *out);
void ipp_clockfit__fini(struct ipp_clockfit *f);

/* ------------------------------------------------------------------ the model */

/* One message: the bytes one way between two turns. */
struct ipp_msg {
	uint64_t off0, off1;		/* its bytes, [off0, off1) of its direction */
	uint64_t w_start, w_end;	/* its first write's start, its last write's end */
	pid_t wpid, wtid;
	int wfd;
	uint64_t rd;			/* its bytes read so far */
	bool read;			/* its first byte was read: */
	uint64_t r_first;		/* that read's end */
	pid_t rpid, rtid;
	int rfd;
	uint64_t r_last;		/* the end of the last read that took its bytes */
};

enum ipp_drop {
	IPP_DROP_NONE = 0,
	IPP_DROP_NO_RESPONSE,
	IPP_DROP_UNTRACED,
	IPP_DROP_UNREAD,
	IPP_DROP_NO_CAUSE,
	IPP_DROP_LOST,
	IPP_DROP_PART,		/* a part of requests counted already: not counted again */
	IPP_DROP_LATE,
	IPP_DROP_PIPELINED,	/* pipelined requests whose answers cannot be told apart */
	IPP_DROP_MERGED,	/* pipes.c: a stage wrote several messages' bytes in one */
	IPP_DROP_SPLIT,		/* pipes.c: a stage wrote one message's bytes in several */
};

/* Left out for @why, unless *@drop has a reason already: the first one found stands. */
static inline void ipp_drop_once(enum ipp_drop *drop, enum ipp_drop why)
{
	if (!*drop)
		*drop = why;
}

struct ipp_conn;

/* An exchange: a request on a connection and its response. */
struct ipp_xchg {
	uint64_t id;
	enum ipcperf_fd_kind kind;
	struct ipp_msg req, resp;
	bool answered;			/* its response began */
	bool closed;			/* its response ended (the caller's next turn, the flush) */
	bool together;			/* its first byte read by a read that took an earlier one's */
	bool queued;			/* read before the answer before it: served from that answer */
	enum ipp_drop drop;		/* set: the request it belongs to is not attributed */
	struct ipp_xchg *parent;
	struct ipp_xchg **kids;
	size_t nr_kids, cap_kids;
	size_t open;			/* itself and its kids not closed yet */
	pid_t hand_tid;			/* the thread its reader handed it to (a worker); 0 none */
	uint64_t hand_at;		/* when: the wakeup of that thread by the reader */
};

/* The caller's turn on a connection: its requests in the order written (turn.c). */
struct ipp_turn {
	struct ipp_xchg **v;
	size_t n, cap;
	size_t answered;		/* v[0 .. answered) have their responses begun */
};

/* A stream connection: its ends (the caller's first) and the exchange under way. */
struct ipp_conn {
	uint64_t end[2];		/* inodes: [0] the caller's, [1] the server's; 0 not known yet */
	uint64_t woff[2], roff[2];	/* bytes written, read, from end[i] */
	enum ipcperf_fd_kind kind;
	struct ipp_xchg *cur;		/* the exchange under way, or the last one */
	struct ipp_turn turn;		/* the requests of the caller's turn, cur the latest */
	struct ipp_turn owed;		/* of turns ended, answered: their answers not read whole yet */
	size_t refs;			/* items waiting in order.c that name it */
	bool gone;			/* out of the map (closed): freed with its last item */
	/* what the accepted end read while no byte of it was matched: a client not traced */
	uint64_t read_turns;		/* its turns of reading (reads after a write of its own) */
	bool reading;			/* its last call a read */
	bool matched;			/* a byte it read was matched to a traced write */
};

/*
 * A write, a match, an end of file or a wakeup, by the moment it happened
 * (order.c); or a connect or close of a socket fd, from the session; or a
 * pipe's write, match, or message read out of sight (pipes.c).
 */
enum ipp_item_kind { IPP_IT_WRITE, IPP_IT_MATCH, IPP_IT_EOF, IPP_IT_WAKE, IPP_IT_CONNECT,
		     IPP_IT_CLOSE, IPP_IT_PWRITE, IPP_IT_PMATCH, IPP_IT_PGONE };

struct ipp_pmsg;

struct ipp_item {
	uint64_t eff;			/* a write's, connect's or close's start, a read's end */
	uint64_t seq;			/* as it came */
	enum ipp_item_kind kind;
	struct ipp_conn *c;		/* a reference (refs); NULL: a wakeup, connect, close, a pipe's */
	struct ipp_pmsg *pm;		/* a pipe's message (a reference: pipes.c); else NULL */
	int dir;			/* 0: from the caller's end; 1: from the server's */
	uint64_t off, bytes;		/* the bytes, in their direction */
	pid_t pid, tid;			/* the writer's; a match: the reader's; a wakeup: the waker's */
	pid_t woken;			/* a wakeup: the thread woken */
	int fd;				/* the writer's; a match: the reader's (-1: not known) */
	uint64_t start, end;		/* the call's; a match: the read's */
};

/* An item waiting in order.c: its moment and arrival, and its slot in ipp_order.items. */
struct ipp_okey {
	uint64_t eff, seq;
	size_t slot;
};

struct ipp_order {
	struct ipp_okey *v;		/* a heap, the earliest first: small keys, moved cheaply */
	size_t n, cap;
	struct ipp_okey *q;		/* a ring of keys in order: those that came after the rest */
	size_t qhead, qn, qcap;		/* qcap: 0 or a power of two */
	struct ipp_item *items;		/* the items, each in a slot a key names */
	size_t cap_items;
	size_t *free;			/* slots free for reuse, a stack; slots [top, cap_items) unused */
	size_t nr_free, cap_free, top;
	uint64_t seq, now, done;	/* the latest call's end; the latest moment handed on */
};

/* A thread: the request it holds, and the returns of its waits. */
struct ipp_thr {
	pid_t tid;
	pid_t pid;			/* its process, once seen; 0 before */
	uint64_t held;			/* the exchange (id) whose request it holds; 0 none */
	bool held_read;			/* it read that request itself (it may hand it off) */
	uint64_t held_at;		/* the end of the read that made it hold it */
	uint64_t *waits;		/* its waits' returns after held_at, ascending */
	size_t nr_waits, cap_waits;
	struct ipp_run { uint64_t t; enum ipp_run_state state; } *runs;	/* sched.c */
	size_t nr_runs, cap_runs;
};

struct ipcperf_paths {
	struct ipcperf_flows *fl;
	struct ipcperf_stats *st;
	struct ipp_idmap conns;		/* socket inode -> ipp_conn (both ends) */
	struct ipp_idmap thrs;		/* tid -> ipp_thr */
	struct ipp_idmap servers;	/* pid -> (void *)1: it served a request */
	struct ipp_idmap live;		/* exchange id -> ipp_xchg, until its tree is out */
	struct ipp_idmap dialed;	/* pid << 32 | fd -> exchange id: connected for it */
	struct ipp_idmap fdconn;	/* pid << 32 | fd -> ipp_conn it is on (a reference) */
	struct ipp_order order;
	struct ipp_pipes *pipes;	/* pipes.c: the pipe chains; NULL until a pipe is seen */
	struct ipp_join *join;		/* join.c: the hosts joined; NULL: one host */
	struct ipp_idmap jflows;	/* joinflows.c: writing end's joined inode -> its flow */
	uint64_t next_id;
	/* the read call being matched: its fd, known by its thread and start */
	pid_t rd_tid;
	uint64_t rd_start;
	int rd_fd;
	void (*cb)(void *ctx, const struct ipcperf_path *path);
	void *cb_ctx;
	struct ipcperf_paths_stats counts;
	bool sched_seen;		/* the session hands the threads' scheduling */
	bool sched_short;		/* some of it cannot be seen (per task), or was not kept */
	/* tree.c's scratch: the path handed out */
	struct ipcperf_path_hop *hops;
	size_t cap_hops;
	char (*comms)[IPP_COMM_MAX];
	size_t cap_comms;
};

/* paths.c */
struct ipp_thr *ipp_paths__thr(struct ipcperf_paths *p, pid_t tid);
/* Records were lost: the requests under way may miss a hop or a byte. */
void ipp_paths__lost(struct ipcperf_paths *p);
/* Whether a wait of @t returned after @from and before @to. */
bool ipp_paths__thr_waited(const struct ipp_thr *t, uint64_t from, uint64_t to);
/* @t holds exchange @x's request since @at. */
/* @x becomes a call of @parent: @return 0, or -1 out of memory. */
int ipp_paths__add_kid(struct ipp_xchg *parent, struct ipp_xchg *x);
void ipp_paths__thr_hold(struct ipp_thr *t, const struct ipp_xchg *x, uint64_t at);

/* order.c: take @it (its conn referenced here) at @now (the latest call's end). */
void ipp_order__push(struct ipcperf_paths *p, struct ipp_item *it, uint64_t now);
/* The calls have come up to @now: hand on what is old enough. */
void ipp_order__tick(struct ipcperf_paths *p, uint64_t now);
void ipp_order__flush(struct ipcperf_paths *p);
void ipp_order__fini(struct ipcperf_paths *p);

/* exchange.c: the flows' tap */
void ipp_paths__on_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch,
			uint64_t key, bool writing);
void ipp_paths__on_match(void *ctx, uint64_t key, const struct ipcperf_flow_match *m);
/* The request @it's thread holds, if it may still start calls for it; else NULL. */
struct ipp_xchg *ipp_paths__held(struct ipcperf_paths *p, const struct ipp_item *it);
/* The exchange under way on @c ends, once answered, and @c with it (an end of file). */
void ipp_paths__end_conn(struct ipcperf_paths *p, struct ipp_conn *c);
/* Thread @waker of process @pid began waking thread @woken at @time: a hand-off, maybe. */
void ipp_paths__on_waking(struct ipcperf_paths *p, uint64_t time, pid_t pid, pid_t waker,
			  pid_t woken);
/* Close every exchange under way (the flush). */
void ipp_paths__close_all(struct ipcperf_paths *p);
/* An item of order.c, in the order of the moments. */
void ipp_paths__process(struct ipcperf_paths *p, const struct ipp_item *it);
/* An item of @c (NULL: none) came too late: the exchange under way there is left out. */
void ipp_paths__late(struct ipcperf_paths *p, struct ipp_conn *c);
/* An item lets go of @c (NULL: none): the last one frees it once it is gone. */
void ipp_paths__put_conn(struct ipcperf_paths *p, struct ipp_conn *c);
void ipp_paths__free_conns(struct ipcperf_paths *p);

/* turn.c */
/* @x is a request of @c's caller's turn, after those before it. @return 0; -ENOMEM. */
int ipp_turn__add(struct ipp_conn *c, struct ipp_xchg *x);
/* The exchange of @c's turn whose request (@dir 0) or response (1) holds byte @off; NULL none. */
struct ipp_xchg *ipp_turn__of(const struct ipp_conn *c, int dir, uint64_t off);
/* @t holds a request whose first byte the read @it took too (the first of several read at once). */
bool ipp_turn__read_with(struct ipcperf_paths *p, const struct ipp_thr *t, const struct ipp_item *it);
/* The oldest request of @c's turn not answered yet; NULL none. */
struct ipp_xchg *ipp_turn__next(const struct ipp_conn *c);
/*
 * The server's write @it on @c: the response of the oldest request not
 * answered, or more of the response under way. @return the exchange whose
 * response it begins; NULL when it goes on with one (or answers nothing).
 */
struct ipp_xchg *ipp_turn__answer(struct ipcperf_paths *p, struct ipp_conn *c,
				  const struct ipp_item *it);
/*
 * @c's turn ends: its exchanges close, but (when @carry: the caller's next
 * turn begins; not at the end of the stream or the flush) the requests it
 * has not answered nor read yet, which go on into the next turn.
 */
void ipp_turn__end(struct ipcperf_paths *p, struct ipp_conn *c, bool carry);
/* A read took bytes of @x's response: an exchange owed its answer closes once it has it all. */
void ipp_turn__took(struct ipcperf_paths *p, struct ipp_conn *c, struct ipp_xchg *x);
void ipp_turn__fini(struct ipp_conn *c);
/* exchange.c's: message @m begins with, goes on with, the write @it. */
void ipp_paths__msg_start(struct ipp_msg *m, const struct ipp_item *it);
void ipp_paths__msg_extend(struct ipp_msg *m, const struct ipp_item *it);

/* sockfd.c */
/* A connect that succeeded or is under way (EINPROGRESS), straight from the session. */
void ipp_paths__on_connect(struct ipcperf_paths *p, const struct ipcperf_syscall *ev);
/* A close of a single fd that succeeded, straight from the session. */
void ipp_paths__on_close(struct ipcperf_paths *p, const struct ipcperf_syscall *ev);
/* A connect's or a close's item, in the order of the moments. */
void ipp_sockfd__process(struct ipcperf_paths *p, const struct ipp_item *it);
/* An item of a connection, in that order: its fd (if known) is on it->c. */
void ipp_sockfd__saw(struct ipcperf_paths *p, const struct ipp_item *it);
/* The request @it's fd was connected for, unanswered (the connect is used up); else NULL. */
struct ipp_xchg *ipp_sockfd__dialed_for(struct ipcperf_paths *p, const struct ipp_item *it);
void ipp_sockfd__fini(struct ipcperf_paths *p);
/* sched.c: the session's scheduling of the threads (session.h), taken from the start */
void ipp_paths__on_sched(void *ctx, const struct ipp_sched_ev *ev);
void ipp_paths__take_sched(struct ipcperf_paths *p, struct ipcperf_session *s);
/* Whether the threads' scheduling is all there: self times can be split. */
bool ipp_paths__split_ok(const struct ipcperf_paths *p);
/*
 * Add @t's time in [@a, @b) to @out by state (on CPU, runnable, blocked:
 * IPP_RUN_ON, _RUNQ, _BLOCKED), its state at @a being @at_a. @t may be NULL.
 */
void ipp_paths__thr_split(const struct ipp_thr *t, uint64_t a, uint64_t b, enum ipp_run_state at_a,
		    uint64_t out[3]);

/* tree.c */
/* @x's response ended: close it, and hand out its tree once all of it is closed. */
void ipp_paths__close_xchg(struct ipcperf_paths *p, struct ipp_xchg *x);
void ipp_paths__free_tree(struct ipcperf_paths *p, struct ipp_xchg *x);
/* A request left out for @d (not IPP_DROP_PART: counted already) is counted by its reason. */
void ipp_paths__count_drop(struct ipcperf_paths *p, enum ipp_drop d);

/* pipes.c: the chains of a pipeline's stages, over the same tap and order */
struct ipcperf_flow_match;
/* A call on a pipe: @return true (taken here), false (not a pipe's). */
bool ipp_pipes__on_call(struct ipcperf_paths *p, const struct ipcperf_syscall *ev,
			const struct ipp_ident *ch, bool writing);
/* A match of flow @key: @return true when @key is a pipe's. */
bool ipp_pipes__on_match(struct ipcperf_paths *p, uint64_t key, const struct ipcperf_flow_match *m);
/* An item of order.c with a pipe's message (IPP_IT_PWRITE, _PMATCH, _PGONE: read out of sight). */
void ipp_pipes__process(struct ipcperf_paths *p, const struct ipp_item *it);
void ipp_pipes__late(struct ipcperf_paths *p, struct ipp_pmsg *m);
/* An item takes, and lets go of, its message (NULL: none). */
void ipp_pipes__hold(struct ipp_pmsg *m);
void ipp_pipes__put(struct ipp_pmsg *m);
void ipp_pipes__lost(struct ipcperf_paths *p);
/* The earliest moment a chain's stage may still ask about: @from or before. */
uint64_t ipp_pipes__needed_from(const struct ipcperf_paths *p, uint64_t from);
/* After order.c's flush: what the threads hold ends, unread messages are counted. */
void ipp_pipes__flush(struct ipcperf_paths *p);
void ipp_pipes__free(struct ipcperf_paths *p);

/* join.c */
/* Return @pid (a pid or tid of the paths) as its own host knows it, and that host in *@host. */
pid_t ipp_paths__pid_on(const struct ipcperf_paths *p, pid_t pid, unsigned int *host);
/* Write the name of process @pid (of the paths) into @buf (IPP_COMM_MAX); "" when not known. */
void ipp_paths__comm(const struct ipcperf_paths *p, pid_t pid, char *buf);
/* Give a path about to be handed out its hosts' own pids and tids, and name its hosts. */
void ipp_paths__unmap(const struct ipcperf_paths *p, struct ipcperf_path *path,
		      struct ipcperf_path_hop *hops);
/* At the flush, count the ends still waiting for their peer. */
void ipp_join__flush(struct ipcperf_paths *p);
void ipp_join__free(struct ipcperf_paths *p);

/* joinflows.c: the flows of the connections joined across hosts */
/*
 * @m, bytes end @wkey wrote that its peer @rkey read on another host (their
 * joined inodes; @addr: @wkey's "local -> remote"; @wfd, @rfd: their fds),
 * into the flow of that direction.
 */
void ipp_joinflows__add(struct ipcperf_paths *p, uint64_t wkey, uint64_t rkey, const char *addr,
			int wfd, int rfd, const struct ipcperf_flow_match *m);
void ipp_joinflows__free(struct ipcperf_paths *p);

#endif /* IPCPERF_PATHS_PATHS_H */
