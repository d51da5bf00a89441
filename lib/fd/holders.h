/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who holds an inode: one pass over /proc/PID/fd of every process but this
 * one, for the inodes asked about (a socket's or a pipe's). The stats' peer
 * walk (stats/peers.c) asks it for the peers the fd table does not know.
 * Not pure: it reads /proc, as procres.c does beside it.
 */
#ifndef IPCPERF_HOLDERS_H
#define IPCPERF_HOLDERS_H

#include "internal.h"

/* An inode and its two oldest holders (pid 0: none found). */
struct ipp_holders {
	uint64_t ino;
	pid_t pid[2];
	uint64_t start[2];	/* their start times (clock ticks after boot) */
	char comm[2][IPP_COMM_MAX];
};

/*
 * Fill in the holders of @v[0..@n) (sorted by ino, distinct, holders
 * zeroed): the two oldest processes, by their start times, that hold each
 * inode in an fd, the ones a program made the channel for (not the
 * short-lived children it forks with its fds: pids wrap, start times do
 * not). An inode no process holds, or /proc unreadable, leaves pid 0.
 */
void ipp_holders__scan(struct ipp_holders *v, size_t n);

#endif /* IPCPERF_HOLDERS_H */
