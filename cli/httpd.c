/* A minimal HTTP server for GET /metrics inside the capture loop (httpd.h). */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "httpd.h"
#include "util.h"

/*
 * The defence against slow clients (a slowloris sends a byte a second to
 * hold a slot) and floods (thousands of connects a second): a deadline on
 * the whole request from accept, not reset by each byte; a connection that
 * sends nothing stays in the kernel, not in a slot, for a while; and when
 * every slot is taken one that is still sending its request makes room for
 * the new one, after a last read that answers it if its request came whole.
 * So a scraper, whose request takes a millisecond, always gets in and is
 * answered.
 */
#define MAX_CONNS 128
/* A scraper's request is a few hundred bytes: anything past this is not one. */
#define MAX_REQUEST 8192
/* From accept to the end of the request head: a client slower than this is dropped. */
#define REQUEST_MS 2000
/* From accept to the last byte of the response. */
#define CONN_MS 10000
/* Well past the slots: a burst of reconnects between two polls (25 ms) must
 * not fill it, or the kernel drops a scraper's SYN, which it resends 1 s later. */
#define BACKLOG 1024
/* TCP_DEFER_ACCEPT: the kernel hands a connection over at its first byte, or
 * this long after the connect if none came (then REQUEST_MS more). */
#define DEFER_S 1

struct conn {
	int fd;				/* -1: a free slot */
	uint64_t accepted_ms;
	unsigned long nth;		/* accepted nth: a flood takes hundreds in one ms */
	bool out;			/* waited on for POLLOUT (answered, sending) */
	char req[MAX_REQUEST + 1];
	size_t req_len;
	char *resp;			/* the whole response while it is being sent */
	size_t resp_len, resp_off;
	bool scrape;			/* a 200 to GET /metrics: counted once sent whole */
};

struct httpd {
	int fd;
	int ep;				/* epoll of the listener (data 0) and conns[i] (i + 1) */
	httpd_body_fn body;
	void *ctx;
	char url[96];
	unsigned long served, accepted;
	struct conn conns[MAX_CONNS];
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ the address */

static void addr_usage(const char *spec)
{
	cli_err("invalid address '%s' for --listen: give PORT (on 127.0.0.1), ADDR:PORT or "
		"[IPV6]:PORT, e.g. --listen 127.0.0.1:9633 (0.0.0.0:PORT listens on every "
		"interface)", spec);
}

int httpd_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char host[256] = "127.0.0.1";
	const char *port, *colon;
	double num;
	int err;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || end[1] != ':' || (size_t)(end - spec - 1) >= sizeof(host) || end == spec + 1) {
			addr_usage(spec);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(end - spec - 1), spec + 1);
		port = end + 2;
		hints.ai_family = AF_INET6;
	} else if ((colon = strrchr(spec, ':'))) {
		if (colon == spec || memchr(spec, ':', (size_t)(colon - spec)) ||
		    (size_t)(colon - spec) >= sizeof(host)) {
			addr_usage(spec);	/* ":PORT", or an IPv6 address without brackets */
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = colon + 1;
	} else {
		port = spec;
	}
	if (cli_parse_number(port, false, 65535, &num) < 0) {
		addr_usage(spec);
		return -1;
	}
	err = getaddrinfo(host, port, &hints, &res);
	if (err || !res) {
		cli_err("cannot use '%s' for --listen: %s: %s", spec, host,
			err == EAI_SYSTEM ? strerror(errno) : gai_strerror(err));
		if (res)
			freeaddrinfo(res);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* "127.0.0.1:9633", "[::1]:9633". */
static void addr_str(const struct sockaddr_storage *ss, socklen_t len, char *buf, size_t size)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, size, "?");
		return;
	}
	snprintf(buf, size, ss->ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* ------------------------------------------------------------------ the server */

struct httpd *httpd_new(const struct sockaddr_storage *ss, socklen_t len, httpd_body_fn body,
			void *ctx)
{
	struct httpd *h = calloc(1, sizeof(*h));
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	char where[80];
	int one = 1;

	addr_str(ss, len, where, sizeof(where));
	if (!h) {
		cli_err("cannot listen on %s: %s", where, strerror(errno));
		return NULL;
	}
	h->body = body;
	h->ctx = ctx;
	for (int i = 0; i < MAX_CONNS; i++)
		h->conns[i].fd = -1;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	h->fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->ep < 0 || h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(h->fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &(int){ DEFER_S },
		       sizeof(int)) < 0 ||
	    bind(h->fd, (const struct sockaddr *)ss, len) < 0 || listen(h->fd, BACKLOG) < 0 ||
	    getsockname(h->fd, (struct sockaddr *)&bound, &blen) < 0 ||
	    epoll_ctl(h->ep, EPOLL_CTL_ADD, h->fd,
		      &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 0 }) < 0) {
		int err = errno;

		if (err == EADDRINUSE)
			cli_err("cannot listen on %s: %s: another program has that port; give "
				"--listen another one", where, strerror(err));
		else
			cli_err("cannot listen on %s: %s", where, strerror(err));
		httpd_delete(h);
		return NULL;
	}
	addr_str(&bound, blen, where, sizeof(where));
	snprintf(h->url, sizeof(h->url), "http://%s/metrics", where);
	return h;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->resp);
	c->fd = -1;
	c->resp = NULL;
	c->req_len = c->resp_len = c->resp_off = 0;
	c->scrape = c->out = false;
}

void httpd_delete(struct httpd *h)
{
	if (!h)
		return;
	for (int i = 0; i < MAX_CONNS; i++)
		conn_close(&h->conns[i]);
	if (h->fd >= 0)
		close(h->fd);
	if (h->ep >= 0)
		close(h->ep);
	free(h);
}

const char *httpd_url(const struct httpd *h)
{
	return h->url;
}

unsigned long httpd_served(const struct httpd *h)
{
	return h->served;
}

/* ------------------------------------------------------------------ requests */

/* Queue a whole response on @c; a HEAD gets the headers only. */
static void respond(struct conn *c, const char *status, const char *ctype, const char *extra,
		    const char *body, size_t body_len, bool head)
{
	FILE *f = open_memstream(&c->resp, &c->resp_len);

	if (!f) {
		c->resp = NULL;
		conn_close(c);
		return;
	}
	fprintf(f, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		   "Connection: close\r\n\r\n", status, ctype, body_len, extra ? extra : "");
	if (!head && body_len)
		fwrite(body, 1, body_len, f);
	if (fclose(f) != 0) {
		conn_close(c);
		return;
	}
	c->resp_off = 0;
}

static void respond_text(struct conn *c, const char *status, const char *extra, const char *text,
			 bool head)
{
	respond(c, status, "text/plain; charset=utf-8", extra, text, strlen(text), head);
}

/* The value of header @name in the request head @req, or NULL; @len gets its length. */
static const char *header(const char *req, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *l = strchr(req, '\n'); l; l = strchr(l, '\n')) {
		l++;
		if (!strncasecmp(l, name, n) && l[n] == ':') {
			const char *v = l + n + 1, *end;

			v += strspn(v, " \t");
			end = v + strcspn(v, "\r\n");
			*len = (size_t)(end - v);
			return v;
		}
	}
	return NULL;
}

/*
 * Prometheus asks for OpenMetrics first (Accept: application/openmetrics-text;
 * version=1.0.0, ..., text/plain;version=0.0.4;q=0.5): it gets OpenMetrics
 * when it names it; everyone else, and a curl with no preference, gets the
 * text format.
 */
static enum metrics_format negotiate(const char *req)
{
	size_t len = 0;
	const char *accept = header(req, "Accept", &len);
	static const char om[] = "application/openmetrics-text";

	for (size_t i = 0; accept && i + sizeof(om) - 1 <= len; i++)
		if (!strncasecmp(accept + i, om, sizeof(om) - 1))
			return METRICS_OPENMETRICS;
	return METRICS_TEXT;
}

/*
 * What is wrong with the request's Content-Length (RFC 9112, 6.3), or NULL:
 * every value, in one field or in several, as a list ("0, 0") or not, must
 * be the same number. Two that differ are how a request is smuggled past a
 * proxy that reads the other one, so they are refused, not guessed between.
 */
static const char *length_error(const char *req)
{
	static const char name[] = "Content-Length:";
	const char *first = NULL;
	size_t first_len = 0;

	/* Each header line up to the blank one that ends the head. */
	for (const char *l = strchr(req, '\n'); l && l[1] && l[1] != '\r' && l[1] != '\n';
	     l = strchr(l + 1, '\n')) {
		const char *v = l + 1;

		if (strncasecmp(v, name, sizeof(name) - 1))
			continue;
		for (v += sizeof(name) - 1;; v++) {
			size_t digits, zeros;

			v += strspn(v, " \t");
			digits = strspn(v, "0123456789");
			if (!digits)
				return "Content-Length is not a number";
			zeros = strspn(v, "0");
			if (zeros == digits)
				zeros--;	/* "000" is 0 */
			if (first && (digits - zeros != first_len || memcmp(v + zeros, first, first_len)))
				return "two Content-Length values that differ";
			first = v + zeros;
			first_len = digits - zeros;
			v += digits + strspn(v + digits, " \t");
			if (*v != ',')
				break;
		}
		if (*v != '\r' && *v != '\n')
			return "Content-Length is not a number";
	}
	return NULL;
}

static void handle(struct httpd *h, struct conn *c)
{
	char method[16], target[256], text[80];
	const char *p = c->req, *sp1, *sp2, *why;
	size_t path_len;
	bool head;

	sp1 = strchr(p, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || (size_t)(sp1 - p) >= sizeof(method) || strncmp(sp2 + 1, "HTTP/", 5)) {
		respond_text(c, "400 Bad Request", NULL, "bad request\n", false);
		return;
	}
	if ((why = length_error(c->req))) {
		snprintf(text, sizeof(text), "bad request: %s\n", why);
		respond_text(c, "400 Bad Request", NULL, text, false);
		return;
	}
	if ((size_t)(sp2 - sp1 - 1) >= sizeof(target)) {
		respond_text(c, "414 URI Too Long", NULL, "not found: the metrics are at /metrics\n",
			     false);
		return;
	}
	snprintf(method, sizeof(method), "%.*s", (int)(sp1 - p), p);
	snprintf(target, sizeof(target), "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		respond_text(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n",
			     "only GET /metrics is served here\n", false);
		return;
	}
	path_len = strcspn(target, "?");
	if (path_len != 8 || strncmp(target, "/metrics", 8)) {
		respond_text(c, "404 Not Found", NULL, "not found: the metrics are at /metrics\n",
			     head);
		return;
	}
	{
		enum metrics_format fmt = negotiate(c->req);
		char *body = NULL;
		size_t body_len = 0;
		FILE *f = open_memstream(&body, &body_len);
		int err = f ? h->body(h->ctx, f, fmt) : -errno;

		if (f && fclose(f) != 0 && !err)
			err = -ENOMEM;
		if (err) {
			respond_text(c, "500 Internal Server Error", NULL,
				     "cannot collect the metrics\n", head);
		} else {
			respond(c, "200 OK", metrics_content_type(fmt), NULL, body, body_len, head);
			c->scrape = !head;
		}
		free(body);
	}
}

/*
 * Whether the request head ended ("\r\n\r\n", or "\n\n" from a lax client)
 * in what came since @old bytes: a byte at a time costs no more than a read.
 */
static bool head_ended(const struct conn *c, size_t old)
{
	const char *from = c->req + (old > 3 ? old - 3 : 0);

	return strstr(from, "\r\n\r\n") || strstr(from, "\n\n");
}

static void conn_read(struct httpd *h, struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->req + c->req_len, MAX_REQUEST - c->req_len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_close(c);	/* gone before asking anything whole */
			return;
		}
		c->req_len += (size_t)n;
		c->req[c->req_len] = '\0';
		if (memchr(c->req + c->req_len - n, '\0', (size_t)n)) {
			respond_text(c, "400 Bad Request", NULL, "bad request\n", false);
			return;
		}
		if (head_ended(c, c->req_len - (size_t)n)) {
			handle(h, c);
			return;
		}
		if (c->req_len == MAX_REQUEST) {
			respond_text(c, "431 Request Header Fields Too Large", NULL,
				     "request too large\n", false);
			return;
		}
	}
}

static void conn_write(struct httpd *h, struct conn *c)
{
	while (c->resp_off < c->resp_len) {
		ssize_t n = send(c->fd, c->resp + c->resp_off, c->resp_len - c->resp_off,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			conn_close(c);
			return;
		}
		c->resp_off += (size_t)n;
	}
	if (c->scrape)
		h->served++;
	shutdown(c->fd, SHUT_WR);
	conn_close(c);
}

/* Read or write @c, as epoll said it can. */
static void conn_ready(struct httpd *h, struct conn *c)
{
	if (c->fd < 0)
		return;	/* closed earlier in this round */
	if (!c->resp)
		conn_read(h, c);
	/* Answered now: try to send at once, most responses fit the socket. */
	if (c->fd >= 0 && c->resp)
		conn_write(h, c);
	if (c->fd >= 0 && c->resp && !c->out) {
		c->out = true;
		if (epoll_ctl(h->ep, EPOLL_CTL_MOD, c->fd, &(struct epoll_event){
				.events = EPOLLOUT, .data.u32 = (uint32_t)(c - h->conns) + 1 }) < 0)
			conn_close(c);
	}
}

/*
 * Which connection gives its slot up first, lowest first: one that sent part
 * of a request head (a scraper sends its request in one piece, so this is
 * not one), then one the loop has read nothing from (silent for DEFER_S,
 * or its bytes not read yet: free_slot() reads them), and only when every
 * slot is answering, one whose client does not read its response.
 */
static int evict_rank(const struct conn *c)
{
	if (c->resp)
		return 2;
	return c->req_len ? 0 : 1;
}

/* A free slot, else the connection to evict: the lowest rank, the oldest within it. */
static struct conn *victim(struct httpd *h)
{
	struct conn *v = NULL;

	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd < 0)
			return c;
		if (!v || evict_rank(c) < evict_rank(v) ||
		    (evict_rank(c) == evict_rank(v) && c->nth < v->nth))
			v = c;
	}
	return v;
}

/*
 * A slot for a new connection. Under a flood the one to evict may hold a
 * whole request the loop has not read yet (it came in the same round as the
 * flood): it is read first, and answered if whole, never dropped unanswered.
 * Each turn frees a slot or answers one more request: MAX_CONNS turns at most.
 */
static struct conn *free_slot(struct httpd *h)
{
	for (;;) {
		struct conn *c = victim(h);

		if (c->fd >= 0 && !c->resp) {
			conn_ready(h, c);
			if (c->fd < 0 || c->resp)
				continue;	/* its slot is free now, or it is being answered */
		}
		if (c->fd >= 0)
			conn_close(c);
		return c;
	}
}

/* At most what the listen queue holds: a flood faster than that cannot keep the loop here. */
static void accept_all(struct httpd *h)
{
	for (int i = 0; i < BACKLOG; i++) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;	/* EAGAIN: all taken; anything else: the next poll says again */
		c = free_slot(h);
		c->fd = fd;
		c->accepted_ms = now_ms();
		c->nth = h->accepted++;
		if (epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &(struct epoll_event){
				.events = EPOLLIN, .data.u32 = (uint32_t)(c - h->conns) + 1 }) < 0)
			conn_close(c);
	}
}

static uint64_t deadline(const struct conn *c)
{
	return c->accepted_ms + (c->resp ? CONN_MS : REQUEST_MS);
}

/* Drop the connections past their deadline; @return the next deadline, or UINT64_MAX. */
static uint64_t expire(struct httpd *h, uint64_t now)
{
	static const char late[] = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd < 0)
			continue;
		if (now < deadline(c)) {
			next = deadline(c) < next ? deadline(c) : next;
			continue;
		}
		if (!c->resp)	/* tell a human at a telnet why, if the socket takes it */
			(void)!send(c->fd, late, sizeof(late) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		conn_close(c);
	}
	return next;
}

unsigned int httpd_pollfds(struct httpd *h, struct pollfd *fds, unsigned int max)
{
	expire(h, now_ms());
	if (!max)
		return 0;
	fds[0] = (struct pollfd){ .fd = h->ep, .events = POLLIN };
	return 1;
}

void httpd_ready(struct httpd *h, const struct pollfd *fds, unsigned int n)
{
	struct epoll_event ev[MAX_CONNS + 1];
	bool listener = false;
	int got;

	if (!n || fds[0].fd != h->ep || !fds[0].revents)
		return;
	got = epoll_wait(h->ep, ev, MAX_CONNS + 1, 0);
	for (int k = 0; k < got; k++) {
		if (ev[k].data.u32 == 0)
			listener = true;
		else if (ev[k].data.u32 <= MAX_CONNS)
			conn_ready(h, &h->conns[ev[k].data.u32 - 1]);
	}
	/* The requests that came whole are answered before new connections take slots. */
	if (listener)
		accept_all(h);
}

bool httpd_linger(struct httpd *h, unsigned int ms)
{
	unsigned long before = h->served;
	uint64_t end = now_ms() + ms;

	while (h->served == before) {
		struct pollfd fds[HTTPD_MAX_FDS];
		uint64_t now = now_ms(), next;
		unsigned int n;

		if (now >= end)
			return false;
		n = httpd_pollfds(h, fds, HTTPD_MAX_FDS);
		/* Wake for the connections' deadlines too. */
		next = expire(h, now);
		next = next < end ? next : end;
		if (poll(fds, n, next > now ? (int)(next - now) : 0) < 0) {
			if (errno == EINTR)
				return false;	/* SIGINT, SIGTERM: the user wants out */
			continue;
		}
		httpd_ready(h, fds, n);
	}
	return true;
}
