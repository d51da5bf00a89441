/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The identity log (identlog.c, kept by capture/record.c): every fd identity the stats module read from
 * /proc while a session was recorded, kept in the capture's ipcperf section
 * (record.h). A replay takes the identities back from the log instead of
 * /proc, in the order they were asked for: the questions are the same
 * because the events are.
 */
#ifndef IPCPERF_IDENTLOG_H
#define IPCPERF_IDENTLOG_H

#include "internal.h"

enum ipp_idq {
	IPP_IDQ_RESOLVE = 1,	/* resolve(): one fd, looked up alone */
	IPP_IDQ_SCAN = 2,	/* one fd of a scan of a process's fds (attach, exec) */
	IPP_IDQ_SCAN_END = 4,	/* end of that scan (fd -1) */
	IPP_IDQ_COMM = 8,	/* a process's name from /proc (object holds it; fd -1) */
};

/* One answer from /proc, as the stats module used it (fixed layout: stored as is). */
struct ipp_ident_ans {
	uint32_t what;		/* enum ipp_idq */
	int32_t pid, fd;
	int32_t ok;		/* 1: resolved; 0: could not be (unknown) */
	uint64_t res_ns;	/* when /proc was read (CLOCK_MONOTONIC) */
	uint32_t kind;		/* enum ipcperf_fd_kind */
	int32_t sock_type;
	uint64_t ino, peer_ino;
	int64_t capacity;
	int32_t cap_default, cloexec;
	char object[IPP_OBJECT_MAX];
	char detail[IPP_DETAIL_MAX];
};

struct ipp_identlog;
struct ipp_identlog *ipp_identlog__new(void);
void ipp_identlog__delete(struct ipp_identlog *l);
/* Every answer added, in the order added, *@n of them: valid until the next add. */
const struct ipp_ident_ans *ipp_identlog__answers(const struct ipp_identlog *l, size_t *n);
/* Append (recording). @return 0 or -ENOMEM (the log then stays short: answers go unknown). */
int ipp_identlog__add(struct ipp_identlog *l, const struct ipp_ident_ans *a);
/*
 * Replay: the first answer not yet taken whose what is in @what_mask, for
 * @pid and (unless @fd is -1) @fd. @return 0 with @out; -ENOENT.
 */
int ipp_identlog__take(struct ipp_identlog *l, unsigned int what_mask, pid_t pid, int fd,
		       struct ipp_ident_ans *out);

/* Replay: the first answer not yet taken whose what is in @what_mask, any pid. */
int ipp_identlog__take_any(struct ipp_identlog *l, unsigned int what_mask,
			   struct ipp_ident_ans *out);

#endif /* IPCPERF_IDENTLOG_H */
