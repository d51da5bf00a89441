/* Unit tests of trace's arguments (cli/trace/traceargs.c): the calls of an event loop, from memory pieces made here. */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traceargs.h"
#include "suites.h"

/* The line of call @ev drawn with -s @strsize: NAME(ARGS) = RET, in a new string. */
static char *draw(const struct ipcperf_syscall *ev, unsigned int strsize)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	struct traceargs a = { .f = f, .ev = ev, .strsize = strsize };

	ck_assert_ptr_nonnull(f);
	traceargs_call(&a);
	fputs(" = ", f);
	traceargs_ret(&a);
	fclose(f);
	return s;
}

static void expect(const struct ipcperf_syscall *ev, unsigned int strsize, const char *want)
{
	char *got = draw(ev, strsize);

	ck_assert_str_eq(got, want);
	free(got);
}

/* A piece of memory of @kind at argument @arg: @len bytes of @data, @count. */
static struct ipcperf_call_mem piece(unsigned int arg, unsigned int kind, const void *data,
				     unsigned int len, uint32_t count)
{
	return (struct ipcperf_call_mem){ .arg = arg, .kind = kind, .len = len, .count = count,
					  .data = data };
}

/* writev of 4 entries: the first three's bytes (at most -s of each), the fourth's address. */
START_TEST(test_writev_entries)
{
	uint64_t iov[8] = { 0x1000, 6, 0x2000, 2, 0x3000, 0, 0x4000, 3 };
	struct ipcperf_call_mem m[4] = {
		piece(1, IPCPERF_MEM_IOV_IN, iov, sizeof(iov), 4),
		piece(1, IPCPERF_MEM_IOVB_IN, "abcdef", 6, 0),
		piece(1, IPCPERF_MEM_IOVB_IN, "x\n", 2, 1),
		piece(1, IPCPERF_MEM_IOVB_IN, "", 0, 2),
	};
	struct ipcperf_syscall ev = { .name = "writev", .args = { 7, 0x7ff0, 4 }, .ret = 11,
				      .nr_mem = 4, .mem = m, .fd = 7 };

	expect(&ev, 4, "writev(7, [{iov_base=\"abcd\"..., iov_len=6}, {iov_base=\"x\\n\", iov_len=2}, "
		       "{iov_base=\"\", iov_len=0}, {iov_base=0x4000, iov_len=3}], 4) = 11");
}
END_TEST

/* readv: each entry shows what of the return filled it; failed, the entries' addresses. */
START_TEST(test_readv_fill)
{
	uint64_t iov[4] = { 0x1000, 3, 0x2000, 8 };
	struct ipcperf_call_mem m[3] = {
		piece(1, IPCPERF_MEM_IOV_OUT, iov, sizeof(iov), 2),
		piece(1, IPCPERF_MEM_IOVB_OUT, "abc", 3, 0),
		piece(1, IPCPERF_MEM_IOVB_OUT, "de", 2, 1),
	};
	struct ipcperf_syscall ev = { .name = "readv", .args = { 5, 0x7ff0, 2 }, .ret = 5,
				      .nr_mem = 3, .mem = m, .fd = 5 };

	expect(&ev, 32, "readv(5, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"de\", iov_len=8}], 2) = 5");
	ev.ret = -EAGAIN;
	ev.nr_mem = 1;
	expect(&ev, 32, "readv(5, [{iov_base=0x1000, iov_len=3}, {iov_base=0x2000, iov_len=8}], 2) = "
			"-1 EAGAIN (Resource temporarily unavailable)");
}
END_TEST

/* poll's fds as given, those with revents after its return; epoll_wait's events, more than kept. */
START_TEST(test_poll_epoll)
{
	unsigned char in[16] = { 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0 };
	unsigned char out[16] = { 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0x14, 0x20 };
	unsigned char ev1[12] = { 0x01, 0x20, 0, 0x80, 9, 0, 0, 0, 1, 0, 0, 0 };
	struct ipcperf_call_mem p[2] = {
		piece(0, IPCPERF_MEM_IN, in, sizeof(in), sizeof(in)),
		piece(0, IPCPERF_MEM_OUT, out, sizeof(out), sizeof(out)),
	};
	struct ipcperf_call_mem e[1] = { piece(1, IPCPERF_MEM_OUT, ev1, sizeof(ev1), sizeof(ev1)) };
	struct ipcperf_syscall ev = { .name = "poll", .args = { 0x7ff0, 2, 500 }, .ret = 1,
				      .nr_mem = 2, .mem = p, .fd = -1 };

	expect(&ev, 32, "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN|POLLOUT}], 2, 500) = 1 "
			"([{fd=4, revents=POLLOUT|POLLHUP|POLLRDHUP}])");
	ev.ret = 0;
	expect(&ev, 32, "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN|POLLOUT}], 2, 500) = 0 (Timeout)");
	ev = (struct ipcperf_syscall){ .name = "epoll_wait", .args = { 5, 0x7ff0, 64, -1ull },
				       .ret = 2, .nr_mem = 1, .mem = e, .fd = 5 };
	expect(&ev, 32, "epoll_wait(5, [{events=EPOLLIN|EPOLLRDHUP|EPOLLET, data={u32=9, u64=4294967305}}, "
			"...], 64, -1) = 2");
}
END_TEST

/* Socket options by name, an int value in brackets, SO_ERROR's errno by name; accept4's flags. */
START_TEST(test_sockopts)
{
	int err = ECONNREFUSED, given = 4;
	struct ipcperf_call_mem m[2] = {
		piece(3, IPCPERF_MEM_SOCKADDR, &err, sizeof(err), sizeof(err)),
		piece(4, IPCPERF_MEM_IN, &given, sizeof(given), sizeof(given)),
	};
	struct ipcperf_syscall ev = { .name = "getsockopt", .args = { 6, 1, 4, 0x7ff0, 0x7fe0 },
				      .ret = 0, .nr_mem = 2, .mem = m, .fd = 6 };

	expect(&ev, 32, "getsockopt(6, SOL_SOCKET, SO_ERROR, [ECONNREFUSED], [4]) = 0");
	ev = (struct ipcperf_syscall){ .name = "accept4", .args = { 3, 0, 0, 0x80800 }, .ret = -EAGAIN,
				       .fd = 3 };
	expect(&ev, 32, "accept4(3, NULL, NULL, SOCK_CLOEXEC|SOCK_NONBLOCK) = "
			"-1 EAGAIN (Resource temporarily unavailable)");
}
END_TEST

Suite *traceargs_suite(void)
{
	Suite *s = suite_create("traceargs");
	TCase *tc = tcase_create("event loop");

	tcase_add_test(tc, test_writev_entries);
	tcase_add_test(tc, test_readv_fill);
	tcase_add_test(tc, test_poll_epoll);
	tcase_add_test(tc, test_sockopts);
	suite_add_tcase(s, tc);
	return s;
}
