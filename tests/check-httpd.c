/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the /metrics server (cli/httpd.c) on a loopback port the
 * kernel picks: the test is both the client and the loop that serves, so
 * it needs no thread and no root. Responses are checked whole: status,
 * headers, body, and how many scrapes were counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <check.h>

#include "cli.h"
#include "httpd.h"
#include "check-helpers.h"
#include "suites.h"

/* The CLI's error line (common.c is not linked here): kept for the tests to read. */
static char last_err[512];

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

static int bodies;

static int body(void *ctx, FILE *f, enum metrics_format fmt)
{
	(void)ctx;
	bodies++;
	fprintf(f, "m_total %d\n%s", bodies, fmt == METRICS_OPENMETRICS ? "# EOF\n" : "");
	return 0;
}

static struct httpd *start(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct httpd *h;

	ck_assert_int_eq(httpd_parse_addr("127.0.0.1:0", &ss, &len), 0);
	h = httpd_new(&ss, len, body, NULL);
	ck_assert_msg(h != NULL, "httpd_new: %s", last_err);
	ck_assert(!strncmp(httpd_url(h), "http://127.0.0.1:", 17));
	return h;
}

static int port_of(const struct httpd *h)
{
	return atoi(httpd_url(h) + 17);
}

static uint64_t ms_now(void)
{
	return mono_ns() / 1000000;
}

/* Send @req (@len bytes) to @h and serve until the server closes: the response, to free(). */
static char *exchange(struct httpd *h, const char *req, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port_of(h)) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char *resp = calloc(1, 1 << 16);
	size_t got = 0, sent = 0;
	uint64_t end = ms_now() + 5000;

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd fds[HTTPD_MAX_FDS];
		unsigned int n = httpd_pollfds(h, fds, HTTPD_MAX_FDS);
		ssize_t r;

		if (sent < len) {
			r = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
			if (r > 0)
				sent += (size_t)r;
		}
		poll(fds, n, 20);
		httpd_ready(h, fds, n);
		r = recv(fd, resp + got, (1 << 16) - 1 - got, 0);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			break;
		if (r > 0)
			got += (size_t)r;
		ck_assert_msg(ms_now() < end, "no whole response in 5 s; so far: %s", resp);
	}
	close(fd);
	resp[got] = '\0';
	return resp;
}

static char *get(struct httpd *h, const char *req)
{
	return exchange(h, req, strlen(req));
}

START_TEST(test_metrics)
{
	struct httpd *h = start();
	char *r;

	bodies = 0;
	r = get(h, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
	ck_assert_str_eq(r, "HTTP/1.1 200 OK\r\n"
			    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
			    "Content-Length: 10\r\nConnection: close\r\n\r\nm_total 1\n");
	free(r);
	ck_assert_uint_eq(httpd_served(h), 1);
	/* What Prometheus sends; a query string changes nothing. */
	r = get(h, "GET /metrics?x=1 HTTP/1.1\r\nAccept: application/openmetrics-text;"
		   "version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
		   "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n");
	ck_assert_str_eq(r, "HTTP/1.1 200 OK\r\n"
			    "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"
			    "Content-Length: 16\r\nConnection: close\r\n\r\nm_total 2\n# EOF\n");
	free(r);
	ck_assert_uint_eq(httpd_served(h), 2);
	/* HEAD: the headers only, and not a scrape. */
	r = get(h, "HEAD /metrics HTTP/1.0\n\n");
	ck_assert(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	ck_assert(strstr(r, "Content-Length: 10\r\n"));
	ck_assert_str_eq(strstr(r, "\r\n\r\n"), "\r\n\r\n");
	free(r);
	ck_assert_uint_eq(httpd_served(h), 2);
	httpd_delete(h);
}
END_TEST

START_TEST(test_errors)
{
	struct httpd *h = start();
	char *big = malloc(9000), *r;

	r = get(h, "GET / HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 404 Not Found\r\n", 24));
	free(r);
	r = get(h, "GET /metricsx HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 404 Not Found\r\n", 24));
	free(r);
	r = get(h, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 405 Method Not Allowed\r\n", 33));
	ck_assert(strstr(r, "\r\nAllow: GET, HEAD\r\n"));
	free(r);
	r = get(h, "hello\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26));
	free(r);
	/* A target longer than any /metrics?query a scraper sends. */
	memcpy(big, "GET /metrics?", 13);
	memset(big + 13, 'q', 300);
	strcpy(big + 313, " HTTP/1.1\r\n\r\n");
	r = get(h, big);
	ck_assert(!strncmp(r, "HTTP/1.1 414 URI Too Long\r\n", 27));
	free(r);
	/* A head that never ends: cut at 8 KiB. */
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	memset(big + 26, 'a', 9000 - 26);
	r = exchange(h, big, 9000);
	ck_assert(!strncmp(r, "HTTP/1.1 431 ", 13));
	free(r);
	free(big);
	ck_assert_uint_eq(httpd_served(h), 0);
	/* Nobody scrapes: linger gives up after its time. */
	ck_assert(!httpd_linger(h, 100));
	httpd_delete(h);
}
END_TEST

/*
 * Two Content-Length values that differ, as fields or as a list in one
 * field, or one that is not a number: the framing is broken (RFC 9112,
 * 6.3), a 400 whatever the method, and the connection closed. The same
 * value repeated is allowed (RFC 9110, 8.6) and served.
 */
START_TEST(test_content_length)
{
	static const char bad[] = "HTTP/1.1 400 Bad Request\r\n"
				  "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 51\r\n"
				  "Connection: close\r\n\r\n"
				  "bad request: two Content-Length values that differ\n";
	static const char *const differ[] = {
		"GET /metrics HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n",
		"GET /metrics HTTP/1.1\r\ncontent-length: 5\r\nHost: x\r\nCONTENT-LENGTH: 0\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nContent-Length: 0, 1\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0, 7\r\n\r\n",
		"POST /metrics HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	};
	static const char *const same[] = {
		"GET /metrics HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nContent-Length: 0, 00\r\ncontent-length:0\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
	};
	struct httpd *h = start();
	char *r;

	bodies = 0;
	for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		r = get(h, differ[i]);	/* returns once the server closed */
		ck_assert_msg(!strcmp(r, bad), "request %zu: got '%s'", i, r);
		free(r);
	}
	ck_assert_int_eq(bodies, 0);
	ck_assert_uint_eq(httpd_served(h), 0);
	/* Not a number: broken framing too, said as such. */
	r = get(h, "GET /metrics HTTP/1.1\r\nContent-Length: 1x\r\n\r\n");
	ck_assert_msg(!strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26) &&
		      strstr(r, "\r\n\r\nbad request: Content-Length is not a number\n"), "got '%s'", r);
	free(r);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		r = get(h, same[i]);
		ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "request %zu: got '%s'", i, r);
		free(r);
		ck_assert_uint_eq(httpd_served(h), i + 1);
	}
	httpd_delete(h);
}
END_TEST

START_TEST(test_addresses)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t len;
	struct httpd *h, *h2;
	char spec[32];

	ck_assert_int_eq(httpd_parse_addr("9633", &ss, &len), 0);
	ck_assert_int_eq(ss.ss_family, AF_INET);
	ck_assert_uint_eq(ntohs(sin->sin_port), 9633);
	ck_assert_uint_eq(ntohl(sin->sin_addr.s_addr), 0x7f000001);
	ck_assert_int_eq(httpd_parse_addr("0.0.0.0:80", &ss, &len), 0);
	ck_assert_uint_eq(sin->sin_addr.s_addr, 0);
	ck_assert_int_eq(httpd_parse_addr("[::1]:80", &ss, &len), 0);
	ck_assert_int_eq(ss.ss_family, AF_INET6);
	ck_assert_int_eq(httpd_parse_addr("localhost:80", &ss, &len), 0);
	static const char *const bad[] = { "", ":80", "80:", "abc", "1.2.3.4:99999", "::1:80",
					   "[::1]", "[]:80", "1.2.3.4:8x", "-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		last_err[0] = '\0';
		ck_assert_msg(httpd_parse_addr(bad[i], &ss, &len) == -1, "'%s' accepted", bad[i]);
		ck_assert_msg(strstr(last_err, "--listen"), "'%s': said '%s'", bad[i], last_err);
	}
	/* A port in use: one line that says so. */
	h = start();
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port_of(h));
	ck_assert_int_eq(httpd_parse_addr(spec, &ss, &len), 0);
	h2 = httpd_new(&ss, len, body, NULL);
	ck_assert_ptr_null(h2);
	ck_assert_msg(strstr(last_err, strerror(EADDRINUSE)), "said '%s'", last_err);
	httpd_delete(h);
}
END_TEST

/* ------------------------------------------------------------------ slow clients */

/* One round of the server's loop: what the capture loop does every 25 ms. */
static void serve(struct httpd *h, int ms)
{
	struct pollfd fds[HTTPD_MAX_FDS];
	unsigned int n = httpd_pollfds(h, fds, HTTPD_MAX_FDS);

	poll(fds, n, ms);
	httpd_ready(h, fds, n);
}

static int connect_nb(const struct httpd *h)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port_of(h)) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 || errno == EINPROGRESS,
		      "connect: %s", strerror(errno));
	return fd;
}

/*
 * A slowloris: the request line, then one more byte of a header every
 * 200-1000 ms, never the blank line that ends the head.
 */
struct slow {
	int fd;			/* -1: dropped, and it does not come back */
	bool reconnect;		/* comes back as soon as it is dropped */
	size_t sent;		/* of the request line */
	uint64_t opened, next, dropped;	/* dropped: when it first saw the close, or 0 */
	unsigned int drops;
};

static const char slow_line[] = "GET /metrics HTTP/1.1\r\n";

static void slow_open(struct slow *s, const struct httpd *h)
{
	s->opened = ms_now();
	s->fd = connect_nb(h);
	s->sent = 0;
	s->next = s->opened;
}

static void slow_drop(struct slow *s, const struct httpd *h)
{
	close(s->fd);
	s->fd = -1;
	s->drops++;
	if (!s->dropped)
		s->dropped = ms_now();
	if (s->reconnect)
		slow_open(s, h);
}

static void slow_step(struct slow *s, const struct httpd *h)
{
	uint64_t now = ms_now();
	char buf[512];
	ssize_t r;

	if (s->fd < 0)
		return;
	if (s->sent < sizeof(slow_line) - 1) {
		r = send(s->fd, slow_line + s->sent, sizeof(slow_line) - 1 - s->sent, MSG_NOSIGNAL);
		if (r > 0)
			s->sent += (size_t)r;
	} else if (now >= s->next) {
		r = send(s->fd, "x", 1, MSG_NOSIGNAL);
		s->next = now + 200 + (uint64_t)(rand() % 801);
	} else {
		r = 0;
	}
	if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		slow_drop(s, h);
		return;
	}
	do
		r = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
	while (r > 0);
	if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
		slow_drop(s, h);
}

/* Serve, with @n slow clients at their pace, for @ms (one round at least). */
static void slow_run(struct httpd *h, struct slow *s, int n, unsigned int ms)
{
	uint64_t end = ms_now() + ms;

	do {
		serve(h, 1);
		for (int i = 0; i < n; i++)
			slow_step(&s[i], h);
	} while (ms_now() < end);
}

/*
 * What has come on the non-blocking @fd, added to @resp (4 KiB, @got bytes
 * in it). @return false once the server closed or reset the connection.
 */
static bool recv_some(int fd, char *resp, size_t *got)
{
	ssize_t r = recv(fd, resp + *got, 4095 - *got, MSG_DONTWAIT);

	if (r > 0)
		*got += (size_t)r;
	return r > 0 || (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

/*
 * Scrape @h while the @n slow clients go on: the whole response (to free()),
 * @ms the time from connect to the server's close (3 s at most).
 */
static char *slow_scrape(struct httpd *h, struct slow *s, int n, uint64_t *ms)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	uint64_t start = ms_now();
	int fd = connect_nb(h);
	char *resp = calloc(1, 4096);
	size_t sent = 0, got = 0;

	while (ms_now() < start + 3000) {
		ssize_t r = 0;

		if (sent < sizeof(req) - 1)
			r = send(fd, req + sent, sizeof(req) - 1 - sent, MSG_NOSIGNAL);
		if (r > 0)
			sent += (size_t)r;
		serve(h, 5);
		for (int i = 0; i < n; i++)
			slow_step(&s[i], h);
		if (!recv_some(fd, resp, &got))
			break;
	}
	*ms = ms_now() - start;
	close(fd);
	return resp;
}

/* A scrape among the @n slow clients: whole, and within 1 s. */
static void check_scrape(struct httpd *h, struct slow *s, int n)
{
	unsigned long served = httpd_served(h);
	char *r, want[64];
	uint64_t ms;

	r = slow_scrape(h, s, n, &ms);
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "scrape %lu: got '%s' in %" PRIu64
		      " ms", served + 1, r, ms);
	snprintf(want, sizeof(want), "\r\n\r\nm_total %d\n", bodies);
	ck_assert_msg(strstr(r, want) && !strcmp(strstr(r, want), want), "scrape %lu: got '%s'",
		      served + 1, r);
	ck_assert_msg(ms < 1000, "scrape %lu took %" PRIu64 " ms", served + 1, ms);
	ck_assert_uint_eq(httpd_served(h), served + 1);
	free(r);
}

/*
 * 64 slowlorises, a quarter of them back as soon as they are dropped: for
 * 5 s a scrape every 200 ms is served whole within 1 s, and each that does
 * not come back is dropped 2 s (the request deadline) after it connected.
 */
START_TEST(test_slowloris)
{
	struct httpd *h = start();
	struct slow s[64] = { 0 };
	int scrapes = 0;
	uint64_t end;

	bodies = 0;
	srand(1);
	for (int i = 0; i < 64; i++) {
		s[i].reconnect = i % 4 == 0;
		slow_open(&s[i], h);
		slow_run(h, s, i + 1, 0);
	}
	slow_run(h, s, 64, 300);
	for (end = ms_now() + 5000; ms_now() < end; scrapes++) {
		check_scrape(h, s, 64);
		slow_run(h, s, 64, 200);
	}
	ck_assert_int_ge(scrapes, 15);
	for (int i = 0; i < 64; i++) {
		if (s[i].reconnect) {
			ck_assert_msg(s[i].drops >= 2, "slow client %d dropped %u times in 5 s", i,
				      s[i].drops);
			close(s[i].fd);
			continue;
		}
		ck_assert_msg(s[i].dropped, "slow client %d still connected after 5 s", i);
		ck_assert_msg(s[i].dropped - s[i].opened >= 1999 &&
			      s[i].dropped - s[i].opened < 3000, "slow client %d dropped after %"
			      PRIu64 " ms, not 2 s", i, s[i].dropped - s[i].opened);
	}
	httpd_delete(h);
}
END_TEST

/*
 * More slow clients than slots (128): the oldest are evicted for the
 * newest, and a scrape still gets in.
 */
START_TEST(test_full)
{
	enum { N = 140 };
	struct httpd *h = start();
	struct slow *s = calloc(N, sizeof(*s));

	bodies = 0;
	for (int i = 0; i < N; i++) {
		slow_open(&s[i], h);
		slow_run(h, s, i + 1, 0);
	}
	slow_run(h, s, N, 100);
	for (int i = 0; i < 3; i++)
		check_scrape(h, s, N);
	/* 12 over, and one for the first scrape (the next take the slot it left). */
	for (int i = 0; i < N; i++)
		ck_assert_msg(i < N - 128 + 1 ? s[i].fd < 0 : s[i].fd >= 0,
			      "slow client %d of %d %s", i, N, s[i].fd < 0 ? "evicted" : "kept");
	for (int i = 0; i < N; i++)
		if (s[i].fd >= 0)
			close(s[i].fd);
	free(s);
	httpd_delete(h);
}
END_TEST

/* ------------------------------------------------------------------ a flood */

/*
 * A connection flood on loopback: bursts of connects, more than the slots,
 * every other one sending part of a request head and the rest nothing, each
 * closed (reset) once FLOOD_FDS newer ones are open. The silent ones wait in
 * the listener's SYN queue, which the listen backlog (1024) sizes.
 */
enum { FLOOD_FDS = 512, FLOOD_BURST = 320, FLOOD_STEP = 16 };

struct flood {
	int fd[FLOOD_FDS];
	unsigned long opened;
};

static void flood_open(struct flood *f, const struct httpd *h, int n)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };

	for (int i = 0; i < n; i++, f->opened++) {
		int *fd = &f->fd[f->opened % FLOOD_FDS];

		if (f->opened >= FLOOD_FDS) {
			setsockopt(*fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
			close(*fd);
		}
		*fd = connect_nb(h);
		if (f->opened % 2)
			(void)!send(*fd, slow_line, sizeof(slow_line) - 1, MSG_NOSIGNAL);
	}
}

static void flood_close(struct flood *f)
{
	for (unsigned long i = 0; i < f->opened && i < FLOOD_FDS; i++)
		close(f->fd[i]);
}

/*
 * Scrape @h once while the flood goes on: a burst of it right after the
 * connect, then more at each round of the server. The whole request goes at
 * connect, or with @late once the server has taken the burst in (a scraper
 * slow between its connect and its request). The response (to free()), or
 * what came before the server closed or reset the connection, in 3 s at most.
 */
static char *flood_scrape(struct httpd *h, struct flood *f, bool late)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	uint64_t end = ms_now() + 3000;
	int fd = connect_nb(h);
	char *resp = calloc(1, 4096);
	size_t sent = 0, got = 0;
	ssize_t r;

	for (int round = 0; ms_now() < end; round++) {
		if (sent < sizeof(req) - 1 && (!late || round > 0)) {
			r = send(fd, req + sent, sizeof(req) - 1 - sent, MSG_NOSIGNAL);
			sent += r > 0 ? (size_t)r : 0;
		}
		if (!round)
			flood_open(f, h, FLOOD_BURST);
		serve(h, 1);
		flood_open(f, h, FLOOD_STEP);
		if (!recv_some(fd, resp, &got))
			break;
	}
	close(fd);
	return resp;
}

/*
 * 100 scrapes, each while a flood of idle and half-sent connections
 * outnumbers the slots, every other one sending its request late: a
 * request come whole is answered before any of the flood keeps its slot,
 * and a connection that has sent nothing yet takes no slot, so every scrape
 * is answered.
 */
START_TEST(test_flood)
{
	enum { SCRAPES = 100 };
	struct httpd *h = start();
	struct flood f = { .opened = 0 };
	int answered[2] = { 0, 0 };
	char first[80] = "";

	bodies = 0;
	for (int i = 0; i < SCRAPES; i++) {
		char *r = flood_scrape(h, &f, i % 2), want[64];

		snprintf(want, sizeof(want), "\r\n\r\nm_total %d\n", bodies);
		if (!strncmp(r, "HTTP/1.1 200 OK\r\n", 17) && strstr(r, want))
			answered[i % 2]++;
		else if (!first[0])
			snprintf(first, sizeof(first), "scrape %d got '%.40s'", i + 1, r);
		free(r);
	}
	ck_assert_msg(answered[0] + answered[1] == SCRAPES, "%d of %d scrapes answered (%d of "
		      "%d sent late) among %lu flood connections; first failed: %s",
		      answered[0] + answered[1], SCRAPES, answered[1], SCRAPES / 2, f.opened, first);
	ck_assert_uint_eq(httpd_served(h), SCRAPES);
	flood_close(&f);
	httpd_delete(h);
}
END_TEST

Suite *httpd_suite(void)
{
	Suite *s = suite_create("httpd");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_metrics);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_content_length);
	tcase_add_test(tc, test_addresses);
	suite_add_tcase(s, tc);
	tc = tcase_create("slow");
	tcase_add_test(tc, test_slowloris);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_flood);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}
