/* Request paths as OTLP/JSON traces; their POST to a collector. */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <curl/curl.h>
#include "cli.h"
#include "otlpout.h"
#include "output.h"
#include "util.h"

/*
 * One span of a request: hop @hop's exchange as its caller made it (the
 * CLIENT span) or as its server held it (the SERVER span).
 */

/* The ids: a bijection of 64 bits (splitmix64's finalizer), so distinct inputs never collide. */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Span @k of request @req (two a hop: 2h its CLIENT span, 2h + 1 its SERVER span). */
static void span_id(char out[17], uint64_t seed, size_t req, size_t k)
{
	uint64_t id = mix(seed + ((uint64_t)req << 20) + k);

	snprintf(out, 17, "%016" PRIx64, id ? id : 1);
}

/* An attribute {"key": @key, "value": {@type: @v}}. */
static void attr(struct json *j, const char *key, const char *type, const char *v)
{
	json_object_begin(j, NULL);
	json_str(j, "key", key);
	json_object_begin(j, "value");
	json_str(j, type, v);
	json_object_end(j);
	json_object_end(j);
}

static void attr_str(struct json *j, const char *key, const char *v)
{
	attr(j, key, "stringValue", v);
}

/* An int64 attribute: OTLP/JSON writes 64-bit integers as decimal strings. */
static void attr_int(struct json *j, const char *key, int64_t v)
{
	char num[CLI_INT_LEN];

	snprintf(num, sizeof(num), "%" PRId64, v);
	attr(j, key, "intValue", num);
}

static void span_attrs(struct json *j, const struct paths_span *s)
{
	const struct ipcperf_path_hop *h = &s->p->hops[s->hop];

	json_array_begin(j, "attributes");
	attr_int(j, "thread.id", s->tid);
	attr_str(j, "network.transport", ipcperf_fd_kind_name(h->kind));
	attr_int(j, "ipcperf.fd", s->fd);
	attr_int(j, "ipcperf.bytes", (int64_t)(h->request_bytes + h->response_bytes));
	attr_int(j, "ipcperf.request_bytes", (int64_t)h->request_bytes);
	attr_int(j, "ipcperf.response_bytes", (int64_t)h->response_bytes);
	if (!s->server) {
		attr_int(j, "ipcperf.request_ns", (int64_t)h->request_ns);
		attr_int(j, "ipcperf.response_ns", (int64_t)h->response_ns);
	} else {
		attr_int(j, "ipcperf.self_ns", (int64_t)h->self_ns);
		if (h->split) {
			attr_int(j, "ipcperf.cpu_ns", (int64_t)h->cpu_ns);
			attr_int(j, "ipcperf.runq_ns", (int64_t)h->runq_ns);
			attr_int(j, "ipcperf.blocked_ns", (int64_t)h->blocked_ns);
		}
	}
	json_array_end(j);
}

static void put_time(struct json *j, const char *key, uint64_t mono_ns, int64_t real_minus_mono)
{
	char num[CLI_INT_LEN];

	snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)((int64_t)mono_ns + real_minus_mono));
	json_str(j, key, num);
}

static void put_span(struct json *j, const struct paths_span *s, int64_t real_minus_mono, uint64_t seed)
{
	const struct ipcperf_path_hop *h = &s->p->hops[s->hop];
	char tid[33], id[17], name[2 * IPCPERF_COMM_LEN + 8];

	snprintf(tid, sizeof(tid), "%016" PRIx64 "%016" PRIx64, seed, mix(seed ^ mix(s->req)));
	json_object_begin(j, NULL);
	json_str(j, "traceId", tid);
	span_id(id, seed, s->req, 2 * s->hop + s->server);
	json_str(j, "spanId", id);
	/* A server span under its caller's client span; a client span under the caller's server span. */
	if (s->server || h->parent >= 0) {
		span_id(id, seed, s->req, s->server ? 2 * s->hop : 2 * (size_t)h->parent + 1);
		json_str(j, "parentSpanId", id);
	}
	snprintf(name, sizeof(name), s->server ? "%s" : "call %s", *h->comm ? h->comm : "?");
	json_str(j, "name", name);
	json_i64(j, "kind", s->server ? 2 : 3);	/* SPAN_KIND_SERVER, SPAN_KIND_CLIENT */
	put_time(j, "startTimeUnixNano", s->start_ns, real_minus_mono);
	put_time(j, "endTimeUnixNano", s->end_ns, real_minus_mono);
	span_attrs(j, s);
	json_object_end(j);
}

/* The spans of process @pid of host @host, over every request. */
static void put_spans(struct json *j, const struct pathsout *po, unsigned int host, pid_t pid,
		      int64_t real_minus_mono, uint64_t seed)
{
	struct paths_span s;

	json_array_begin(j, "spans");
	for (size_t r = 0; r < pathsout_nr_requests(po); r++) {
		const struct ipcperf_path *p = pathsout_request(po, r);

		for (size_t k = 0; k < 2 * p->nr_hops; k++) {
			paths_span_of(&s, p, r, k / 2, k % 2);
			if (s.pid == pid && s.host == host)
				put_span(j, &s, real_minus_mono, seed);
		}
	}
	json_array_end(j);
}

static void put_resource(struct json *j, const struct pathsout *po, const struct paths_span *first,
			 int64_t real_minus_mono, uint64_t seed)
{
	json_object_begin(j, NULL);
	json_object_begin(j, "resource");
	json_array_begin(j, "attributes");
	attr_str(j, "service.name", *first->comm ? first->comm : "?");
	attr_int(j, "process.pid", first->pid);
	if (pathsout_host(po, first->host))
		attr_str(j, "host.name", pathsout_host(po, first->host));
	json_array_end(j);
	json_object_end(j);
	json_array_begin(j, "scopeSpans");
	json_object_begin(j, NULL);
	json_object_begin(j, "scope");
	json_str(j, "name", "ipcperf");
	json_str(j, "version", PACKAGE_VERSION);
	json_object_end(j);
	put_spans(j, po, first->host, first->pid, real_minus_mono, seed);
	json_object_end(j);
	json_array_end(j);
	json_object_end(j);
}

/*
 * The first span of each process, in the order the processes first appear:
 * an array freed by the caller, of *@n. @return NULL when out of memory.
 */
static struct paths_span *processes(const struct pathsout *po, size_t *n)
{
	struct paths_span s, *v = NULL;
	size_t cap = 0, i;

	*n = 0;
	for (size_t r = 0; r < pathsout_nr_requests(po); r++) {
		const struct ipcperf_path *p = pathsout_request(po, r);

		for (size_t k = 0; k < 2 * p->nr_hops; k++) {
			paths_span_of(&s, p, r, k / 2, k % 2);
			for (i = 0; i < *n && (v[i].pid != s.pid || v[i].host != s.host); i++)
				;
			if (i < *n)
				continue;
			if (cli_grow((void **)&v, &cap, *n + 1, sizeof(*v)) < 0) {
				free(v);
				return NULL;
			}
			v[(*n)++] = s;
		}
	}
	return v;
}

int otlpout_write(FILE *f, const struct pathsout *po, int64_t real_minus_mono, uint64_t seed)
{
	size_t n;
	struct paths_span *procs = processes(po, &n);
	struct json j;

	if (!procs && pathsout_nr_requests(po))
		return -1;
	json_init(&j, f, false);
	json_object_begin(&j, NULL);
	json_array_begin(&j, "resourceSpans");
	for (size_t i = 0; i < n; i++)
		put_resource(&j, po, &procs[i], real_minus_mono, seed);
	json_array_end(&j);
	json_object_end(&j);
	json_end_document(&j);
	free(procs);
	return 0;
}

char *otlpout_doc(const struct pathsout *po, int64_t real_minus_mono, size_t *len)
{
	uint64_t seed = 0;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	int err;

	if (!m)
		return NULL;
	/* Ids of one run apart from another's; without randomness, the clock's. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)real_minus_mono ^ (uint64_t)time(NULL);
	err = otlpout_write(m, po, real_minus_mono, seed);
	if (fclose(m) != 0 || err < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ OTLP/HTTP */

/* The collector's answer is not ours to show: only its status is. */
static size_t discard(char *ptr, size_t size, size_t n, void *ctx)
{
	(void)ptr, (void)ctx;
	return size * n;
}

int otlpout_post(const char *url, const char *body, size_t len)
{
	char err[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
	CURL *c;
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	long status = 0;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(c = curl_easy_init())) {
		cli_err("cannot POST the traces to %s: libcurl did not start", url);
		return -1;
	}
	hdr = curl_slist_append(NULL, "Content-Type: application/json");
	if (hdr) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
		rc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	curl_global_cleanup();
	if (rc != CURLE_OK)
		cli_err("cannot POST the traces to %s: %s", url, *err ? err : curl_easy_strerror(rc));
	else if (status < 200 || status > 299)
		cli_err("cannot POST the traces to %s: the collector answered HTTP %ld", url, status);
	return rc == CURLE_OK && status >= 200 && status <= 299 ? 0 : -1;
}
