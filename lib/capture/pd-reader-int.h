/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-reader-int: the reader's struct and what its files (pd-reader.c: open;
 * pd-records.c: file and records; pd-sample.c: samples; pd-sections.c:
 * feature sections; pd-unpack.c: compressed records) call of one another.
 * Private to them.
 */
#ifndef IPCPERF_PD_READER_INT_H
#define IPCPERF_PD_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/pd-reader.h"
#include "capture/pd-file.h"

struct idmap {
	uint64_t id;
	size_t ev;
};

/*
 * Where parse_sample() finds each field of an event's samples when none
 * comes after a variable-length one (no READ, no CALLCHAIN): byte offsets
 * from the record's start, 0 when absent (8 is the first field's).
 */
struct layout {
	bool fixed;
	bool ipcperf;		/* exactly IDENTIFIER | TID | TIME | CPU | RAW */
	uint32_t need;		/* the record must hold this many bytes (raw size included) */
	uint16_t id, ip, tid, time, cpu, period, raw;
};

/* id -> event, open addressing; ev NULL: empty. */
struct idslot {
	uint64_t id;
	const struct ipp_pd_event *ev;
	const struct layout *lay;	/* ev's */
};

struct ZSTD_DCtx_s;

/*
 * The records of perf record -z: one zstd stream through the data section,
 * a piece of it in each PERF_RECORD_COMPRESSED (pd-unpack.c says how).
 */
struct pd_unpack {
	struct ZSTD_DCtx_s *zs;	/* made at the first COMPRESSED record */
	unsigned char *in;	/* the payload of the COMPRESSED record at in_off (a copy) */
	size_t in_len, in_pos;
	uint64_t in_off;
	uint64_t in_given;	/* bytes it has given so far */
	bool more;		/* zstd may hold more of its output: the last call filled @out */
	bool busy;		/* records or input left: ipp_pd_reader__next() asks here first */
	unsigned char *out;	/* decompressed: [out_head, out_len) not handed out yet */
	size_t out_head, out_len;
	uint64_t head_pos;	/* out_head's place in the decompressed stream */
	/* HEADER_COMPRESSED: the compression type; the size of the rings (one record's most) */
	bool has_feature;
	uint32_t type, mmap_len;
	bool warned_tail;
};

struct ipp_pd_reader {
	bool open;
	int fd;
	const unsigned char *mem;	/* open_mem: the whole file */
	char *path;
	char err[512];
	struct ipp_pd_info info;
	struct ipp_pd_event *ev;
	size_t nr_ev;
	struct idmap *idx;
	size_t nr_idx;
	struct idslot *ids;	/* hash of idx: what the binary search over idx finds */
	size_t ids_mask;
	unsigned int ids_shift;
	struct layout *lay;	/* per event */
	struct ipp_pd_format *fmt;
	size_t nr_fmt;
	char **names;		/* per event, owned */
	void *blob;
	size_t blob_len;
	uint32_t blob_version;
	/* Where the id of a record is when the file has several events. */
	int id_pos;		/* samples: u64 index after the header, -1 none */
	int is_pos;		/* other records: u64 index from the end, -1 none */
	bool sample_id_all;
	/* A record's cpu must be below this: nr_cpus_avail, or IPP_PD_MAX_CPUS without it. */
	uint32_t cpu_limit;
	/* Iteration */
	uint64_t data_end;
	uint64_t cur;
	int iter_err;
	bool warned_tail;
	/*
	 * The records addressable now: [win_off, win_off + win_len) of the
	 * file, at win; never past data_end. Memory mode: the whole data
	 * section. File mode: a copy read into buf.
	 */
	const unsigned char *win;
	uint64_t win_off;
	size_t win_len;
	unsigned char *buf;
	size_t buf_cap;		/* min(RBUF_SIZE, file size): holds any record */
	struct pd_unpack unpack;
};

#define RBUF_SIZE (1u << 20)
static inline size_t ipp_pdr_id_hash(const struct ipp_pd_reader *r, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> r->ids_shift);
}

static inline const struct idslot *ipp_pdr_find_slot(const struct ipp_pd_reader *r, uint64_t id)
{
	size_t i;

	if (!r->ids)
		return NULL;
	for (i = ipp_pdr_id_hash(r, id); r->ids[i].ev; i = (i + 1) & r->ids_mask)
		if (r->ids[i].id == id)
			return &r->ids[i];
	return NULL;
}

static inline const struct ipp_pd_event *ipp_pdr_find_event(const struct ipp_pd_reader *r, uint64_t id)
{
	const struct idslot *sl = ipp_pdr_find_slot(r, id);

	return sl ? sl->ev : NULL;
}

/* Say what is wrong at file offset @off into r->err (and ipp_info). @return @err. */
__attribute__((format(printf, 4, 5)))
int ipp_pdr_fail(struct ipp_pd_reader *r, int err, uint64_t off, const char *fmt, ...);

/* pd-records.c */
/* [off, off + len) lies within the file. */
bool ipp_pdr_in_file(const struct ipp_pd_reader *r, uint64_t off, uint64_t len);
/* Copy [off, off + len) of the file, which the caller checked is in it. */
int ipp_pdr_src_read(struct ipp_pd_reader *r, uint64_t off, void *dst, size_t len);
/* A whole section in a new buffer (NUL-terminated for convenience), freed by the caller. */
int ipp_pdr_read_section(struct ipp_pd_reader *r, uint64_t off, uint64_t len, const char *what,
			 unsigned char **out);
/* The data section [data_off, data_end) runs past the file: the error names the record it cuts. */
int ipp_pdr_explain_truncation(struct ipp_pd_reader *r, uint64_t data_off, uint64_t data_end);

/* pd-sample.c */
/* The offsets of the fields of an event's samples (@l->fixed false when they vary). */
void ipp_pdr_layout_of(struct layout *l, uint64_t st);
/* Position of the id in a sample (u64 after the header) and in a trailer (from the end); -1 none. */
int ipp_pdr_sample_id_pos(uint64_t st);
int ipp_pdr_trailer_id_pos(uint64_t st);

/* pd-sections.c */
/* The tracing data section at file offset @base: the tracepoint formats into r->fmt. */
int ipp_pdr_parse_tracing_data(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			       uint64_t base);
/* Every feature section the header's bitmap names, from the table at @table. */
int ipp_pdr_read_features(struct ipp_pd_reader *r, uint64_t table);

/* pd-unpack.c */
/* The HEADER_COMPRESSED feature section at file offset @off. */
int ipp_pdr_unpack_feature(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			   uint64_t off);
/* Take the COMPRESSED record @h at @p, file offset @off: its payload is the stream's next piece. */
int ipp_pdr_unpack_feed(struct ipp_pd_reader *r, const unsigned char *p,
			const struct perf_event_header *h, uint64_t off);
/* The stream's next record into @rec. @return 1; 0 when the piece is used up; -EPROTO. */
int ipp_pdr_unpack_next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec);
/* The data section ends: a record cut in the stream is an error (a warning when partial). */
int ipp_pdr_unpack_end(struct ipp_pd_reader *r);
/* Back to the stream's start (@all: and free everything, for the reader's reset). */
void ipp_pdr_unpack_reset(struct ipp_pd_reader *r, bool all);

#endif /* IPCPERF_PD_READER_INT_H */
