/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who holds an inode (holders.h): one scan of every process's fds in /proc. */
#include "config.h"
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fd/holders.h"

/* "socket:[N]" or "pipe:[N]": N; else 0. */
static uint64_t link_ino(const char *l)
{
	const char *p = !strncmp(l, "socket:[", 8) ? l + 8 : !strncmp(l, "pipe:[", 6) ? l + 6 : NULL;

	return p ? strtoull(p, NULL, 10) : 0;
}

static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* When @pid started (field 22 of /proc/PID/stat); UINT64_MAX unknown. */
static uint64_t start_of(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long t;
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after the comm: state (3) ... starttime (22) */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p, " %llu", &t) == 1 ? t : UINT64_MAX;
}

/* A process being scanned: its start and name read once, at its first inode wanted. */
struct holder {
	pid_t pid;
	bool read;
	uint64_t start;
	char comm[IPP_COMM_MAX];
};

/*
 * @h holds @e's inode: keep the two oldest holders, the ones a program
 * made the channel for (not the short-lived children it forks with its
 * fds: pids wrap, start times do not).
 */
static void note_holder(struct ipp_holders *e, struct holder *h)
{
	int i;

	if (e->pid[0] == h->pid || e->pid[1] == h->pid)
		return;
	if (!h->read) {
		h->start = start_of(h->pid);
		read_comm(h->pid, h->comm, sizeof(h->comm));
		h->read = true;
	}
	if (!e->pid[0] || h->start < e->start[0]) {
		e->pid[1] = e->pid[0];
		e->start[1] = e->start[0];
		memcpy(e->comm[1], e->comm[0], sizeof(e->comm[1]));
		i = 0;
	} else if (!e->pid[1] || h->start < e->start[1]) {
		i = 1;
	} else {
		return;
	}
	e->pid[i] = h->pid;
	e->start[i] = h->start;
	memcpy(e->comm[i], h->comm, sizeof(e->comm[i]));
}


/* The entry of @ino in @v[0..@n), sorted by ino; NULL: none. */
static struct ipp_holders *find_ino(struct ipp_holders *v, size_t n, uint64_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].ino == ino)
			return &v[mid];
		if (v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Every fd of process @pid whose inode is one of @v[0..@n). */
static void scan_pid(struct ipp_holders *v, size_t n, pid_t pid)
{
	char path[64], lnk[64];
	struct holder h = { .pid = pid };
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		ssize_t l;
		struct ipp_holders *e;

		if (d->d_name[0] == '.')
			continue;
		l = readlinkat(dirfd(dir), d->d_name, lnk, sizeof(lnk) - 1);
		if (l <= 0)
			continue;
		lnk[l] = '\0';
		e = find_ino(v, n, link_ino(lnk));
		if (e)
			note_holder(e, &h);
	}
	closedir(dir);
}

void ipp_holders__scan(struct ipp_holders *v, size_t n)
{
	struct dirent *d;
	pid_t self = getpid();
	DIR *proc = opendir("/proc");

	while (proc && (d = readdir(proc))) {
		pid_t pid = isdigit((unsigned char)d->d_name[0]) ? (pid_t)atoi(d->d_name) : 0;

		if (pid > 0 && pid != self)
			scan_pid(v, n, pid);
	}
	if (proc)
		closedir(proc);
}
