/*
 * Tests of the fd identity record decoder (lib/bpf/fdid-rec.c): raw bytes
 * as the BPF program writes them, no kernel, no root. The first case spells
 * a record out byte by byte, so that a change of the layout without a new
 * version fails here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <check.h>

#include "fdid-rec.h"
#include "fd/procfd.h"
#include "call-rec.h"
#include "sched-rec.h"
#include "sum-rec.h"
#include "hist.h"
#include "task-rec.h"
#include "args-rec.h"
#include "pipeline/callmem.h"

/* A pipe2() read end, fd 3 of pid 100: 129 bytes, padded to 136 as the ring pads RAW data. */
static const unsigned char pipe_rec[136] = {
	0x01, 0x00, 0x81, 0x00, 0x01, 0x03, 0x01, 0x00,	/* version 1, size 129, NEW, PIPE, CLOEXEC */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x03, 0x00, 0x00, 0x00, 0x25, 0x01, 0x00, 0x00,	/* fd 3, nr 293 */
	0, 0, 0, 0, 0, 0, 0, 0,				/* ret 0 */
	0x0e, 0, 0, 0, 0, 0, 0, 0,			/* dev 0:14 */
	0x39, 0x30, 0, 0, 0, 0, 0, 0,			/* ino 12345 */
	0x80, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* mode 010600, f_flags O_RDONLY */
	0, 0, 0, 0, 0, 0, 0, 0,				/* peer_ino */
	0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0,		/* capacity 65536, rcvbuf */
	[128] = 0,					/* path "" */
};

START_TEST(pipe_bytes)
{
	struct ipp_fdid_rec r;
	struct ipp_fdid id;

	ck_assert_int_eq(ipp_fdid_rec__parse(pipe_rec, sizeof(pipe_rec), &r), 0);
	ck_assert_uint_eq(r.what, IPP_FDID_NEW);
	ck_assert_uint_eq(r.kind, IPP_FDID_PIPE);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.fd, 3);
	ck_assert_int_eq(r.nr, 293);
	ck_assert_uint_eq(r.ino, 12345);
	ck_assert_uint_eq(r.capacity, 65536);
	ck_assert_uint_eq(r.flags, IPP_FDID_F_CLOEXEC);
	ck_assert_str_eq(r.path, "");
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_PIPE);
	ck_assert_str_eq(id.object, "pipe:[12345]");
	ck_assert_uint_eq(id.dev, 14);
	/* unaligned, as a record may sit in a ring */
	{
		unsigned char buf[sizeof(pipe_rec) + 1];

		memcpy(buf + 1, pipe_rec, sizeof(pipe_rec));
		ck_assert_int_eq(ipp_fdid_rec__parse(buf + 1, sizeof(pipe_rec), &r), 0);
		ck_assert_uint_eq(r.ino, 12345);
	}
}
END_TEST

/* A record as the program fills it: @path_len bytes of path, size to match. */
static size_t make(struct ipp_fdid_rec *r, unsigned int what, unsigned int kind, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->version = IPP_FDID_REC_VERSION;
	r->what = (uint8_t)what;
	r->kind = (uint8_t)kind;
	r->pid = 7;
	r->fd = 4;
	if (what == IPP_FDID_IO) {
		r->size = IPP_FDID_REC_IO_SIZE;
		return r->size;
	}
	r->path_len = (uint16_t)strlen(path);
	memcpy(r->path, path, r->path_len + 1u);
	r->size = (uint16_t)(IPP_FDID_REC_HDR_SIZE + r->path_len + 1u);
	return r->size;
}

START_TEST(file_deleted)
{
	struct ipp_fdid_rec in, r;
	struct ipp_fdid id;
	size_t n = make(&in, IPP_FDID_NEW, IPP_FDID_FILE, "/tmp/x");

	in.mode = S_IFREG | 0600;
	in.flags = IPP_FDID_F_DELETED;
	in.f_flags = O_RDWR;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_FILE);
	ck_assert_str_eq(id.object, "/tmp/x (deleted)");
	ck_assert_int_eq(id.flags, O_RDWR);
	ck_assert(!id.truncated);
}
END_TEST

START_TEST(path_cut)
{
	struct ipp_fdid_rec in, r;
	struct ipp_fdid id;
	char path[256];
	size_t n;

	memset(path, 'a', 255);
	path[0] = '/';
	path[255] = '\0';
	n = make(&in, IPP_FDID_NEW, IPP_FDID_FILE, path);
	in.mode = S_IFREG;
	in.flags = IPP_FDID_F_PATH_TRUNC;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	/* lib/fd/procfd.c's convention: "..." and the end of the name */
	ck_assert(id.truncated);
	ck_assert_uint_eq(strlen(id.object), sizeof(id.object) - 1);
	ck_assert(!strncmp(id.object, "...aaa", 6));
}
END_TEST

START_TEST(tty)
{
	struct ipp_fdid_rec in, r;
	struct ipp_fdid id;
	size_t n = make(&in, IPP_FDID_NEW, IPP_FDID_FILE, "/dev/pts/3");

	in.mode = S_IFCHR | 0620;
	in.rdev = (136 << 8) | 3;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_TTY);
	n = make(&in, IPP_FDID_NEW, IPP_FDID_FILE, "/dev/null");
	in.mode = S_IFCHR | 0666;
	in.rdev = (1 << 8) | 3;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_FILE);
}
END_TEST

START_TEST(tcp4_and_unix)
{
	struct ipp_fdid_rec in, r;
	struct ipp_fdid id;
	size_t n = make(&in, IPP_FDID_UPDATE, IPP_FDID_SOCKET, "");
	char l[64], rm[64];

	in.ino = 555;
	in.family = AF_INET;
	in.type = SOCK_STREAM;
	in.protocol = IPPROTO_TCP;
	in.sport = 40000;
	in.dport = 5000;
	in.saddr[0] = 127, in.saddr[3] = 1;
	in.daddr[0] = 127, in.daddr[3] = 1;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_TCP);
	ck_assert_str_eq(id.object, "socket:[555]");
	ipp_sockaddr_str(&id.local, l, sizeof(l));
	ipp_sockaddr_str(&id.remote, rm, sizeof(rm));
	ck_assert_str_eq(l, "127.0.0.1:40000");
	ck_assert_str_eq(rm, "127.0.0.1:5000");
	ck_assert(id.loopback);
	ck_assert_uint_eq(id.peer_ino, 0);

	n = make(&in, IPP_FDID_NEW, IPP_FDID_SOCKET, "");
	in.ino = 556;
	in.family = AF_UNIX;
	in.type = SOCK_SEQPACKET;
	in.peer_ino = 557;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_UNIX);
	ck_assert_int_eq(id.type, SOCK_SEQPACKET);
	ck_assert_uint_eq(id.peer_ino, 557);
}
END_TEST

START_TEST(anon_and_nofile)
{
	struct ipp_fdid_rec in, r;
	struct ipp_fdid id;
	size_t n = make(&in, IPP_FDID_NEW, IPP_FDID_ANON, "[eventfd]");

	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), 0);
	ck_assert_int_eq(id.kind, IPCPERF_FD_OTHER);
	ck_assert_str_eq(id.object, "anon_inode:[eventfd]");
	n = make(&in, IPP_FDID_NEW, IPP_FDID_NOFILE, "");
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), -ENOENT);
	n = make(&in, IPP_FDID_IO, IPP_FDID_PIPE, NULL);
	ck_assert_uint_eq(n, 48);
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_int_eq(ipp_fdid_rec__to_fdid(&r, &id), -EINVAL);
}
END_TEST

START_TEST(bad_records)
{
	struct ipp_fdid_rec in, r;
	size_t n = make(&in, IPP_FDID_NEW, IPP_FDID_FILE, "/a");

	ck_assert_int_eq(ipp_fdid_rec__parse(&in, 3, &r), -EPROTO);
	/* the record says more than the sample holds */
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n - 1, &r), -EPROTO);
	in.version = 2;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), -ENOTSUP);
	in.version = IPP_FDID_REC_VERSION;
	in.path_len = 200;	/* past its size */
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), -EPROTO);
	in.path_len = 2;
	in.what = 9;
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), -EPROTO);
	in.what = IPP_FDID_NEW;
	in.size = IPP_FDID_REC_IO_SIZE;	/* a NEW record needs its fixed part */
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), -EPROTO);
	/* a path without its NUL in the record still comes out terminated */
	in.size = (uint16_t)n;
	in.path[2] = 'x';
	ck_assert_int_eq(ipp_fdid_rec__parse(&in, n, &r), 0);
	ck_assert_str_eq(r.path, "/a");
}
END_TEST

/* write(4, buf, 1) = 1 by tid 101 of pid 100, paired in the kernel: 112 bytes, byte by byte. */
static const unsigned char write_call[112] = {
	0x01, 0x00, 0x70, 0x00, 0x04, 0x00, 0x02, 0x00,	/* version 1, size 112, CALL, -, SWITCHES */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* switches 2, nr 1 (write on x86-64) */
	0x01, 0, 0, 0, 0, 0, 0, 0,			/* ret 1 */
	0xe8, 0x03, 0, 0, 0, 0, 0, 0,			/* start 1000 */
	0xd0, 0x07, 0, 0, 0, 0, 0, 0,			/* end 2000 */
	0x64, 0, 0, 0, 0, 0, 0, 0,			/* off cpu 100 */
	0x28, 0, 0, 0, 0, 0, 0, 0,			/* blocked 40 */
	0x04, 0, 0, 0, 0, 0, 0, 0,			/* args: fd 4 */
	0x00, 0x10, 0, 0, 0, 0, 0, 0,			/* buf 0x1000 */
	0x01, 0, 0, 0, 0, 0, 0, 0,			/* count 1 */
	[88] = 0,					/* args 3..5: 0 */
};

START_TEST(call_bytes)
{
	struct ipp_call_rec r;
	unsigned char buf[sizeof(write_call) + 8];

	ck_assert_uint_eq(ipp_krec__what(write_call, sizeof(write_call)), IPP_FDID_CALL);
	ck_assert_uint_eq(ipp_krec__what(pipe_rec, sizeof(pipe_rec)), IPP_FDID_NEW);
	ck_assert_int_eq(ipp_call_rec__parse(write_call, sizeof(write_call), &r), 0);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.nr, 1);
	ck_assert_int_eq(r.ret, 1);
	ck_assert_uint_eq(r.flags, IPP_CALL_F_SWITCHES);
	ck_assert_uint_eq(r.switches, 2);
	ck_assert_uint_eq(r.start_ns, 1000);
	ck_assert_uint_eq(r.end_ns, 2000);
	ck_assert_uint_eq(r.off_cpu_ns, 100);
	ck_assert_uint_eq(r.blocked_ns, 40);
	ck_assert_uint_eq(r.args[0], 4);
	ck_assert_uint_eq(r.args[1], 0x1000);
	ck_assert_uint_eq(r.args[2], 1);
	ck_assert_uint_eq(r.args[5], 0);
	/* unaligned, and padded as the ring pads RAW data */
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 1, write_call, sizeof(write_call));
	ck_assert_int_eq(ipp_call_rec__parse(buf + 1, sizeof(write_call) + 7, &r), 0);
	ck_assert_uint_eq(r.end_ns, 2000);
	/* too short, another version, not a call, a size below the record's */
	ck_assert_int_eq(ipp_call_rec__parse(write_call, sizeof(write_call) - 1, &r), -EPROTO);
	memcpy(buf, write_call, sizeof(write_call));
	buf[0] = 2;
	ck_assert_int_eq(ipp_call_rec__parse(buf, sizeof(write_call), &r), -ENOTSUP);
	ck_assert_int_eq(ipp_call_rec__parse(pipe_rec, sizeof(pipe_rec), &r), -EPROTO);
	memcpy(buf, write_call, sizeof(write_call));
	buf[2] = 0x60;
	ck_assert_int_eq(ipp_call_rec__parse(buf, sizeof(write_call), &r), -EPROTO);
	/* and the fd record decoder refuses it */
	{
		struct ipp_fdid_rec f;

		ck_assert_int_eq(ipp_fdid_rec__parse(write_call, sizeof(write_call), &f), -EPROTO);
	}
}
END_TEST

/*
 * Thread 101 of pid 100 at its exit: 3 voluntary, 2 involuntary, 3 wakeups,
 * 1 migration; of target 99: 5000 ns, 7 faults, 5 switches, 2 migrations.
 */
static const unsigned char naps_sched[104] = {
	0x01, 0x00, 0x68, 0x00, 0x05, 0x00, 0x00, 0x00,	/* version 1, size 104, SCHED */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x03, 0, 0, 0, 0, 0, 0, 0,			/* voluntary 3 */
	0x02, 0, 0, 0, 0, 0, 0, 0,			/* involuntary 2 */
	0x03, 0, 0, 0, 0, 0, 0, 0,			/* wakeups 3 */
	0x01, 0, 0, 0, 0, 0, 0, 0,			/* migrations 1 */
	'n', 'a', 'p', 's', 'x', 'x', 'x', 'x',		/* comm: 16 bytes, no NUL */
	'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
	0x63, 0x00, 0x00, 0x00, 0, 0, 0, 0,		/* root 99, pad */
	0x88, 0x13, 0, 0, 0, 0, 0, 0,			/* runtime 5000 ns */
	0x07, 0, 0, 0, 0, 0, 0, 0,			/* faults 7 */
	0x05, 0, 0, 0, 0, 0, 0, 0,			/* switches 5 */
	0x02, 0, 0, 0, 0, 0, 0, 0,			/* migrations 2 */
};

START_TEST(sched_bytes)
{
	struct ipp_sched_rec r;
	unsigned char buf[sizeof(naps_sched) + 8];

	ck_assert_uint_eq(ipp_krec__what(naps_sched, sizeof(naps_sched)), IPP_FDID_SCHED);
		ck_assert_uint_ne(ipp_krec__what(naps_sched, sizeof(naps_sched)), IPP_FDID_CALL);
	ck_assert_str_eq(ipp_fdid_rec__what_name(IPP_FDID_SCHED), "sched");
	/* unaligned, and padded as the ring pads RAW data */
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 1, naps_sched, sizeof(naps_sched));
	ck_assert_int_eq(ipp_sched_rec__parse(buf + 1, sizeof(naps_sched) + 7, &r), 0);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_uint_eq(r.voluntary, 3);
	ck_assert_uint_eq(r.involuntary, 2);
	ck_assert_uint_eq(r.wakeups, 3);
	ck_assert_uint_eq(r.migrations, 1);
	ck_assert_str_eq(r.comm, "napsxxxxxxxxxxx");	/* cut to 15 and a NUL */
	ck_assert_int_eq(r.root, 99);
	ck_assert_uint_eq(r.acct.runtime_ns, 5000);
	ck_assert_uint_eq(r.acct.faults, 7);
	ck_assert_uint_eq(r.acct.switches, 5);
	ck_assert_uint_eq(r.acct.migrations, 2);
	/* too short, another version, not a sched record, a size below the record's */
	ck_assert_int_eq(ipp_sched_rec__parse(naps_sched, sizeof(naps_sched) - 1, &r), -EPROTO);
	memcpy(buf, naps_sched, sizeof(naps_sched));
	buf[0] = 2;
	ck_assert_int_eq(ipp_sched_rec__parse(buf, sizeof(naps_sched), &r), -ENOTSUP);
	ck_assert_int_eq(ipp_sched_rec__parse(write_call, sizeof(write_call), &r), -EPROTO);
	memcpy(buf, naps_sched, sizeof(naps_sched));
	buf[2] = 0x60;
	ck_assert_int_eq(ipp_sched_rec__parse(buf, sizeof(naps_sched), &r), -EPROTO);
	/* and neither other decoder takes it */
	{
		struct ipp_fdid_rec f;
		struct ipp_call_rec c;

		ck_assert_int_eq(ipp_fdid_rec__parse(naps_sched, sizeof(naps_sched), &f), -EPROTO);
		ck_assert_int_eq(ipp_call_rec__parse(naps_sched, sizeof(naps_sched), &c), -EPROTO);
	}
}
END_TEST

/*
 * 3 x write(4, ...) by pid 100 (last by tid 101), added up in the kernel on
 * CPU 1: 30 bytes, 1000 + 1100 + 1200 ns; the header byte by byte, the
 * buckets (lib/hist.c's: 1000 -> 190, 1100 -> 194, 1200 -> 197) from base 0.
 */
static unsigned char three_writes[IPP_SUM_REC_SIZE] = {
	0x01, 0x00, 0x60, 0x08, 0x06, 0x00, 0x00, 0x00,	/* version 1, size 2144, SUM */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* fd 4, nr 1 (write on x86-64) */
	0x03, 0, 0, 0, 0, 0, 0, 0,			/* ops 3 */
	0x1e, 0, 0, 0, 0, 0, 0, 0,			/* bytes 30 */
	0, 0, 0, 0, 0, 0, 0, 0,				/* eagain 0 */
	0xe4, 0x0c, 0, 0, 0, 0, 0, 0,			/* time 3300 */
	0xe8, 0x03, 0, 0, 0, 0, 0, 0,			/* min 1000 */
	0xb0, 0x04, 0, 0, 0, 0, 0, 0,			/* max 1200 */
	0x88, 0x13, 0, 0, 0, 0, 0, 0,			/* first 5000 */
	0x28, 0x23, 0, 0, 0, 0, 0, 0,			/* last 9000 */
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* base 0, cpu 1 */
	[96 + 4 * 190] = 1, [96 + 4 * 194] = 1, [96 + 4 * 197] = 1,
};

START_TEST(sum_bytes)
{
	struct ipp_sum_rec r;
	unsigned char *buf = calloc(1, sizeof(three_writes) + 8);
	struct ipp_hist one, all;
	const uint64_t d[] = { 1000, 1100, 1200 };

	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(ipp_krec__what(three_writes, sizeof(three_writes)), IPP_FDID_SUM);
	ck_assert_str_eq(ipp_fdid_rec__what_name(IPP_FDID_SUM), "sum");
	/* unaligned, and padded as the ring pads RAW data */
	memcpy(buf + 1, three_writes, sizeof(three_writes));
	ck_assert_int_eq(ipp_sum_rec__parse(buf + 1, sizeof(three_writes) + 7, &r), 0);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.fd, 4);
	ck_assert_int_eq(r.nr, 1);
	ck_assert_uint_eq(r.ops, 3);
	ck_assert_uint_eq(r.bytes, 30);
	ck_assert_uint_eq(r.eagain, 0);
	ck_assert_uint_eq(r.time_ns, 3300);
	ck_assert_uint_eq(r.min_ns, 1000);
	ck_assert_uint_eq(r.max_ns, 1200);
	ck_assert_uint_eq(r.first_ns, 5000);
	ck_assert_uint_eq(r.last_ns, 9000);
	ck_assert_uint_eq(r.base, 0);
	ck_assert_uint_eq(r.cpu, 1);
	/* the buckets are hist.c's: the sums give the histogram the calls one by one would */
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(r.hist[ipp_hist_index(d[i])], 1);
	ipp_hist_init(&one);
	ipp_hist_init(&all);
	for (int i = 0; i < 3; i++)
		ipp_hist_add(&one, d[i]);
	ipp_hist_add_buckets(&all, r.ops, r.time_ns, r.min_ns, r.max_ns, r.base, r.hist,
			     IPP_SUM_BUCKETS);
	ck_assert_int_eq(memcmp(&one, &all, sizeof(one)), 0);
	/* too short, another version, not a summary */
	ck_assert_int_eq(ipp_sum_rec__parse(three_writes, sizeof(three_writes) - 1, &r), -EPROTO);
	memcpy(buf, three_writes, sizeof(three_writes));
	buf[0] = 2;
	ck_assert_int_eq(ipp_sum_rec__parse(buf, sizeof(three_writes), &r), -ENOTSUP);
	ck_assert_int_eq(ipp_sum_rec__parse(write_call, sizeof(write_call), &r), -EPROTO);
	/* counts that do not hold together: buckets other than ops, a base off 32, past the last bucket */
	memcpy(buf, three_writes, sizeof(three_writes));
	buf[24] = 4;
	ck_assert_int_eq(ipp_sum_rec__parse(buf, sizeof(three_writes), &r), -EPROTO);
	memcpy(buf, three_writes, sizeof(three_writes));
	buf[88] = 16;
	ck_assert_int_eq(ipp_sum_rec__parse(buf, sizeof(three_writes), &r), -EPROTO);
	memcpy(buf, three_writes, sizeof(three_writes));
	buf[88] = (IPP_HIST_BUCKETS - 32) & 0xff;
	buf[89] = (IPP_HIST_BUCKETS - 32) >> 8;
	ck_assert_int_eq(ipp_sum_rec__parse(buf, sizeof(three_writes), &r), -EPROTO);
	/* and the other decoders refuse it */
	{
		struct ipp_call_rec c;
		struct ipp_sched_rec t;

		ck_assert_int_eq(ipp_call_rec__parse(three_writes, sizeof(three_writes), &c), -EPROTO);
		ck_assert_int_eq(ipp_sched_rec__parse(three_writes, sizeof(three_writes), &t), -EPROTO);
	}
	free(buf);
}
END_TEST

/*
 * The same three writes as the kernel writes them: the buckets from the
 * least call's (190) to the largest's (197) only, 8 of them, base 190. The
 * decoder puts them back in a window from 160 (a multiple of 32): the
 * histogram of the calls one by one.
 */
START_TEST(sum_trimmed)
{
	unsigned char rec[96 + 8 * 4] = { 0 };
	const uint16_t size = sizeof(rec);
	const uint32_t base = 190, one = 1;
	const uint64_t d[] = { 1000, 1100, 1200 };
	struct ipp_hist *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
	struct ipp_sum_rec r;

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	memcpy(rec, three_writes, 96);
	memcpy(rec + 2, &size, sizeof(size));
	memcpy(rec + 88, &base, sizeof(base));
	memcpy(rec + 96 + 4 * 0, &one, 4);
	memcpy(rec + 96 + 4 * 4, &one, 4);
	memcpy(rec + 96 + 4 * 7, &one, 4);
	ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec), &r), 0);
	ck_assert_uint_eq(r.ops, 3);
	ck_assert_uint_eq(r.cpu, 1);
	ck_assert_uint_eq(r.base, 160);
	for (unsigned int i = 0; i < IPP_SUM_BUCKETS; i++)
		ck_assert_uint_eq(r.hist[i], i == 30 || i == 34 || i == 37);
	ipp_hist_init(want);
	ipp_hist_init(got);
	for (int i = 0; i < 3; i++)
		ipp_hist_add(want, d[i]);
	ipp_hist_add_buckets(got, r.ops, r.time_ns, r.min_ns, r.max_ns, r.base, r.hist,
			     IPP_SUM_BUCKETS);
	ck_assert_int_eq(memcmp(want, got, sizeof(*want)), 0);
	/* a size between buckets, buckets other than ops, buckets past hist.c's last */
	ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec) - 2, &r), -EPROTO);
	rec[2] -= 2;
	ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec), &r), -EPROTO);
	rec[2] += 2;
	rec[96 + 4] = 1;
	ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec), &r), -EPROTO);
	rec[96 + 4] = 0;
	ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec), &r), 0);
	{
		const uint32_t late = IPP_HIST_BUCKETS - 4;	/* a call in bucket 1920 */

		memcpy(rec + 88, &late, sizeof(late));
		ck_assert_int_eq(ipp_sum_rec__parse(rec, sizeof(rec), &r), -EPROTO);
	}
	free(want);
	free(got);
}
END_TEST

/* A task record as the kernel writes it: the bytes of one exec, then a fork and an exit. */
static void task_head(unsigned char *b, unsigned int kind, int pid, int tid)
{
	memset(b, 0, IPP_TASK_REC_SIZE);
	b[0] = 1;				/* version 1 */
	b[2] = IPP_TASK_REC_SIZE & 0xff;	/* size 296 */
	b[3] = IPP_TASK_REC_SIZE >> 8;
	b[4] = IPP_FDID_TASK;
	b[5] = (unsigned char)kind;
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &tid, 4);
}

START_TEST(task_bytes)
{
	unsigned char buf[IPP_TASK_REC_SIZE + 8], *b = buf + 1;
	struct ipp_task_rec r;
	int child = 303;

	ck_assert_uint_eq(IPP_TASK_REC_SIZE, 296);
	ck_assert_str_eq(ipp_fdid_rec__what_name(IPP_FDID_TASK), "task");
	/* exec of /usr/bin/true by 100: unaligned, and padded as the ring pads RAW data */
	task_head(b, IPP_TASK_REC_EXEC, 100, 100);
	memcpy(b + 40, "/usr/bin/true", 14);
	ck_assert_uint_eq(ipp_krec__what(b, IPP_TASK_REC_SIZE), IPP_FDID_TASK);
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE + 7, &r), 0);
	ck_assert_uint_eq(r.kind, IPP_TASK_REC_EXEC);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 100);
	ck_assert_str_eq(r.filename, "/usr/bin/true");
	/* fork of 303 by thread 101 of 100: a comm of 16 bytes with no NUL is cut at 15 */
	task_head(b, IPP_TASK_REC_FORK, 100, 101);
	memcpy(b + 16, &child, 4);
	memcpy(b + 24, "abcdefghijklmnop", 16);
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE, &r), 0);
	ck_assert_uint_eq(r.kind, IPP_TASK_REC_FORK);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.child_tid, 303);
	ck_assert_str_eq(r.comm, "abcdefghijklmno");
	/* a filename that fills its field is cut too */
	task_head(b, IPP_TASK_REC_EXIT, 100, 100);
	memset(b + 40, 'x', IPP_TASK_REC_FILENAME);
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE, &r), 0);
	ck_assert_uint_eq(strlen(r.filename), IPP_TASK_REC_FILENAME - 1);
	ck_assert_uint_eq(r.flags, 0);	/* an exit without its code: not known */
	/* killed by SIGSEGV, core dumped (0x8b), said with its flag */
	b[6] = IPP_TASK_REC_F_CODE;
	b[20] = 0x8b;
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE, &r), 0);
	ck_assert_uint_eq(r.flags, IPP_TASK_REC_F_CODE);
	ck_assert_int_eq(r.exit_code, 0x8b);
	/* short, an unknown kind, another version, another record */
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE - 1, &r), -EPROTO);
	b[5] = 3;
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE, &r), -EPROTO);
	b[5] = IPP_TASK_REC_EXIT;
	b[0] = 2;
	ck_assert_int_eq(ipp_task_rec__parse(b, IPP_TASK_REC_SIZE, &r), -ENOTSUP);
	ck_assert_int_eq(ipp_task_rec__parse(naps_sched, sizeof(naps_sched), &r), -EPROTO);
}
END_TEST

/* SIGCHLD delivered to thread 101 of pid 100, to run its handler: CLD_EXITED by 303, status 0. */
static const unsigned char sigchld_rec[72] = {
	0x01, 0x00, 0x48, 0x00, 0x09, 0x00, 0x00, 0x00,	/* version 1, size 72, SIGNAL, HANDLER */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* signo 17, pad */
	0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_signo 17, si_errno 0 */
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_code CLD_EXITED, pad */
	0x2f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_pid 303, si_uid 0 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_status 0, pad */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_utime 2 */
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* si_stime 3 */
};

START_TEST(sig_bytes)
{
	unsigned char buf[80];
	struct ipp_sig_rec r;
	siginfo_t si;

	ck_assert_str_eq(ipp_fdid_rec__what_name(IPP_FDID_SIGNAL), "signal");
	memcpy(buf, sigchld_rec, sizeof(sigchld_rec));
	ck_assert_uint_eq(ipp_krec__what(buf, 72), IPP_FDID_SIGNAL);
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 72, &r), 0);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.signo, SIGCHLD);
	ck_assert_uint_eq(r.action, IPP_SIG_HANDLER);
	/* the kernel's siginfo is a siginfo_t's first bytes, as glibc reads it */
	memset(&si, 0, sizeof(si));
	memcpy(&si, r.info, IPP_SIG_INFO);
	ck_assert_int_eq(si.si_signo, SIGCHLD);
	ck_assert_int_eq(si.si_code, CLD_EXITED);
	ck_assert_int_eq(si.si_pid, 303);
	ck_assert_int_eq(si.si_status, 0);
	ck_assert_int_eq(si.si_utime, 2);
	ck_assert_int_eq(si.si_stime, 3);
	/* padded as the ring pads RAW data */
	ck_assert_int_eq(ipp_sig_rec__parse(buf, sizeof(buf), &r), 0);
	/* short, an unknown action, no signal, another version, another record */
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 71, &r), -EPROTO);
	buf[5] = 3;
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 72, &r), -EPROTO);
	buf[5] = IPP_SIG_DEFAULT;
	buf[16] = 0;
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 72, &r), -EPROTO);
	buf[16] = 65;
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 72, &r), -EPROTO);
	buf[16] = 17;
	buf[0] = 2;
	ck_assert_int_eq(ipp_sig_rec__parse(buf, 72, &r), -ENOTSUP);
	ck_assert_int_eq(ipp_sig_rec__parse(naps_sched, sizeof(naps_sched), &r), -EPROTO);
}
END_TEST

/*
 * Thread 101 of pid 100: openat(AT_FDCWD, "/etc/hosts", O_RDONLY) entered
 * at 1000 ns, its path read at sys_enter: one item, so 144 + 256 bytes.
 */
static const unsigned char openat_head[96] = {
	0x01, 0x00, 0x90, 0x01, 0x08, 0x01, 0x00, 0x00,	/* version 1, size 400, ARGS, 1 item */
	0x64, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x00,	/* pid 100, tid 101 */
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* nr 257 (openat), pad */
	0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* start_ns 1000 */
	0x9c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* args[0] AT_FDCWD (-100) */
	0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* args[1] 0x2000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* args[2] O_RDONLY */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x01, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00,	/* item 0: arg 1, STR, 10 bytes, no flags */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* count 0 */
};

static void openat_rec(unsigned char *buf)
{
	memset(buf, 0, 400);
	memcpy(buf, openat_head, sizeof(openat_head));
	memcpy(buf + 144, "/etc/hosts", 10);
}

START_TEST(args_bytes)
{
	unsigned char buf[400 + 8];
	struct ipp_args_rec r;

	openat_rec(buf);
	ck_assert_uint_eq(ipp_krec__what(buf, 400), IPP_FDID_ARGS);
	ck_assert_int_eq(ipp_args_rec__parse(buf, 400, &r), 0);
	ck_assert_int_eq(r.pid, 100);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_int_eq(r.nr, 257);
	ck_assert_uint_eq(r.nr_items, 1);
	ck_assert_uint_eq(r.start_ns, 1000);
	ck_assert_int_eq((int)r.args[0], -100);
	ck_assert_uint_eq(r.args[1], 0x2000);
	ck_assert_uint_eq(r.items[0].arg, 1);
	ck_assert_uint_eq(r.items[0].kind, IPP_ARG_STR);
	ck_assert_uint_eq(r.items[0].len, 10);
	ck_assert_mem_eq(r.data[0], "/etc/hosts", 10);
	ck_assert_uint_eq(r.items[1].kind, IPP_ARG_NONE);
	ck_assert_uint_eq(r.data[1][0], 0);	/* past the record's size: zeroed */
	/* padded as the ring pads RAW data */
	ck_assert_int_eq(ipp_args_rec__parse(buf, sizeof(buf), &r), 0);
	/* too short for its size, another version, a call record's bytes */
	ck_assert_int_eq(ipp_args_rec__parse(buf, 399, &r), -EPROTO);
	buf[0] = 2;
	ck_assert_int_eq(ipp_args_rec__parse(buf, 400, &r), -ENOTSUP);
	ck_assert_int_eq(ipp_args_rec__parse(write_call, sizeof(write_call), &r), -EPROTO);
	/* two items in the size of one; an item longer than its slot */
	openat_rec(buf);
	buf[5] = 2;
	ck_assert_int_eq(ipp_args_rec__parse(buf, 400, &r), -EPROTO);
	openat_rec(buf);
	buf[82] = 0x01;
	buf[83] = 0x01;	/* 257 bytes */
	ck_assert_int_eq(ipp_args_rec__parse(buf, 400, &r), -EPROTO);
	/* a kind past the last */
	openat_rec(buf);
	buf[81] = IPP_ARG__MAX;
	ck_assert_int_eq(ipp_args_rec__parse(buf, 400, &r), -EPROTO);
}
END_TEST

/* The record waits for its thread's call; the pieces are the public ones. */
START_TEST(args_claimed)
{
	struct ipcperf_call_mem m[IPP_ARGS_ITEMS];
	struct ipp_callmem q = { 0 };
	const struct ipp_args_rec *r;
	unsigned char buf[400];
	int err;

	openat_rec(buf);
	ck_assert_ptr_null(ipp_callmem__take(&q, buf, sizeof(buf), &err));
	ck_assert_int_eq(err, 0);
	/* another thread's call, another call of the thread: not its */
	ck_assert_ptr_null(ipp_callmem__claim(&q, 102, 257));
	r = ipp_callmem__claim(&q, 101, 257);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(ipp_callmem__pieces(r, m), 1);
	ck_assert_uint_eq(m[0].arg, 1);
	ck_assert_uint_eq(m[0].kind, IPCPERF_MEM_STRING);
	ck_assert_uint_eq(m[0].len, 10);
	ck_assert(!m[0].truncated && !m[0].fault);
	ck_assert_mem_eq(m[0].data, "/etc/hosts", 10);
	/* claimed once */
	ck_assert_ptr_null(ipp_callmem__claim(&q, 101, 257));
	/* a record for a call that is not the next one's is dropped at that call */
	ck_assert_ptr_null(ipp_callmem__take(&q, buf, sizeof(buf), &err));
	ck_assert_ptr_null(ipp_callmem__claim(&q, 101, 0));
	ck_assert_ptr_null(ipp_callmem__claim(&q, 101, 257));
	/* exit_group's, written at its entry: handed back at once */
	buf[6] = IPP_ARGS_F_NORETURN;
	buf[16] = 231;
	buf[17] = 0;
	r = ipp_callmem__take(&q, buf, sizeof(buf), &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->nr, 231);
	ck_assert_ptr_null(ipp_callmem__claim(&q, 101, 231));
	/* a call under way, told at its thread's switch: handed back, kept for no call */
	openat_rec(buf);
	ck_assert_ptr_null(ipp_callmem__take(&q, buf, sizeof(buf), &err));
	buf[6] = IPP_ARGS_F_ENTERED;
	r = ipp_callmem__take(&q, buf, sizeof(buf), &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->flags, IPP_ARGS_F_ENTERED);
	ck_assert_int_eq(r->nr, 257);
	/* the thread's record before it is still the one its call claims */
	r = ipp_callmem__claim(&q, 101, 257);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->flags, 0);
	/* not an arg record */
	ck_assert_ptr_null(ipp_callmem__take(&q, write_call, sizeof(write_call), &err));
	ck_assert_int_eq(err, -EPROTO);
	ipp_callmem__fini(&q);
}
END_TEST

static Suite *fdid_rec_suite(void)
{
	Suite *s = suite_create("fdid-rec");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, pipe_bytes);
	tcase_add_test(tc, file_deleted);
	tcase_add_test(tc, path_cut);
	tcase_add_test(tc, tty);
	tcase_add_test(tc, tcp4_and_unix);
	tcase_add_test(tc, anon_and_nofile);
	tcase_add_test(tc, bad_records);
	tcase_add_test(tc, call_bytes);
	tcase_add_test(tc, sched_bytes);
	tcase_add_test(tc, sum_bytes);
	tcase_add_test(tc, sum_trimmed);
	tcase_add_test(tc, task_bytes);
	tcase_add_test(tc, args_bytes);
	tcase_add_test(tc, sig_bytes);
	tcase_add_test(tc, args_claimed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fdid_rec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

