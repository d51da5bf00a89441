/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-reader-int: the reader's struct, and the functions its files call of
 * one another. pd-reader.c opens the file, pd-records.c reads it and its
 * records, pd-sample.c parses samples, pd-sections.c reads the feature
 * sections and pd-unpack.c decompresses records. Only these files include it.
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
 * Where parse_sample() finds each field of an event's samples, as byte
 * offsets from the record's start (the first field is at 8, and 0 means the
 * field is absent). fixed is set only when no field comes after a
 * variable-length one, that is without READ and CALLCHAIN.
 */
struct layout {
	bool fixed;
	bool ipcperf;		/* exactly IDENTIFIER | TID | TIME | CPU | RAW */
	uint32_t need;		/* the record must hold this many bytes (raw size included) */
	uint16_t id, ip, tid, time, cpu, period, raw;
};

/*
 * A slot of the open-addressing hash that maps a kernel id to its event; ev is
 * NULL in an empty slot.
 */
struct idslot {
	uint64_t id;
	const struct ipp_pd_event *ev;
	const struct layout *lay;	/* ev's */
};

struct ZSTD_DCtx_s;

/*
 * The state of decompressing the records of perf record -z. They form one
 * zstd stream through the data section, and each PERF_RECORD_COMPRESSED
 * holds a piece of it (pd-unpack.c explains how).
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
	/*
	 * From the HEADER_COMPRESSED feature: the compression type, and the
	 * size of the rings, which bounds the size of one record.
	 */
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
	/*
	 * A record's CPU must be below this: nr_cpus_avail, or IPP_PD_MAX_CPUS
	 * when the file lacks it.
	 */
	uint32_t cpu_limit;
	/* The iteration over the records. */
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

/* Write what is wrong at file offset @off into r->err and to ipp_info(). Returns @err. */
__attribute__((format(printf, 4, 5)))
int ipp_pdr_fail(struct ipp_pd_reader *r, int err, uint64_t off, const char *fmt, ...);

/* pd-records.c */
/* Whether [off, off + len) lies within the file. */
bool ipp_pdr_in_file(const struct ipp_pd_reader *r, uint64_t off, uint64_t len);
/* Copy [off, off + len) of the file, which the caller checked is in it. */
int ipp_pdr_src_read(struct ipp_pd_reader *r, uint64_t off, void *dst, size_t len);
/*
 * Read a whole section into a new buffer, NUL-terminated for convenience, which
 * the caller frees.
 */
int ipp_pdr_read_section(struct ipp_pd_reader *r, uint64_t off, uint64_t len, const char *what,
			 unsigned char **out);
/*
 * Explain that the data section [data_off, data_end) runs past the file, naming
 * the record it cuts.
 */
int ipp_pdr_explain_truncation(struct ipp_pd_reader *r, uint64_t data_off, uint64_t data_end);

/* pd-sample.c */
/* Fill @l with the offsets of the fields of samples of @st; @l->fixed is false when they vary. */
void ipp_pdr_layout_of(struct layout *l, uint64_t st);
/*
 * Return the position of the id in a sample, in u64s after the header, and
 * in a trailer, in u64s from the end; -1 when there is no id.
 */
int ipp_pdr_sample_id_pos(uint64_t st);
int ipp_pdr_trailer_id_pos(uint64_t st);

/* pd-sections.c */
/* Parse the tracing data section at file offset @base, storing its tracepoint formats in r->fmt. */
int ipp_pdr_parse_tracing_data(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			       uint64_t base);
/* Read every feature section that the header's bitmap names, from the table at @table. */
int ipp_pdr_read_features(struct ipp_pd_reader *r, uint64_t table);

/* pd-unpack.c */
/* Read the HEADER_COMPRESSED feature section at file offset @off. */
int ipp_pdr_unpack_feature(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			   uint64_t off);
/*
 * Take the COMPRESSED record @h at @p (file offset @off), whose payload is the
 * stream's next piece.
 */
int ipp_pdr_unpack_feed(struct ipp_pd_reader *r, const unsigned char *p,
			const struct perf_event_header *h, uint64_t off);
/* Store the stream's next record in @rec. Returns 1, 0 when the piece is used up, or -EPROTO. */
int ipp_pdr_unpack_next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec);
/*
 * Called at the end of the data section: a record cut off in the stream is
 * an error, or only a warning when the capture is partial.
 */
int ipp_pdr_unpack_end(struct ipp_pd_reader *r);
/* Go back to the stream's start; with @all, also free everything, for the reader's reset. */
void ipp_pdr_unpack_reset(struct ipp_pd_reader *r, bool all);

#endif /* IPCPERF_PD_READER_INT_H */
