/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay-perfdata: run every file of the perf.data corpus through the fuzz
 * entry (tests/fuzz-perfdata.c) and through the reader, checking what each
 * file's name promises:
 *   ok-*       opens and reads to the end, not partial
 *   partial-*  opens as a partial capture and reads to its last complete record
 *   bad-*      fails, at open or at a record, with a message naming the offset
 *   others     (files the fuzzer found) only must not crash
 *
 *   replay-perfdata [DIR|FILE...]      default: the source tree's corpus
 *   replay-perfdata --generate DIR     write the synthetic seeds into DIR
 *   replay-perfdata --dump FILE        what the reader finds in FILE (for
 *                                      tests/test-perfdata.sh): its events,
 *                                      formats, records, and the writes to
 *                                      fd 11 that the decoder sees
 *
 * Exit 0 when every promise holds, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* memmem */
#endif
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "perfdata.h"
#include "pd-synth.h"
#include "fuzz-perfdata.h"

#ifndef PERFDATA_CORPUS
#define PERFDATA_CORPUS "tests/perfdata-corpus"
#endif

static unsigned int nr_files, nr_failed;

static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *p = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;
	p = malloc((size_t)st.st_size + 1);
	if (p && read(fd, p, (size_t)st.st_size) != st.st_size) {
		free(p);
		p = NULL;
	}
	*len = (size_t)st.st_size;
out:
	if (fd >= 0)
		close(fd);
	return p;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* @return NULL when @path kept its name's promise, else what went wrong. */
static const char *check_promise(const char *path, const char *name, char *why, size_t whylen)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	int err, ret = 0;
	uint64_t n = 0;

	if (!r)
		return "out of memory";
	err = ipp_pd_reader__open(r, path);
	if (!err)
		while ((ret = ipp_pd_reader__next(r, &rec)) == 1)
			n++;
	why[0] = '\0';
	if (has_prefix(name, "ok-") || has_prefix(name, "partial-")) {
		bool partial = has_prefix(name, "partial-");

		if (err || ret)
			snprintf(why, whylen, "failed: %s", ipp_pd_reader__error(r));
		else if (ipp_pd_reader__info(r)->partial != partial)
			snprintf(why, whylen, "partial is %d", !partial);
		else if (!n)
			snprintf(why, whylen, "no records");
	} else if (has_prefix(name, "bad-")) {
		if (!err && !ret)
			snprintf(why, whylen, "read without error (%llu records)", (unsigned long long)n);
		else if ((err ? err : ret) != -EPROTO && (err ? err : ret) != -EINVAL)
			snprintf(why, whylen, "error %d is neither EPROTO nor EINVAL", err ? err : ret);
		else if (!strstr(ipp_pd_reader__error(r), ": offset "))
			snprintf(why, whylen, "error without an offset: %s", ipp_pd_reader__error(r));
		else
			printf("  %s\n", ipp_pd_reader__error(r));
	}
	ipp_pd_reader__delete(r);
	return why[0] ? why : NULL;
}

static void replay_file(const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char why[600];
	unsigned char *data;
	const char *bad;
	size_t len = 0;

	data = slurp(path, &len);
	if (!data) {
		printf("FAIL %s: cannot read: %s\n", path, strerror(errno));
		nr_failed++;
		return;
	}
	nr_files++;
	pd_fuzz_one(data, len);
	free(data);
	bad = check_promise(path, name, why, sizeof(why));
	if (bad) {
		printf("FAIL %s: %s\n", name, bad);
		nr_failed++;
	} else {
		printf("ok   %s (%zu bytes)\n", name, len);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_dir(const char *dir)
{
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("FAIL %s: %s\n", dir, strerror(errno));
		nr_failed++;
		return;
	}
	while ((de = readdir(d))) {
		char **p;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README"))
			continue;
		p = realloc(names, (nr + 1) * sizeof(*names));
		if (!p)
			break;
		names = p;
		names[nr++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		replay_file(path);
		free(names[i]);
	}
	free(names);
}

/* ------------------------------------------------------------------ seeds */

static int spill(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		fprintf(stderr, "replay-perfdata: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return close(fd);
}

/* Offset of the @k-th record of the capture in @img. */
static uint64_t nth_record(const unsigned char *img, size_t len, int k)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec = { 0 };

	ipp_pd_reader__open_mem(r, img, len);
	for (int i = 0; i <= k; i++)
		ipp_pd_reader__next(r, &rec);
	ipp_pd_reader__delete(r);
	return rec.offset;
}

static int generate(const char *dir)
{
	static const char blob[] = "seed payload";
	char path[4096];
	struct pds_opts o = { .nr_records = 60, .blob = blob, .blob_len = sizeof(blob) - 1 };
	unsigned char *img, *bad;
	size_t len;
	uint64_t off;
	int err = 0;

	snprintf(path, sizeof(path), "%s/ok-synthetic.data", dir);
	if (pds_write_capture(path, &o))
		return 1;
	img = slurp(path, &len);
	if (!img)
		return 1;
	bad = malloc(len);
	off = nth_record(img, len, 5);

	/* A killed writer: no feature table, half a record at the end. */
	{
		struct pds_opts k = { .nr_records = 30, .unfinished = true };
		unsigned char rec[256];
		size_t n = pds_record(30, rec, NULL);
		int fd;

		snprintf(path, sizeof(path), "%s/partial-killed.data", dir);
		if (pds_write_capture(path, &k))
			return 1;
		fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, rec, n / 2) != (ssize_t)(n / 2))
			return 1;
		close(fd);
	}
	err |= spill(dir, "bad-cut-75.data", img, len * 3 / 4);
	err |= spill(dir, "bad-cut-record.data", img, off + 20);
	memcpy(bad, img, len);
	memset(bad + off + 6, 0, 2);
	err |= spill(dir, "bad-record-size-0.data", bad, len);
	memcpy(bad, img, len);
	bad[off + 6] = 4;
	bad[off + 7] = 0;
	err |= spill(dir, "bad-record-size-4.data", bad, len);
	memcpy(bad, img, len);
	bad[off + 6] = 0xf8;
	bad[off + 7] = 0xff;
	err |= spill(dir, "bad-record-size-past-end.data", bad, len);
	memcpy(bad, img, len);
	memset(bad + off, 0, 4);
	err |= spill(dir, "bad-record-type-0.data", bad, len);
	memcpy(bad, img, len);
	memcpy(bad, "PERFILE3", 8);
	err |= spill(dir, "bad-magic.data", bad, len);
	memcpy(bad, img, len);
	memset(bad + 24, 0x7f, 8);	/* attrs.offset */
	err |= spill(dir, "bad-attrs-offset.data", bad, len);
	{
		uint64_t data_off, data_size, table;

		memcpy(&data_off, img + 40, 8);
		memcpy(&data_size, img + 48, 8);
		table = data_off + data_size;
		memcpy(bad, img, len);
		memset(bad + table + 8, 0x7f, 8);	/* first feature's size */
		err |= spill(dir, "bad-feature-size.data", bad, len);
		memcpy(bad, img, len);
		/* The tracing data is the first feature: break its magic. */
		{
			uint64_t toff;

			memcpy(&toff, img + table, 8);
			bad[toff] = 'X';
		}
		err |= spill(dir, "bad-tracing-magic.data", bad, len);
	}
	err |= spill(dir, "bad-empty.data", img, 0);
	err |= spill(dir, "bad-cut-8.data", img, 8);
	err |= spill(dir, "bad-cut-64.data", img, 64);
	err |= spill(dir, "bad-cut-256.data", img, 256);
	/* A format byte that is not text: libtraceevent 1.7.1 crashed on "comm[\xba6]". */
	{
		unsigned char *c;

		memcpy(bad, img, len);
		c = memmem(bad, len, "comm[16]", 8);
		if (c) {
			c[5] = 0xba;
			err |= spill(dir, "bad-format-not-text.data", bad, len);
		}
	}
	free(bad);
	free(img);
	return err ? 1 : 0;
}

/* ------------------------------------------------------------------ dump */

static int dump(const char *path)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_decoder *d = ipp_decoder__new();
	const struct ipp_pd_info *info;
	unsigned long long records = 0, samples = 0, unparsed = 0, writes11 = 0, bytes11 = 0;
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	const void *blob;
	size_t blen;
	uint32_t version;
	int ret;

	if (!r || !d || (ret = ipp_pd_reader__open(r, path))) {
		fprintf(stderr, "%s\n", r ? ipp_pd_reader__error(r) : strerror(ENOMEM));
		ipp_pd_reader__delete(r);
		ipp_decoder__delete(d);
		return 1;
	}
	info = ipp_pd_reader__info(r);
	printf("partial %s\n", info->partial ? "yes" : "no");
	for (size_t i = 0; i < ipp_pd_reader__nr_events(r); i++) {
		const struct ipp_pd_event *ev = ipp_pd_reader__event(r, i);

		printf("event %s ids %zu format %s\n", ev->name ? ev->name : "?", ev->nr_ids,
		       ev->format ? "yes" : "no");
	}
	for (size_t i = 0; i < ipp_pd_reader__nr_formats(r); i++) {
		const struct ipp_pd_format *f = ipp_pd_reader__format(r, i);

		ret = ipp_decoder__add_format(d, f->system, f->name, f->text, f->len);
		printf("format %s:%s id %d %s\n", f->system, f->name, f->id,
		       ret == f->id ? "decoded" : ret == -EINVAL ? "unknown to the decoder" : "refused");
	}
	if (ipp_pd_reader__blob(r, &version, &blob, &blen) == 0)
		printf("blob version %u: %.*s\n", version, (int)blen, (const char *)blob);
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		struct ipp_rec out;

		records++;
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (ipp_pd_reader__parse(r, &rec, &s) || !s.raw) {
			unparsed++;
			continue;
		}
		if (ipp_decoder__decode(d, s.raw, s.raw_size, &out) == 0 &&
		    out.kind == IPP_REC_SYS_ENTER && out.enter.sc && !strcmp(out.enter.sc->name, "write") &&
		    out.enter.args[0] == 11) {
			writes11++;
			bytes11 += out.enter.args[2];
		}
	}
	printf("records %llu samples %llu unparsed %llu\n", records, samples, unparsed);
	printf("writes fd 11: %llu, %llu bytes requested\n", writes11, bytes11);
	if (ret < 0)
		fprintf(stderr, "%s\n", ipp_pd_reader__error(r));
	ipp_pd_reader__delete(r);
	ipp_decoder__delete(d);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--generate"))
		return generate(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	if (argc < 2) {
		const char *src = getenv("top_srcdir");
		char dir[4096];

		if (src && *src) {
			snprintf(dir, sizeof(dir), "%s/tests/perfdata-corpus", src);
			replay_dir(dir);
		} else {
			replay_dir(PERFDATA_CORPUS);
		}
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			replay_dir(argv[i]);
		else
			replay_file(argv[i]);
	}
	printf("%u files, %u failed\n", nr_files, nr_failed);
	return nr_failed || !nr_files ? 1 : 0;
}
