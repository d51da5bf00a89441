/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of perfdata.c, the perf.data writer and reader. No kernel, no
 * root: captures are synthetic (tests/pd-synth.h) and written to a temporary
 * directory. What comes back must equal what went in (attrs, ids, formats,
 * records byte for byte, the ipcperf section), a capture whose writer never
 * finished must read up to its last complete record, and every truncation
 * and corruption must give one error naming the file offset (and the record
 * type when a record is at fault), never a crash. The same records compressed
 * as perf record -z writes them (tests/pd-zsynth.h) read back the same, and
 * compressed data that is corrupt, cut or a bomb is one error too. Run under
 * ASan as well.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "internal.h"
#include "capture/perfdata.h"
#include "pd-synth.h"
#include "pd-zsynth.h"
#include "capture/record.h"
#include "fd/identlog.h"
#include "suites.h"
#include "pipeline/decode.h"

static char tmpdir[] = "/tmp/ipcperf-pd.XXXXXX";
static char path[256];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/ipcperf-pd.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/capture.data", tmpdir);
}

static void teardown(void)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/capture.data", tmpdir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/cut.data", tmpdir);
	unlink(p);
	rmdir(tmpdir);
}

static unsigned char *slurp(const char *file, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(file, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void spill(const char *file, const void *data, size_t len)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static const char blob[] = "fd identities, counters: 32 byte";	/* 32 bytes: no padding */

static void write_synth(uint64_t n, bool with_blob, bool unfinished)
{
	struct pds_opts o = {
		.nr_records = n, .blob = with_blob ? blob : NULL, .blob_len = sizeof(blob) - 1,
		.unfinished = unfinished,
	};

	ck_assert_int_eq(pds_write_capture(path, &o), 0);
}

/* Open @data in memory or, with @file, from a copy on disk. */
static int open_image(struct ipp_pd_reader *r, const unsigned char *data, size_t len, bool file)
{
	char cut[300];

	if (!file)
		return ipp_pd_reader__open_mem(r, data, len);
	snprintf(cut, sizeof(cut), "%s/cut.data", tmpdir);
	spill(cut, data, len);
	return ipp_pd_reader__open(r, cut);
}

/* The message names an offset as "offset 0x...", 0 included. */
static void assert_offset_msg(const struct ipp_pd_reader *r)
{
	const char *msg = ipp_pd_reader__error(r);

	ck_assert_msg(strstr(msg, ": offset 0x"), "no offset in error '%s'", msg);
}

/*
 * An assertion for hot loops: libcheck reports the location of every passing
 * ck_assert to its parent process (a write per call), which made the large
 * round trip spend seconds in write(2).
 */
#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			ck_abort_msg("Assertion '%s' failed", #cond);	\
	} while (0)

/* ------------------------------------------------------------------ round trip */

/*
 * Every record the reader gives back is the next of the sequence, with a
 * FINISHED_ROUND after every PDS_ROUND; samples and trailers parse to the
 * values that went in. @return the number of sequence records seen.
 */
static uint64_t check_sequence(struct ipp_pd_reader *r, uint64_t expect_n, bool exact)
{
	struct ipp_pd_rec rec;
	struct ipp_pd_sample s;
	unsigned char buf[256];
	uint64_t i = 0, since_round = 0;
	int ret;

	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		struct pds_rec_info in;
		size_t n;

		if (since_round == PDS_ROUND) {
			CHECK(rec.type == IPP_PD_RECORD_FINISHED_ROUND);
			CHECK(rec.size == 8);
			CHECK(ipp_pd_reader__parse(r, &rec, &s) == -ENOENT);
			since_round = 0;
			continue;
		}
		n = pds_record(i, buf, &in);
		CHECK(rec.size == n);
		CHECK(rec.type == in.type);
		if (memcmp(rec.data, buf, n))
			ck_abort_msg("record %llu differs", (unsigned long long)i);
		CHECK(ipp_pd_reader__parse(r, &rec, &s) == 0);
		CHECK(s.pid == in.pid);
		CHECK(s.tid == in.tid);
		CHECK(s.time == in.time);
		CHECK(s.cpu == in.cpu);
		if (in.type == PERF_RECORD_SAMPLE) {
			CHECK(s.event == ipp_pd_reader__event(r, in.ev));
			CHECK(s.id == pds_kid(in.ev, in.cpu));
			CHECK(s.raw != NULL);
			CHECK(s.raw == (const unsigned char *)rec.data + 44);
			CHECK(s.raw_size == rec.size - 44);
		} else {
			CHECK(s.event == ipp_pd_reader__event(r, 0));
			CHECK(s.raw == NULL);
		}
		i++;
		since_round++;
	}
	ck_assert_msg(ret == 0, "iteration failed: %s", ipp_pd_reader__error(r));
	if (exact)
		ck_assert_uint_eq(i, expect_n);
	/* The end stays the end. */
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 0);
	return i;
}

static void check_metadata(struct ipp_pd_reader *r)
{
	const struct ipp_pd_info *info = ipp_pd_reader__info(r);

	ck_assert_ptr_nonnull(info);
	ck_assert(info->has_tracing_data);
	ck_assert_uint_eq(ipp_pd_reader__nr_events(r), PDS_NR_EVENTS);
	ck_assert_uint_eq(ipp_pd_reader__nr_formats(r), PDS_NR_EVENTS);
	for (unsigned int i = 0; i < PDS_NR_EVENTS; i++) {
		const struct ipp_pd_event *ev = ipp_pd_reader__event(r, i);
		struct perf_event_attr a;
		char name[64];

		ck_assert_ptr_nonnull(ev);
		pds_attr(&a, i);
		a.size = IPP_PD_ATTR_SIZE;
		ck_assert_uint_eq(ev->file_attr_size, IPP_PD_ATTR_SIZE);
		ck_assert(memcmp(&ev->attr, &a, sizeof(a)) == 0);
		ck_assert_uint_eq(ev->nr_ids, PDS_NR_CPUS);
		for (unsigned int c = 0; c < PDS_NR_CPUS; c++) {
			ck_assert_uint_eq(ev->ids[c], pds_kid(i, c));
			ck_assert_ptr_eq(ipp_pd_reader__event_by_id(r, pds_kid(i, c)), ev);
		}
		snprintf(name, sizeof(name), "%s:%s", pds_events[i].system, pds_events[i].name);
		ck_assert_str_eq(ev->name, name);
		ck_assert_ptr_nonnull(ev->format);
		ck_assert_str_eq(ev->format->system, pds_events[i].system);
		ck_assert_str_eq(ev->format->name, pds_events[i].name);
		ck_assert_int_eq(ev->format->id, pds_events[i].id);
		ck_assert_str_eq(ev->format->text, pds_events[i].format);
		ck_assert_uint_eq(ev->format->len, strlen(pds_events[i].format));
	}
	ck_assert_ptr_null(ipp_pd_reader__event_by_id(r, 1));
	ck_assert_ptr_null(ipp_pd_reader__event(r, PDS_NR_EVENTS));
}

START_TEST(test_roundtrip)
{
	const uint64_t n = 300;
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	const struct ipp_pd_info *info;
	unsigned char *img;
	const void *data;
	uint32_t version;
	size_t len, blen;
	struct stat st;

	write_synth(n, true, false);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	img = slurp(path, &len);
	for (int pass = 0; pass < 2; pass++) {
		ck_assert_ptr_nonnull(r);
		if (pass == 0)
			ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
		else
			ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
		ck_assert_int_eq(ipp_pd_reader__open(r, path), -EBUSY);
		check_metadata(r);
		info = ipp_pd_reader__info(r);
		ck_assert(!info->partial);
		ck_assert(info->has_blob);
		ck_assert_uint_eq(info->file_size, len);
		ck_assert_uint_eq(info->nr_cpus_avail, PDS_NR_CPUS);
		ck_assert_uint_eq(info->nr_cpus_online, PDS_NR_CPUS);
		ck_assert_str_eq(info->hostname, "testhost");
		ck_assert_str_eq(info->osrelease, "6.18.0-test");
		ck_assert_str_eq(info->arch, "x86_64");
		ck_assert_int_eq(ipp_pd_reader__blob(r, &version, &data, &blen), 0);
		ck_assert_uint_eq(version, 7);
		ck_assert_uint_eq(blen, sizeof(blob) - 1);
		ck_assert(memcmp(data, blob, blen) == 0);
		check_sequence(r, n, true);
		/* A second pass gives the same records. */
		ck_assert_int_eq(ipp_pd_reader__rewind(r), 0);
		check_sequence(r, n, true);
		ipp_pd_reader__delete(r);
		r = ipp_pd_reader__new();
	}
	ipp_pd_reader__delete(r);
	free(img);
}
END_TEST

/* Large enough that the file reader's window (1 MiB) moves many times. */
START_TEST(test_roundtrip_large)
{
	const uint64_t n = 200000;
	struct ipp_pd_reader *r = ipp_pd_reader__new();

	write_synth(n, false, false);
	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	ck_assert(ipp_pd_reader__info(r)->data_size > 12u << 20);
	check_sequence(r, n, true);
	ck_assert_int_eq(ipp_pd_reader__blob(r, NULL, NULL, NULL), -ENOENT);
	/* Again, from the first window. */
	ck_assert_int_eq(ipp_pd_reader__rewind(r), 0);
	check_sequence(r, n, true);
	ipp_pd_reader__delete(r);
}
END_TEST

/* The file is cut while being read (past the window in use): an error, not a crash. */
START_TEST(test_file_shrinks)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	uint64_t n = 0;
	int ret;

	write_synth(200000, false, false);
	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_int_eq(truncate(path, (off_t)(ipp_pd_reader__info(r)->data_offset + (6u << 20))),
			 0);
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1)
		n++;
	ck_assert_int_eq(ret, -EPROTO);
	ck_assert_ptr_nonnull(strstr(ipp_pd_reader__error(r), "shrank"));
	ck_assert_uint_gt(n, 1000);
	/* The same error again. */
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), -EPROTO);
	ipp_pd_reader__delete(r);
}
END_TEST

START_TEST(test_empty_capture)
{
	PDS_WRITER_OPTS(wo);
	struct ipp_pd_writer *w = ipp_pd_writer__new(path, &wo);
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(ipp_pd_writer__close(w), 0);
	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	ck_assert_uint_eq(ipp_pd_reader__nr_events(r), 0);
	/* Data size 0 would say "partial": an empty capture holds one empty round. */
	ck_assert(!ipp_pd_reader__info(r)->partial);
	ck_assert_str_eq(ipp_pd_reader__info(r)->hostname, "testhost");
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_uint_eq(rec.type, IPP_PD_RECORD_FINISHED_ROUND);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 0);
	ipp_pd_reader__delete(r);
}
END_TEST

/* ------------------------------------------------------------------ partial captures */

START_TEST(test_partial)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	unsigned char *img, buf[256];
	size_t len, n;
	int fd;

	write_synth(100, true, true);
	/* A killed writer may leave half a record behind. */
	n = pds_record(100, buf, NULL);
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, n / 2), (ssize_t)(n / 2));
	close(fd);
	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	ck_assert(ipp_pd_reader__info(r)->partial);
	ck_assert(!ipp_pd_reader__info(r)->has_blob);
	/* The formats are found without the feature table. */
	check_metadata(r);
	check_sequence(r, 100, true);
	ipp_pd_reader__delete(r);

	/* The same from memory. */
	img = slurp(path, &len);
	r = ipp_pd_reader__new();
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	ck_assert(ipp_pd_reader__info(r)->partial);
	check_sequence(r, 100, true);
	ipp_pd_reader__delete(r);
	free(img);
}
END_TEST

/* Cut a partial capture at every record boundary -1, 0, +1: never an error. */
START_TEST(test_partial_cuts)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	uint64_t *ends = NULL;
	size_t nr = 0, len;
	unsigned char *img;

	write_synth(40, false, true);
	img = slurp(path, &len);
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	ends = calloc(64, sizeof(*ends));
	while (ipp_pd_reader__next(r, &rec) == 1)
		ends[nr++] = rec.offset + rec.size;
	ck_assert_uint_eq(nr, 40 + 40 / PDS_ROUND);
	ipp_pd_reader__delete(r);
	for (size_t k = 0; k < nr; k++) {
		for (int d = -1; d <= 1; d++) {
			size_t cut = (size_t)((int64_t)ends[k] + d), got = 0;
			size_t want = d < 0 ? k : k + 1;

			if (cut > len)
				continue;
			r = ipp_pd_reader__new();
			ck_assert_int_eq(open_image(r, img, cut, d == 0), 0);
			ck_assert(ipp_pd_reader__info(r)->partial);
			while (ipp_pd_reader__next(r, &rec) == 1)
				got++;
			ck_assert_msg(got == want, "cut at %zu: %zu records, expected %zu", cut, got, want);
			ipp_pd_reader__delete(r);
		}
	}
	free(ends);
	free(img);
}
END_TEST

/* ------------------------------------------------------------------ truncation */

/*
 * A finished capture cut anywhere: one error at open, with the offset; inside
 * the data, with the record type too. Every length from 0 to the full size
 * in memory; the listed ones (0, 8, 64, 256, 75%, record boundaries +-1) also
 * from a file.
 */
START_TEST(test_truncation_matrix)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	uint64_t data_off, data_end, *bounds;
	size_t nr = 0, len;
	unsigned char *img;

	write_synth(40, true, false);
	img = slurp(path, &len);
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	data_off = ipp_pd_reader__info(r)->data_offset;
	data_end = data_off + ipp_pd_reader__info(r)->data_size;
	bounds = calloc(64, sizeof(*bounds));
	bounds[nr++] = data_off;
	while (ipp_pd_reader__next(r, &rec) == 1)
		bounds[nr++] = rec.offset + rec.size;
	ck_assert_uint_eq(bounds[nr - 1], data_end);
	ipp_pd_reader__delete(r);

	for (size_t cut = 0; cut < len; cut++) {
		int err;

		r = ipp_pd_reader__new();
		err = ipp_pd_reader__open_mem(r, img, cut);
		if (err != -EPROTO && err != -EINVAL)
			ck_abort_msg("cut at %zu: open gave %d", cut, err);
		if (!strstr(ipp_pd_reader__error(r), ": offset 0x"))
			ck_abort_msg("cut at %zu: no offset in '%s'", cut, ipp_pd_reader__error(r));
		if (cut >= data_off + 8 && cut < data_end && !strstr(ipp_pd_reader__error(r), "record type"))
			ck_abort_msg("cut at %zu: no record type in '%s'", cut, ipp_pd_reader__error(r));
		CHECK(ipp_pd_reader__info(r) == NULL);
		CHECK(ipp_pd_reader__next(r, &rec) == -EINVAL);
		ipp_pd_reader__delete(r);
	}
	{
		size_t cuts[] = { 0, 8, 64, 256, len * 3 / 4 };

		for (size_t i = 0; i < IPP_ARRAY_SIZE(cuts); i++) {
			r = ipp_pd_reader__new();
			ck_assert_int_lt(open_image(r, img, cuts[i], true), 0);
			assert_offset_msg(r);
			ipp_pd_reader__delete(r);
		}
		for (size_t k = 0; k < nr; k++)
			for (int d = -1; d <= 1; d++) {
				int err;

				r = ipp_pd_reader__new();
				err = open_image(r, img, (size_t)((int64_t)bounds[k] + d), true);
				ck_assert_int_eq(err, -EPROTO);
				assert_offset_msg(r);
				ipp_pd_reader__delete(r);
			}
	}
	/* And the whole file opens. */
	r = ipp_pd_reader__new();
	ck_assert_int_eq(open_image(r, img, len, true), 0);
	ipp_pd_reader__delete(r);
	free(bounds);
	free(img);
}
END_TEST

/* ------------------------------------------------------------------ corrupt records */

/* Offset of record @k (counting FINISHED_ROUNDs) in @img. */
static uint64_t record_offset(const unsigned char *img, size_t len, size_t k)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	uint64_t off = 0;

	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	for (size_t i = 0; i <= k; i++) {
		ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
		off = rec.offset;
	}
	ipp_pd_reader__delete(r);
	return off;
}

static void set_u16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void set_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void set_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint64_t get_u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint16_t get_u16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

START_TEST(test_corrupt_records)
{
	static const struct {
		const char *what;
		int field;	/* 0: size, 1: type */
		uint32_t value;
		const char *msg;
	} cases[] = {
		{ "size 0", 0, 0, "smaller than a record header" },
		{ "size 4", 0, 4, "smaller than a record header" },
		{ "size past the end", 0, 0xfff8, "runs past the end of the data section" },
		{ "type 0", 1, 0, "invalid record type" },
		{ "type 300", 1, 300, "invalid record type" },
	};
	const size_t k = 5;	/* a SAMPLE */
	unsigned char *img;
	size_t len;

	for (int partial = 0; partial < 2; partial++) {
		write_synth(40, false, partial);
		img = slurp(path, &len);
		for (size_t c = 0; c < IPP_ARRAY_SIZE(cases); c++) {
			unsigned char *bad = malloc(len);
			uint64_t off = record_offset(img, len, k);
			struct ipp_pd_reader *r = ipp_pd_reader__new();
			struct ipp_pd_rec rec;
			char want[64];
			int ret;

			memcpy(bad, img, len);
			if (cases[c].field == 0)
				set_u16(bad + off + 6, (uint16_t)cases[c].value);
			else
				set_u32(bad + off, cases[c].value);
			for (int file = 0; file < 2; file++) {
				size_t got = 0;

				ck_assert_int_eq(open_image(r, bad, len, file), 0);
				while ((ret = ipp_pd_reader__next(r, &rec)) == 1)
					got++;
				if (partial && c == 2) {
					/* Unfinished: a record past the end is the incomplete last one. */
					ck_assert_int_eq(ret, 0);
					ck_assert_uint_eq(got, k);
					ipp_pd_reader__delete(r);
					r = ipp_pd_reader__new();
					continue;
				}
				ck_assert_msg(ret == -EPROTO && got == k,
					      "%s: ret %d after %zu records", cases[c].what, ret, got);
				/* One error, the same every time. */
				ck_assert_int_eq(ipp_pd_reader__next(r, &rec), -EPROTO);
				snprintf(want, sizeof(want), "offset 0x%llx: record type ",
					 (unsigned long long)off);
				ck_assert_msg(strstr(ipp_pd_reader__error(r), want) &&
					      strstr(ipp_pd_reader__error(r), cases[c].msg),
					      "%s: error '%s'", cases[c].what, ipp_pd_reader__error(r));
				if (cases[c].field == 0)
					ck_assert(strstr(ipp_pd_reader__error(r), "(SAMPLE)"));
				ipp_pd_reader__delete(r);
				r = ipp_pd_reader__new();
			}
			ipp_pd_reader__delete(r);
			free(bad);
		}
		free(img);
	}
}
END_TEST

/* A sample whose raw size points past the record: the iteration is fine, parsing is not. */
START_TEST(test_corrupt_sample)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	unsigned char *img;
	uint64_t off;
	size_t len;

	write_synth(20, false, false);
	img = slurp(path, &len);
	off = record_offset(img, len, 3);
	set_u32(img + off + 40, 4000);	/* raw_size */
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), -EPROTO);
	ck_assert(strstr(ipp_pd_reader__error(r), "record type 9 (SAMPLE)"));
	ck_assert(strstr(ipp_pd_reader__error(r), "raw data"));
	assert_offset_msg(r);
	/* An id no event has. */
	set_u64(img + off + 8, 424242);
	ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), -ENOENT);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ipp_pd_reader__delete(r);
	free(img);
}
END_TEST

/*
 * A cpu is one of the capture's: below HEADER_NRCPUS's count, or (a partial
 * capture, which has no feature table) below IPP_PD_MAX_CPUS. Beyond, the
 * record is corrupt, in a sample (both of its parsers) or in the trailer of
 * another record, and HEADER_NRCPUS itself must be sane.
 */
START_TEST(test_corrupt_cpu)
{
	const struct {
		bool partial;
		unsigned int rec;	/* 3: a sample; 50 (+ its rounds): the LOST record */
		uint32_t cpu;
		int err;
		const char *msg;
	} cases[] = {
		{ false, 3, PDS_NR_CPUS - 1, 0, NULL },
		{ false, 3, PDS_NR_CPUS, -EPROTO, "cpu 2, but the capture's header says 2 CPUs" },
		{ false, 3, 0x7f000000, -EPROTO, "cpu 2130706432, but the capture's header says 2" },
		{ false, 53, PDS_NR_CPUS, -EPROTO, "record type 2 (LOST), size 56: cpu 2, but" },
		{ true, 3, IPP_PD_MAX_CPUS - 1, 0, NULL },
		{ true, 3, IPP_PD_MAX_CPUS, -EPROTO, "cpu 32768 is beyond any machine's" },
		{ true, 53, UINT32_MAX, -EPROTO, "cpu 4294967295 is beyond any machine's" },
	};

	for (size_t c = 0; c < IPP_ARRAY_SIZE(cases); c++) {
		struct ipp_pd_sample smp;
		struct ipp_pd_rec rec;
		unsigned char *img;
		uint64_t off;
		size_t len;

		write_synth(60, false, cases[c].partial);
		img = slurp(path, &len);
		off = record_offset(img, len, cases[c].rec);
		if (cases[c].rec == 3)
			set_u32(img + off + 32, cases[c].cpu);	/* the sample's cpu */
		else
			set_u32(img + off + get_u16(img + off + 6) - 16, cases[c].cpu);
		for (int file = 0; file < 2; file++) {
			struct ipp_pd_reader *r = ipp_pd_reader__new();

			ck_assert_int_eq(open_image(r, img, len, file), 0);
			for (unsigned int i = 0; i <= cases[c].rec; i++)
				ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
			ck_assert_uint_eq(rec.offset, off);
			ck_assert_uint_eq(rec.type, cases[c].rec == 3 ? PERF_RECORD_SAMPLE
								    : PERF_RECORD_LOST);
			ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &smp), cases[c].err);
			if (cases[c].err) {
				ck_assert_msg(strstr(ipp_pd_reader__error(r), cases[c].msg),
					      "case %zu: error '%s'", c, ipp_pd_reader__error(r));
				assert_offset_msg(r);
			} else {
				ck_assert_uint_eq(smp.cpu, cases[c].cpu);
			}
			ipp_pd_reader__delete(r);
		}
		free(img);
	}
}
END_TEST

/* ------------------------------------------------------------------ corrupt headers */

struct layout {
	uint64_t attr_size, attrs_off, data_off, data_size, table;
	uint64_t tracing_off, blob_off, nrcpus_off;
};

static struct layout layout_of(const unsigned char *img)
{
	struct layout l = {
		.attr_size = get_u64(img + 16), .attrs_off = get_u64(img + 24),
		.data_off = get_u64(img + 40), .data_size = get_u64(img + 48),
	};
	int k = 0;

	l.table = l.data_off + l.data_size;
	for (unsigned int f = 0; f < 256; f++) {
		if (!(get_u64(img + 72 + f / 64 * 8) >> (f % 64) & 1))
			continue;
		if (f == IPP_PD_FEAT_TRACING_DATA)
			l.tracing_off = get_u64(img + l.table + 16 * k);
		if (f == IPP_PD_FEAT_IPCPERF)
			l.blob_off = get_u64(img + l.table + 16 * k);
		if (f == IPP_PD_FEAT_NRCPUS)
			l.nrcpus_off = get_u64(img + l.table + 16 * k);
		k++;
	}
	return l;
}

START_TEST(test_corrupt_header)
{
	unsigned char *img;
	size_t len;
	struct layout l;

	write_synth(20, true, false);
	img = slurp(path, &len);
	l = layout_of(img);
	ck_assert_uint_ne(l.tracing_off, 0);
	ck_assert_uint_ne(l.blob_off, 0);
	ck_assert_uint_ne(l.nrcpus_off, 0);
	{
		const struct {
			const char *what;
			uint64_t at;
			int width;
			uint64_t value;
			int err;
			const char *msg;
		} cases[] = {
			{ "magic", 0, 8, 0x33454c4946524550ull /* PERFILE3 */, -EINVAL, "not a perf.data" },
			{ "other endian", 0, 8, __builtin_bswap64(0x32454c4946524550ull), -EINVAL,
			  "endianness" },
			{ "pipe mode", 8, 8, 16, -EINVAL, "pipe-mode" },
			{ "header size", 8, 8, 50, -EPROTO, "header size" },
			{ "attr size", 16, 8, 8, -EPROTO, "attr size" },
			{ "attrs size", 32, 8, l.attr_size * 3 + 8, -EPROTO, "multiple" },
			{ "attrs offset", 24, 8, 1ull << 40, -EPROTO, "attrs section" },
			{ "attrs wrap", 24, 8, UINT64_MAX - 8, -EPROTO, "attrs section" },
			{ "attr.size", l.attrs_off + 4, 4, 4000, -EPROTO, "does not fit" },
			{ "ids offset", l.attrs_off + l.attr_size - 16, 8, 1ull << 40, -EPROTO,
			  "ids section" },
			{ "ids size", l.attrs_off + l.attr_size - 8, 8, 12, -EPROTO, "ids section" },
			{ "data offset", 40, 8, len + 1, -EPROTO, "data section offset" },
			/* The data now runs into the feature table: its bytes make no record. */
			{ "data size", 48, 8, 1ull << 40, -EPROTO, "record type" },
			{ "extra feature bit", 72 + 8, 8, 1ull << 36 /* bit 100 */, -EPROTO, "feature" },
			{ "feature offset", l.table, 8, len, -EPROTO, "outside the file" },
			{ "feature size", l.table + 8, 8, UINT64_MAX, -EPROTO, "outside the file" },
			{ "tracing magic", l.tracing_off, 1, 'X', -EPROTO, "tracing data" },
			{ "header_page size", l.tracing_off + 10 + 4 + 2 + 4 + 12, 8, 1ull << 40, -EPROTO,
			  "tracing data: header_page" },
			{ "blob magic", l.blob_off, 1, 'X', -EPROTO, "ipcperf section" },
			{ "blob length", l.blob_off + 16, 8, 33, -EPROTO, "ipcperf section" },
			{ "nrcpus avail", l.nrcpus_off, 4, IPP_PD_MAX_CPUS + 1, -EPROTO,
			  "nrcpus: 32769 CPUs available, more than any machine's" },
			{ "nrcpus online", l.nrcpus_off + 4, 4, PDS_NR_CPUS + 1, -EPROTO,
			  "nrcpus: 3 CPUs online, more than the 2 available" },
			/* A section at 0: "offset 0x0", like any other. */
			{ "feature at 0", l.table, 8, 0, -EPROTO, ": offset 0x0: tracing data" },
		};

		for (size_t c = 0; c < IPP_ARRAY_SIZE(cases); c++) {
			unsigned char *bad = malloc(len);
			struct ipp_pd_reader *r = ipp_pd_reader__new();
			int err;

			memcpy(bad, img, len);
			if (cases[c].width == 8)
				set_u64(bad + cases[c].at, cases[c].value);
			else if (cases[c].width == 4)
				set_u32(bad + cases[c].at, (uint32_t)cases[c].value);
			else
				bad[cases[c].at] = (unsigned char)cases[c].value;
			for (int file = 0; file < 2; file++) {
				err = open_image(r, bad, len, file);
				ck_assert_msg(err == cases[c].err, "%s: open gave %d (%s)", cases[c].what,
					      err, ipp_pd_reader__error(r));
				ck_assert_msg(strstr(ipp_pd_reader__error(r), cases[c].msg),
					      "%s: error '%s'", cases[c].what, ipp_pd_reader__error(r));
				assert_offset_msg(r);
			}
			ipp_pd_reader__delete(r);
			free(bad);
		}
	}
	free(img);
}
END_TEST

/* A format without its ID line, and a tracing data section cut short. */
START_TEST(test_corrupt_format)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	unsigned char *img, *p;
	size_t len;

	write_synth(20, false, false);
	img = slurp(path, &len);
	p = memmem(img, len, "ID: 839", 7);
	ck_assert_ptr_nonnull(p);
	memcpy(p, "XX", 2);
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), -EPROTO);
	ck_assert(strstr(ipp_pd_reader__error(r), "no name or ID line"));
	assert_offset_msg(r);
	memcpy(p, "ID: 8x9", 7);
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), -EPROTO);
	ck_assert(strstr(ipp_pd_reader__error(r), "bad ID"));
	/* A byte that is not text (libtraceevent's parser is not safe on those). */
	memcpy(p, "ID: 839", 7);
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), 0);
	ipp_pd_reader__delete(r);
	r = ipp_pd_reader__new();
	p = memmem(img, len, "comm[16]", 8);
	ck_assert_ptr_nonnull(p);
	p[5] = (unsigned char)0xba;
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, img, len), -EPROTO);
	ck_assert(strstr(ipp_pd_reader__error(r), "byte 0xba: not text"));
	assert_offset_msg(r);
	ipp_pd_reader__delete(r);
	free(img);
}
END_TEST

/* ------------------------------------------------------------------ perf record -z */

/* The synthetic capture of @n records (no ipcperf section), compressed as @o says: a new image. */
static unsigned char *zcapture(uint64_t n, const struct pdz_opts *o, size_t *len)
{
	unsigned char *img, *z;
	size_t ilen;

	write_synth(n, false, false);
	img = slurp(path, &ilen);
	z = pdz_compress(img, ilen, o, len);
	free(img);
	ck_assert_ptr_nonnull(z);
	return z;
}

/* Read @z to its end: @return the error (0 at a clean end), with the records read in *@n. */
static int zread(struct ipp_pd_reader *r, const unsigned char *z, size_t len, uint64_t *n)
{
	struct ipp_pd_rec rec;
	int ret;

	*n = 0;
	ck_assert_int_eq(ipp_pd_reader__open_mem(r, z, len), 0);
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		CHECK(rec.type != IPP_PD_RECORD_COMPRESSED);
		(*n)++;
	}
	return ret;
}

/*
 * The records a compressed capture holds come back as the ones that went in,
 * byte for byte and parsed, whether a piece ends inside a record (997), holds
 * them all (1 MiB) or less than a header (5), with the compressed feature or
 * without it, from memory and from a file, and again after a rewind.
 */
START_TEST(test_zstd_records)
{
	static const struct { size_t piece; uint32_t mmap_len; } cases[] = {
		{ 997, 4096 }, { 1u << 20, 1u << 20 }, { 5, 0 },
	};

	for (size_t c = 0; c < IPP_ARRAY_SIZE(cases); c++)
		for (int file = 0; file < 2; file++) {
			struct pdz_opts o = { .piece = cases[c].piece, .mmap_len = cases[c].mmap_len };
			struct ipp_pd_reader *r = ipp_pd_reader__new();
			size_t len;
			unsigned char *z = zcapture(500, &o, &len);

			ck_assert_int_eq(open_image(r, z, len, file), 0);
			ck_assert(!ipp_pd_reader__info(r)->partial);
			check_sequence(r, 500, true);
			ck_assert_int_eq(ipp_pd_reader__rewind(r), 0);
			check_sequence(r, 500, true);
			ipp_pd_reader__delete(r);
			free(z);
		}
}
END_TEST

/* The error of reading @z: one line naming the COMPRESSED record at @off and @what. */
static void zfails(const unsigned char *z, size_t len, uint64_t off, const char *what,
		   uint64_t max_records)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_rec rec;
	char at[64];
	uint64_t n;

	ck_assert_int_eq(zread(r, z, len, &n), -EPROTO);
	ck_assert_uint_le(n, max_records);
	snprintf(at, sizeof(at), ": offset 0x%llx: record type 81 (COMPRESSED)", (unsigned long long)off);
	ck_assert_msg(strstr(ipp_pd_reader__error(r), at), "'%s' lacks '%s'", ipp_pd_reader__error(r), at);
	ck_assert_msg(strstr(ipp_pd_reader__error(r), what), "'%s' lacks '%s'", ipp_pd_reader__error(r),
		      what);
	ck_assert_ptr_null(strchr(ipp_pd_reader__error(r), '\n'));
	/* The same error again, never a record after it. */
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), -EPROTO);
	ipp_pd_reader__delete(r);
}

/* Corrupt zstd data, a stream that ends inside a record, a record compressed twice, another type. */
START_TEST(test_zstd_corrupt)
{
	unsigned char twice[16] = { IPP_PD_RECORD_COMPRESSED, 0, 0, 0, 0, 0, 16, 0 };
	struct pdz_opts o = { .piece = 997, .mmap_len = 4096 };
	unsigned char *z, *img;
	uint64_t data_off, data_size;
	size_t len, ilen;

	z = zcapture(500, &o, &len);
	memcpy(&data_off, z + 40, 8);
	z[data_off + 8] ^= 0xff;	/* the zstd magic of the first piece */
	zfails(z, len, data_off, "its zstd data cannot be decompressed", 0);
	z[data_off + 8] ^= 0xff;
	memcpy(z + len - 16, &(uint32_t){ 2 }, 4);	/* the compressed feature's type */
	zfails(z, len, data_off, "only zstd (1) is known", 0);
	free(z);

	write_synth(500, false, false);
	img = slurp(path, &ilen);
	memcpy(&data_size, img + 48, 8);
	o.data = img + data_off;
	o.data_len = (size_t)data_size - 20;	/* the last record cut */
	z = pdz_compress(img, ilen, &o, &len);
	ck_assert_ptr_nonnull(z);
	{
		struct ipp_pd_reader *r = ipp_pd_reader__new();
		uint64_t n, all;

		ck_assert_int_eq(zread(r, img, ilen, &all), 0);
		ipp_pd_reader__delete(r);
		r = ipp_pd_reader__new();
		ck_assert_int_eq(zread(r, z, len, &n), -EPROTO);
		ck_assert_msg(strstr(ipp_pd_reader__error(r), "bytes into record type 9 (SAMPLE)"),
			      "%s", ipp_pd_reader__error(r));
		/* Every record before the cut one was read. */
		ck_assert_uint_eq(n, all - 1);
		ipp_pd_reader__delete(r);
	}
	free(z);
	o.data = twice;
	o.data_len = sizeof(twice);
	z = pdz_compress(img, ilen, &o, &len);
	ck_assert_ptr_nonnull(z);
	zfails(z, len, data_off, "(compressed twice)", 0);
	free(z);
	free(img);
}
END_TEST

/*
 * A decompression bomb: 1 MiB of FINISHED_ROUNDs in a piece of a few hundred
 * bytes, where the compressed feature says a ring holds 64 KiB. One error,
 * before a record is handed out.
 */
START_TEST(test_zstd_bomb)
{
	const size_t n = (1u << 20) / 8;
	struct perf_event_header *rounds = calloc(n, sizeof(*rounds));
	struct pdz_opts o = { .piece = n * 8, .mmap_len = 65536, .data = rounds, .data_len = n * 8 };
	unsigned char *img, *z;
	uint64_t data_off, compressed;
	size_t len, ilen;

	ck_assert_ptr_nonnull(rounds);
	for (size_t i = 0; i < n; i++)
		rounds[i] = (struct perf_event_header){ .type = IPP_PD_RECORD_FINISHED_ROUND, .size = 8 };
	write_synth(10, false, false);
	img = slurp(path, &ilen);
	z = pdz_compress(img, ilen, &o, &len);
	ck_assert_ptr_nonnull(z);
	memcpy(&data_off, z + 40, 8);
	memcpy(&compressed, z + 48, 8);
	ck_assert_uint_lt(compressed, 4096);
	zfails(z, len, data_off, "decompresses to more than 65536 bytes, the size of a ring", 0);
	free(z);
	free(img);
	free(rounds);
}
END_TEST

/* A -z capture whose recorder was killed: its records up to the last whole one, with a warning. */
START_TEST(test_zstd_partial)
{
	struct pdz_opts o = { .piece = 997, .mmap_len = 4096 };
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	uint64_t data_off, zero = 0, n;
	size_t len;
	unsigned char *z = zcapture(500, &o, &len);

	memcpy(&data_off, z + 40, 8);
	memcpy(z + 48, &zero, 8);
	/* Cut 1000 bytes into the compressed records: inside a piece. */
	ck_assert_int_eq(zread(r, z, (size_t)data_off + 1000, &n), 0);
	ck_assert(ipp_pd_reader__info(r)->partial);
	ck_assert_uint_gt(n, 0);
	ipp_pd_reader__delete(r);
	free(z);
}
END_TEST

/* ------------------------------------------------------------------ perf's sample layouts */

/*
 * Two events told apart by PERF_SAMPLE_ID (not IDENTIFIER), with IP, PERIOD,
 * READ and CALLCHAIN before RAW, as other tools record them.
 */
START_TEST(test_parse_perf_layout)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
			    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	PDS_WRITER_OPTS(wo);
	struct ipp_pd_writer *w = ipp_pd_writer__new(path, &wo);
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	unsigned char buf[256], raw[12] = "raw payload";
	uint64_t u;
	uint32_t u32;
	size_t at = 8, sample_size;

	for (unsigned int i = 0; i < 2; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_TRACEPOINT, .size = PERF_ATTR_SIZE_VER5, .config = 10 + i,
			.sample_type = st, .sample_id_all = 1,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID,
		};
		uint64_t id = 70 + i;

		/* An older, smaller attr: written zero-extended. */
		ck_assert_int_eq(ipp_pd_writer__add_event(w, NULL, i ? "b" : "a", &a,
							  PERF_ATTR_SIZE_VER5, &id, 1, NULL, 0), 0);
	}
	/* Sample of event b: ip, pid/tid, time, id, cpu/res, period, read, callchain, raw. */
	u = 0xffffffff81000000ull; memcpy(buf + at, &u, 8); at += 8;
	u32 = 42; memcpy(buf + at, &u32, 4); u32 = 43; memcpy(buf + at + 4, &u32, 4); at += 8;
	u = 123456789; memcpy(buf + at, &u, 8); at += 8;
	u = 71; memcpy(buf + at, &u, 8); at += 8;
	u = 1; memcpy(buf + at, &u, 8); at += 8;	/* cpu 1 of the header's 2 */
	u = 1; memcpy(buf + at, &u, 8); at += 8;
	u = 5; memcpy(buf + at, &u, 8); at += 8;		/* read: value */
	u = 6; memcpy(buf + at, &u, 8); at += 8;		/* time enabled */
	u = 71; memcpy(buf + at, &u, 8); at += 8;		/* id */
	u = 2; memcpy(buf + at, &u, 8); at += 8;		/* callchain nr */
	at += 16;
	u32 = sizeof(raw); memcpy(buf + at, &u32, 4); at += 4;
	memcpy(buf + at, raw, sizeof(raw)); at += sizeof(raw);
	sample_size = at;
	((struct perf_event_header *)buf)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)buf)->misc = 0;
	((struct perf_event_header *)buf)->size = (uint16_t)sample_size;
	ck_assert_int_eq(sample_size % 8, 0);
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, sample_size), 0);
	/* EXIT record with the trailer: pid, tid, ppid, ptid, time | tid, time, id, cpu. */
	memset(buf, 0, sizeof(buf));
	((struct perf_event_header *)buf)->type = PERF_RECORD_EXIT;
	((struct perf_event_header *)buf)->size = 8 + 24 + 32;
	u32 = 42; memcpy(buf + 32, &u32, 4); memcpy(buf + 36, &u32, 4);
	u = 999; memcpy(buf + 40, &u, 8);
	u = 70; memcpy(buf + 48, &u, 8);
	u32 = 1; memcpy(buf + 56, &u32, 4);
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, 64), 0);
	/* A sample cut short in its read values (its header size says so). */
	memset(buf, 0, sizeof(buf));
	((struct perf_event_header *)buf)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)buf)->size = 8 + 8 * 8;
	u = 71; memcpy(buf + 8 + 3 * 8, &u, 8);
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, 72), 0);
	ck_assert_int_eq(ipp_pd_writer__close(w), 0);

	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	ck_assert_uint_eq(ipp_pd_reader__nr_events(r), 2);
	ck_assert_str_eq(ipp_pd_reader__event(r, 1)->name, "b");
	ck_assert_uint_eq(ipp_pd_reader__event(r, 1)->attr.size, IPP_PD_ATTR_SIZE);
	ck_assert_ptr_null(ipp_pd_reader__event(r, 1)->format);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), 0);
	ck_assert_ptr_eq(s.event, ipp_pd_reader__event(r, 1));
	ck_assert_uint_eq(s.ip, 0xffffffff81000000ull);
	ck_assert_uint_eq(s.pid, 42);
	ck_assert_uint_eq(s.tid, 43);
	ck_assert_uint_eq(s.time, 123456789);
	ck_assert_uint_eq(s.id, 71);
	ck_assert_uint_eq(s.cpu, 1);
	ck_assert_uint_eq(s.period, 1);
	ck_assert_uint_eq(s.raw_size, sizeof(raw));
	ck_assert(memcmp(s.raw, raw, sizeof(raw)) == 0);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_uint_eq(rec.type, PERF_RECORD_EXIT);
	ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), 0);
	ck_assert_ptr_eq(s.event, ipp_pd_reader__event(r, 0));
	ck_assert_uint_eq(s.pid, 42);
	ck_assert_uint_eq(s.time, 999);
	ck_assert_uint_eq(s.cpu, 1);
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 1);
	ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), -EPROTO);
	ck_assert(strstr(ipp_pd_reader__error(r), "too short for its read values"));
	ck_assert_int_eq(ipp_pd_reader__next(r, &rec), 0);
	ipp_pd_reader__delete(r);
}
END_TEST

/* ------------------------------------------------------------------ writer */

START_TEST(test_writer_args)
{
	PDS_WRITER_OPTS(wo);
	struct perf_event_attr a;
	struct ipp_pd_writer *w;
	unsigned char buf[256];
	struct stat st;
	size_t n;
	int fd;

	/* An existing world-readable file becomes private. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(write(fd, "old contents", 12), 12);
	close(fd);
	w = ipp_pd_writer__new(path, &wo);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 0);
	pds_attr(&a, 0);
	ck_assert_int_eq(ipp_pd_writer__add_event(w, "s", "e", &a, 32, NULL, 0, NULL, 0), -EINVAL);
	ck_assert_int_eq(ipp_pd_writer__add_event(w, NULL, "e", &a, sizeof(a), NULL, 0, "x", 1),
			 -EINVAL);
	ck_assert_int_eq(ipp_pd_writer__add_event(w, "s", "e", &a, sizeof(a), NULL, 1, NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(pds_add_events(w), 0);
	n = pds_record(1, buf, NULL);
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, n - 8), -EINVAL);	/* size != header.size */
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, 4), -EINVAL);
	ck_assert_int_eq(ipp_pd_writer__write(w, NULL, 8), -EINVAL);
	((struct perf_event_header *)buf)->type = IPP_PD_RECORD_FINISHED_ROUND;
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, n), -EINVAL);		/* perf's own type */
	/* A round with nothing in it is not written. */
	ck_assert_int_eq(ipp_pd_writer__write(w, NULL, 0), 0);
	ck_assert_uint_eq(ipp_pd_writer__records(w), 0);
	n = pds_record(1, buf, NULL);
	ck_assert_int_eq(ipp_pd_writer__write(w, buf, n), 0);
	ck_assert_int_eq(ipp_pd_writer__add_event(w, "s", "e", &a, sizeof(a), NULL, 0, NULL, 0),
			 -EBUSY);
	ck_assert_int_eq(ipp_pd_writer__write(w, NULL, 0), 0);
	ck_assert_int_eq(ipp_pd_writer__write(w, NULL, 0), 0);
	ck_assert_uint_eq(ipp_pd_writer__records(w), 2);
	ck_assert_int_eq(ipp_pd_writer__set_blob(w, 1, NULL, 3), -EINVAL);
	ck_assert_int_eq(ipp_pd_writer__close(w), 0);

	/* Bad opts, bad paths. */
	{
		struct ipp_pd_writer_opts bad = { .sz = 1 };
		char dir[300];

		errno = 0;
		ck_assert_ptr_null(ipp_pd_writer__new(path, &bad));
		ck_assert_int_eq(errno, EINVAL);
		snprintf(dir, sizeof(dir), "%s/no/such/dir", tmpdir);
		ck_assert_ptr_null(ipp_pd_writer__new(dir, NULL));
		ck_assert_int_eq(errno, ENOENT);
	}
	ipp_pd_writer__delete(NULL);
}
END_TEST

/*
 * The writer never follows a symbolic link at its path: a link to another's
 * file leaves that file as it was (content and mode), a dangling one does not
 * create its target; a FIFO fails at once instead of blocking for a reader.
 */
START_TEST(test_writer_no_follow)
{
	static const char content[] = "not a capture\n";
	char victim[300], link[300], absent[300], fifo[300], buf[64];
	struct stat st;
	int fd;

	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	snprintf(absent, sizeof(absent), "%s/absent", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(write(fd, content, sizeof(content) - 1), (ssize_t)sizeof(content) - 1);
	close(fd);

	ck_assert_int_eq(symlink(victim, link), 0);
	errno = 0;
	ck_assert_ptr_null(ipp_pd_writer__new(link, NULL));
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(st.st_size, (off_t)sizeof(content) - 1);
	fd = open(victim, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(content) - 1);
	close(fd);
	ck_assert(memcmp(buf, content, sizeof(content) - 1) == 0);
	ck_assert_int_eq(unlink(link), 0);

	ck_assert_int_eq(symlink(absent, link), 0);
	errno = 0;
	ck_assert_ptr_null(ipp_pd_writer__new(link, NULL));
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(lstat(absent, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(unlink(link), 0);

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	errno = 0;
	ck_assert_ptr_null(ipp_pd_writer__new(fifo, NULL));
	ck_assert_int_eq(errno, ENXIO);

	unlink(fifo);
	unlink(victim);
}
END_TEST

/* attrs bigger than perf 6.1 knows: cut to 128 bytes when the rest is zero. */
START_TEST(test_attr_sizes)
{
	unsigned char big[160] = { 0 };
	struct perf_event_attr a;
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_writer *w;
	uint64_t id = 9;

	pds_attr(&a, 0);
	memcpy(big, &a, sizeof(a));
	for (int nonzero = 0; nonzero < 2; nonzero++) {
		big[150] = (unsigned char)nonzero;
		w = ipp_pd_writer__new(path, NULL);
		ck_assert_ptr_nonnull(w);
		ck_assert_int_eq(ipp_pd_writer__add_event(w, "syscalls", "sys_enter_write", big,
							  sizeof(big), &id, 1, pds_fmt_enter_write,
							  strlen(pds_fmt_enter_write)), 0);
		ck_assert_int_eq(ipp_pd_writer__close(w), 0);
		ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
		ck_assert_uint_eq(ipp_pd_reader__event(r, 0)->file_attr_size,
				  nonzero ? sizeof(big) : IPP_PD_ATTR_SIZE);
		ck_assert_uint_eq(ipp_pd_reader__event(r, 0)->attr.config, PDS_ID_ENTER_WRITE);
		ck_assert_ptr_nonnull(ipp_pd_reader__event(r, 0)->format);
		ipp_pd_reader__delete(r);
		r = ipp_pd_reader__new();
	}
	ipp_pd_reader__delete(r);
}
END_TEST

/* ------------------------------------------------------------------ into the decoder */

/* What the report does: formats from the file into the decoder, samples through it. */
static void decode_all(struct ipp_pd_reader *r, unsigned int *enter_fd11, unsigned int *exits)
{
	struct ipp_decoder *d = ipp_decoder__new();
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	int ret;

	ck_assert_ptr_nonnull(d);
	for (size_t i = 0; i < ipp_pd_reader__nr_formats(r); i++) {
		const struct ipp_pd_format *f = ipp_pd_reader__format(r, i);

		ck_assert_int_eq(ipp_decoder__add_format(d, f->system, f->name, f->text, f->len),
				 f->id);
	}
	*enter_fd11 = *exits = 0;
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		struct ipp_rec out;

		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(ipp_pd_reader__parse(r, &rec, &s), 0);
		ck_assert_ptr_nonnull(s.raw);
		if (ipp_decoder__decode(d, s.raw, s.raw_size, &out) < 0)
			continue;
		if (out.kind == IPP_REC_SYS_ENTER && out.enter.sc &&
		    !strcmp(out.enter.sc->name, "write") && out.enter.args[0] == 11)
			(*enter_fd11)++;
		if (out.kind == IPP_REC_SYS_EXIT)
			(*exits)++;
	}
	ck_assert_int_eq(ret, 0);
	ipp_decoder__delete(d);
}

START_TEST(test_decoder_feed)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	unsigned int enter = 0, exits = 0, want_enter = 0, want_exit = 0;
	unsigned char buf[256];

	write_synth(500, false, false);
	for (uint64_t i = 0; i < 500; i++) {
		struct pds_rec_info in;

		pds_record(i, buf, &in);
		want_enter += in.type == PERF_RECORD_SAMPLE && in.ev == 0;
		want_exit += in.type == PERF_RECORD_SAMPLE && in.ev == 1;
	}
	ck_assert_int_eq(ipp_pd_reader__open(r, path), 0);
	decode_all(r, &enter, &exits);
	ck_assert_uint_eq(enter, want_enter);
	ck_assert_uint_eq(exits, want_exit);
	ipp_pd_reader__delete(r);
}
END_TEST

#ifdef PERFDATA_CORPUS
/*
 * perf record -e syscalls:sys_enter_write -e syscalls:sys_exit_write --
 * tests/ipcwork pipe (perf 6.1): both events with their ids and formats, and
 * the 18 writes of fd 11 the workload makes.
 */
START_TEST(test_perf_file)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	unsigned int enter = 0, exits = 0;

	ck_assert_int_eq(ipp_pd_reader__open(r, PERFDATA_CORPUS "/ok-perf-write.data"), 0);
	ck_assert(!ipp_pd_reader__info(r)->partial);
	ck_assert_uint_eq(ipp_pd_reader__nr_events(r), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct ipp_pd_event *ev = ipp_pd_reader__event(r, i);

		ck_assert_str_eq(ev->name, i ? "syscalls:sys_exit_write" : "syscalls:sys_enter_write");
		ck_assert_ptr_nonnull(ev->format);
		ck_assert_uint_eq(ev->attr.config, (uint64_t)ev->format->id);
		ck_assert_uint_gt(ev->nr_ids, 0);
		for (size_t j = 0; j < ev->nr_ids; j++)
			ck_assert_ptr_eq(ipp_pd_reader__event_by_id(r, ev->ids[j]), ev);
	}
	decode_all(r, &enter, &exits);
	ck_assert_uint_eq(enter, 18);
	ck_assert_uint_eq(exits, 19);	/* 18 + the go byte on fd 13 */
	ipp_pd_reader__delete(r);
}
END_TEST

struct fd_tally {
	uint64_t ops, bytes, rows;
	int fd;
};

static int tally_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct fd_tally *t = ctx;

	if (row->fd == t->fd) {
		t->ops += row->write.ops;
		t->bytes += row->write.bytes;
		t->rows++;
		ck_assert_int_eq(row->kind, IPCPERF_FD_UNKNOWN);	/* a replay never reads /proc */
	}
	return 0;
}

/*
 * The same capture through a replay session and a stats object: the writes
 * on fd 11 are paired with their exits and give the exact ops and bytes.
 */
START_TEST(test_replay_perf_file)
{
	struct ipcperf_session *s;
	struct ipcperf_stats *st = ipcperf_stats__new(NULL);
	struct ipcperf_session_stats ss = { .sz = sizeof(ss) };
	struct fd_tally t = { .fd = 11 };
	int loops = 0;

	ck_assert_ptr_nonnull(st);
	s = ipcperf_session__open_file(PERFDATA_CORPUS "/ok-perf-write.data", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert(!ipcperf_session__partial(s));
	ck_assert_int_eq(ipcperf_stats__attach(st, s), 0);
	ck_assert(!ipcperf_session__done(s));
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	while (!ipcperf_session__done(s)) {
		ck_assert_int_ge(ipcperf_session__poll(s, 100), 0);
		ck_assert_int_lt(++loops, 1000);
	}
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
	ck_assert_int_eq(ipcperf_session__stats(s, &ss), 0);
	ck_assert_uint_eq(ss.lost, 0);
	ck_assert_uint_eq(ss.syscalls, 19);
	ck_assert_uint_le(ss.start_ns, ss.stop_ns);
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, tally_fd, &t), 0);
	ck_assert_uint_ge(t.rows, 1);	/* one per writing process */
	ck_assert_uint_eq(t.ops, 18);
	ck_assert_uint_eq(t.bytes, 9100);
	ipcperf_session__delete(s);
	ipcperf_stats__delete(st);
}
END_TEST

/* A replay of a synthetic capture counts its LOST records; a cut one fails with EPROTO. */
START_TEST(test_replay_lost_and_cut)
{
	struct ipcperf_session *s;
	struct ipcperf_session_stats ss = { .sz = sizeof(ss) };
	uint64_t want_lost = 0;
	unsigned char buf[256], *img;
	size_t len;
	char cut[300];

	write_synth(500, false, false);
	for (uint64_t i = 0; i < 500; i++) {
		struct pds_rec_info in;

		pds_record(i, buf, &in);
		if (in.type == PERF_RECORD_LOST)
			want_lost += in.arg;
	}
	s = ipcperf_session__open_file(path, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	while (!ipcperf_session__done(s))
		ck_assert_int_ge(ipcperf_session__consume(s), 0);
	ipcperf_session__stop(s);
	ck_assert_int_eq(ipcperf_session__stats(s, &ss), 0);
	ck_assert_uint_eq(ss.lost, want_lost);
	ipcperf_session__delete(s);

	img = slurp(path, &len);
	snprintf(cut, sizeof(cut), "%s/cut.data", tmpdir);
	spill(cut, img, 64);
	errno = 0;
	ck_assert_ptr_null(ipcperf_session__open_file(cut, NULL));
	ck_assert_int_ne(errno, 0);
	free(img);
}
END_TEST

/* What a replay says, through the print function. */
static struct {
	unsigned int lines, errors;
	char last[512];
} said;

static int count_print(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG)
		return 0;
	said.lines++;
	if (level != IPCPERF_WARN) {
		said.errors++;
		vsnprintf(said.last, sizeof(said.last), fmt, ap);
	}
	return 0;
}

/*
 * Issue #11: a sample whose cpu is 0x7f000000 ended the replay with -ENOMEM
 * and not a word. It is a corrupt record: -EPROTO, said once with its offset,
 * and the same error again from every later consume, said no more.
 */
START_TEST(test_replay_bad_cpu)
{
	ipcperf_print_fn_t old = ipcperf_set_print(count_print);
	struct ipcperf_session *s;
	int err = 0, loops = 0;

	memset(&said, 0, sizeof(said));
	s = ipcperf_session__open_file(PERFDATA_CORPUS "/bad-sample-cpu.data", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	while (!ipcperf_session__done(s) && (err = ipcperf_session__consume(s)) >= 0)
		ck_assert_int_lt(++loops, 100);
	ck_assert_int_eq(err, -EPROTO);
	ck_assert_uint_eq(said.lines, 1);
	ck_assert_uint_eq(said.errors, 1);
	ck_assert_str_eq(said.last, PERFDATA_CORPUS "/bad-sample-cpu.data: offset 0xfd8: record type 9 "
			 "(SAMPLE), size 88: cpu 2130706432, but the capture's header says 2 CPUs\n");
	ck_assert_int_eq(ipcperf_session__consume(s), -EPROTO);
	ck_assert_int_eq(ipcperf_session__poll(s, 0), -EPROTO);
	ck_assert_uint_eq(said.lines, 1);
	ck_assert(!ipcperf_session__done(s));
	ipcperf_session__delete(s);
	ipcperf_set_print(old);
}
END_TEST

/* The ring size of the recording session comes back from its capture; 0 when it does not say. */
START_TEST(test_replay_ring_pages)
{
	static const struct {
		const char *file;
		unsigned int pages;
	} cases[] = {
		{ PERFDATA_CORPUS "/ok-ring-1-page.data", 1 },
		{ PERFDATA_CORPUS "/ok-ring-unknown.data", 0 },	/* written before it was recorded */
		{ PERFDATA_CORPUS "/ok-perf-write.data", 0 },	/* perf's: no ipcperf section */
	};

	for (size_t c = 0; c < IPP_ARRAY_SIZE(cases); c++) {
		struct ipcperf_session_stats ss = { .sz = sizeof(ss) };
		struct ipcperf_session *s = ipcperf_session__open_file(cases[c].file, NULL);
		int loops = 0;

		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(ipcperf_session__start(s), 0);
		while (!ipcperf_session__done(s)) {
			ck_assert_int_ge(ipcperf_session__consume(s), 0);
			ck_assert_int_lt(++loops, 100);
		}
		ck_assert_int_ge(ipcperf_session__stop(s), 0);
		ck_assert_int_eq(ipcperf_session__stats(s, &ss), 0);
		ck_assert_msg(ss.ring_pages == cases[c].pages, "%s: ring_pages %u, expected %u",
			      cases[c].file, ss.ring_pages, cases[c].pages);
		if (c == 0)
			ck_assert_uint_eq(ss.lost, 50);	/* the LOST record that asks for the hint */
		ipcperf_session__delete(s);
	}
}
END_TEST
#endif

/* The identity log hands back, per (pid, fd), the answers in the order they were logged. */
START_TEST(test_identlog_order)
{
	struct ipp_identlog *l = ipp_identlog__new();
	struct ipp_ident_ans a = { .what = IPP_IDQ_RESOLVE, .pid = 7, .fd = 3, .ok = 1 }, out;

	ck_assert_ptr_nonnull(l);
	snprintf(a.object, sizeof(a.object), "pipe:[1]");
	ck_assert_int_eq(ipp_identlog__add(l, &a), 0);
	a.fd = 4;
	snprintf(a.object, sizeof(a.object), "pipe:[2]");
	ck_assert_int_eq(ipp_identlog__add(l, &a), 0);
	a.fd = 3;
	snprintf(a.object, sizeof(a.object), "socket:[3]");
	ck_assert_int_eq(ipp_identlog__add(l, &a), 0);
	a = (struct ipp_ident_ans){ .what = IPP_IDQ_SCAN_END, .pid = 7, .fd = -1 };
	ck_assert_int_eq(ipp_identlog__add(l, &a), 0);

	/* fd 4 first: out of log order, still its own answer */
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_RESOLVE, 7, 4, &out), 0);
	ck_assert_str_eq(out.object, "pipe:[2]");
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_RESOLVE, 7, 3, &out), 0);
	ck_assert_str_eq(out.object, "pipe:[1]");
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_RESOLVE, 7, 3, &out), 0);
	ck_assert_str_eq(out.object, "socket:[3]");
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_RESOLVE, 7, 3, &out), -ENOENT);
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_RESOLVE, 8, 4, &out), -ENOENT);
	ck_assert_int_eq(ipp_identlog__take(l, IPP_IDQ_SCAN | IPP_IDQ_SCAN_END, 7, -1, &out), 0);
	ck_assert_uint_eq(out.what, IPP_IDQ_SCAN_END);
	ipp_identlog__delete(l);
}
END_TEST

/* An entry of the ipcperf section at @len of @sect: @return the length after it. */
static size_t put_rec_entry(unsigned char *sect, size_t len, uint32_t type, const void *obj,
			    uint32_t n)
{
	memcpy(sect + len, &type, 4);
	memcpy(sect + len + 4, &n, 4);
	memcpy(sect + len + 8, obj, n);
	memset(sect + len + 8 + n, 0, ((n + 7u) & ~7u) - n);
	return len + 8 + ((n + 7u) & ~7u);
}

/* The ipcperf section parses back what was put in; a cut one is refused. */
START_TEST(test_rec_section)
{
	struct ipp_rec_session ss = { .start_ns = 10, .stop_ns = 20, .lost = 3, .records = 99,
				      .self = 42, .cmd_pid = 43, .rings = 2, .ring_pages = 1 };
	struct ipp_rec_counters c = { .pid = 43, .nr = IPCPERF_CNT__MAX };
	struct ipp_ident_ans a = { .what = IPP_IDQ_COMM, .pid = 43, .fd = -1, .ok = 1 }, out;
	unsigned char sect[4096];
	struct ipp_rec_data d;
	size_t len = 0;
	uint32_t t, n;

#define PUT(type, obj)                                                   \
	do {                                                             \
		t = (type);                                              \
		n = sizeof(obj);                                         \
		memcpy(sect + len, &t, 4);                               \
		memcpy(sect + len + 4, &n, 4);                           \
		memcpy(sect + len + 8, &(obj), n);                       \
		len += 8 + ((n + 7u) & ~7u);                             \
	} while (0)
	c.v[IPCPERF_CNT_TASK_CLOCK].value = 1234;
	snprintf(a.object, sizeof(a.object), "ipcwork");
	PUT(IPP_REC_T_SESSION, ss);
	PUT(IPP_REC_T_COUNTERS, c);
	PUT(99, ss);		/* an unknown entry: skipped */
	PUT(IPP_REC_T_IDENT, a);
#undef PUT
	ck_assert_uint_le(len, sizeof(sect));
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), 0);
	ck_assert(d.has_session);
	ck_assert_uint_eq(d.ss.records, 99);
	ck_assert_uint_eq(d.ss.ring_pages, 1);
	ck_assert_int_eq(d.ss.cmd_pid, 43);
	ck_assert_uint_eq(d.nr_cnt, 1);
	ck_assert_uint_eq(d.cnt[0].v[IPCPERF_CNT_TASK_CLOCK].value, 1234);
	ck_assert_int_eq(ipp_identlog__take_any(d.log, IPP_IDQ_COMM, &out), 0);
	ck_assert_str_eq(out.object, "ipcwork");
	ipp_rec_data__free(&d);
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len - 8), -EPROTO);
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, 4), -EPROTO);
}
END_TEST

/*
 * The host and the clock reference parse back; a section without them (an
 * older capture) has neither; a host entry that is empty or has no NUL
 * within IPCPERF_HOST_MAX bytes is malformed.
 */
START_TEST(test_rec_host_clock)
{
	struct ipp_rec_clock clk = { .mono_start = 100, .real_start = 5000, .mono_stop = 300,
				     .real_stop = 5200 };
	char host[IPCPERF_HOST_MAX] = "web-1", empty[8] = "", wide[IPCPERF_HOST_MAX + 8];
	unsigned char sect[512];
	struct ipp_rec_data d;
	size_t len = 0;

	memset(wide, 'x', sizeof(wide));
	len = put_rec_entry(sect, len, IPP_REC_T_HOST, host, sizeof(host));
	len = put_rec_entry(sect, len, IPP_REC_T_CLOCK, &clk, sizeof(clk));
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), 0);
	ck_assert(d.has_host && d.has_clock);
	ck_assert_str_eq(d.host, "web-1");
	ck_assert_uint_eq(d.clock.mono_start, 100);
	ck_assert_uint_eq(d.clock.real_stop, 5200);
	ipp_rec_data__free(&d);
	len = put_rec_entry(sect, 0, IPP_REC_T_LOST, &clk, 16);
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), 0);
	ck_assert(!d.has_host && !d.has_clock);
	ipp_rec_data__free(&d);
	len = put_rec_entry(sect, 0, IPP_REC_T_HOST, empty, sizeof(empty));
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), -EPROTO);
	len = put_rec_entry(sect, 0, IPP_REC_T_HOST, wide, sizeof(wide));
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), -EPROTO);
	len = put_rec_entry(sect, 0, IPP_REC_T_CLOCK, &clk, sizeof(clk) - 8);
	ck_assert_int_eq(ipp_rec_data__parse(&d, sect, len), -EPROTO);
}
END_TEST

/* Each record type's name, the kernel's and perf's own, from the first to the last known. */
START_TEST(test_record_names)
{
	static const struct {
		uint32_t type;
		const char *name;
	} cases[] = {
		{ 0, "unknown" }, { 1, "MMAP" }, { 9, "SAMPLE" }, { 10, "MMAP2" },
		{ 14, "SWITCH" }, { 15, "SWITCH_CPU_WIDE" }, { 21, "AUX_OUTPUT_HW_ID" },
		{ 22, "unknown" }, { 63, "unknown" }, { 64, "HEADER_ATTR" },
		{ 68, "FINISHED_ROUND" }, { 82, "FINISHED_INIT" }, { 83, "unknown" },
	};

	for (size_t i = 0; i < IPP_ARRAY_SIZE(cases); i++)
		ck_assert_str_eq(ipp_pd_record_name(cases[i].type), cases[i].name);
}
END_TEST

Suite *perfdata_suite(void)
{
	Suite *s = suite_create("perfdata");
	TCase *tc = tcase_create("perfdata");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_roundtrip_large);
	tcase_add_test(tc, test_file_shrinks);
	tcase_add_test(tc, test_empty_capture);
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_partial_cuts);
	tcase_add_test(tc, test_truncation_matrix);
	tcase_add_test(tc, test_corrupt_records);
	tcase_add_test(tc, test_corrupt_sample);
	tcase_add_test(tc, test_corrupt_cpu);
	tcase_add_test(tc, test_corrupt_header);
	tcase_add_test(tc, test_corrupt_format);
	tcase_add_test(tc, test_zstd_records);
	tcase_add_test(tc, test_zstd_corrupt);
	tcase_add_test(tc, test_zstd_bomb);
	tcase_add_test(tc, test_zstd_partial);
	tcase_add_test(tc, test_parse_perf_layout);
	tcase_add_test(tc, test_writer_args);
	tcase_add_test(tc, test_writer_no_follow);
	tcase_add_test(tc, test_attr_sizes);
	tcase_add_test(tc, test_decoder_feed);
	tcase_add_test(tc, test_identlog_order);
	tcase_add_test(tc, test_rec_section);
	tcase_add_test(tc, test_rec_host_clock);
	tcase_add_test(tc, test_record_names);
#ifdef PERFDATA_CORPUS
	tcase_add_test(tc, test_perf_file);
	tcase_add_test(tc, test_replay_perf_file);
	tcase_add_test(tc, test_replay_lost_and_cut);
	tcase_add_test(tc, test_replay_bad_cpu);
	tcase_add_test(tc, test_replay_ring_pages);
#endif
	suite_add_tcase(s, tc);
	return s;
}
