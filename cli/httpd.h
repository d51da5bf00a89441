/*
 * A minimal HTTP server for GET /metrics, run inside the capture loop: one
 * thread, non-blocking sockets behind one epoll fd, at most 128 connections,
 * each closed after its response (HTTP/1.0 style). A connection that has not
 * sent its whole request head (8 KiB at most) 2 s after accept is dropped,
 * one not answered whole in 10 s too; one that sends nothing waits in the
 * kernel's queue for 1 s first, taking no slot. When all 128 are taken, a
 * new one evicts the oldest still sending its request, read one last time:
 * a request come whole is answered, never dropped. So slow, silent or
 * flooding clients never hold the capture up, nor keep a scraper out.
 */
#ifndef IPCPERF_CLI_HTTPD_H
#define IPCPERF_CLI_HTTPD_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include "metrics.h"

struct pollfd;
struct httpd;

/* Most pollfds httpd_pollfds() asks for: one, the epoll of every socket. */
#define HTTPD_MAX_FDS 1

/* Write the body of GET /metrics in @fmt to @f. @return 0, or -errno (then a 500). */
typedef int (*httpd_body_fn)(void *ctx, FILE *f, enum metrics_format fmt);

/*
 * Parse what --listen was given: "PORT" (on 127.0.0.1), "ADDR:PORT" or
 * "[ADDR]:PORT" (an IPv4 or IPv6 address, or a host name such as
 * localhost). PORT may be 0: the kernel picks one.
 * @return 0, or -1 after printing a usage error.
 */
int httpd_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

/*
 * Listen on @ss, answering with @body (called with @ctx at each request).
 * @return the server, freed with httpd_delete(); NULL after printing why
 *   in one line (the address in use, no permission, ...).
 */
struct httpd *httpd_new(const struct sockaddr_storage *ss, socklen_t len, httpd_body_fn body,
			void *ctx);
/* Close the listener and every connection. Accepts NULL. */
void httpd_delete(struct httpd *h);

/* "http://127.0.0.1:9100/metrics", with the port the kernel picked for 0. */
const char *httpd_url(const struct httpd *h);

/*
 * For the caller's poll(): fill at most @max entries of @fds (drops the
 * connections whose deadline passed first). @return how many.
 */
unsigned int httpd_pollfds(struct httpd *h, struct pollfd *fds, unsigned int max);
/* After poll(): serve what is ready in the @n entries httpd_pollfds() filled. */
void httpd_ready(struct httpd *h, const struct pollfd *fds, unsigned int n);

/* How many responses to GET /metrics were sent whole so far. */
unsigned long httpd_served(const struct httpd *h);

/*
 * Serve on (own poll loop) until one more /metrics response is sent whole,
 * @ms pass, or a signal interrupts the wait.
 * @return true when that response was sent.
 */
bool httpd_linger(struct httpd *h, unsigned int ms);
#endif
