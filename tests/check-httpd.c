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
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <check.h>

#include "cli.h"
#include "httpd.h"
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
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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

Suite *httpd_suite(void)
{
	Suite *s = suite_create("httpd");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_metrics);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_addresses);
	suite_add_tcase(s, tc);
	return s;
}
