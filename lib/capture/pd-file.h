/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-file: the numbers of the perf.data format that the writer and the
 * reader share (perf's struct perf_file_header, the tracing data's magic,
 * ipcperf's own section), and their small helpers. Only the perf.data
 * files of this folder include it.
 */
#ifndef IPCPERF_PD_FILE_H
#define IPCPERF_PD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* struct perf_file_header: magic, size, attr_size, attrs, data, event_types, features. */
#define PD_MAGIC "PERFILE2"
#define PD_HDR_SIZE 104u
#define PD_HDR_SIZE_NOFEAT 72u	/* older files: no feature bitmap */
#define PD_PIPE_HDR_SIZE 16u
#define PD_SECTION 16u		/* struct perf_file_section: u64 offset, size */
#define PD_NAME_ALIGN 64u	/* perf pads header strings to this */

/* Tracing data (trace-event-info.c): "\027\010\104tracing" then version "0.6". */
static const char ipp_pd_tracing_magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
#define PD_TRACING_VERSION "0.6"

#define PD_BLOB_MAGIC "IPCPERF"	/* 8 bytes with its NUL */
#define PD_BLOB_HDR 24u		/* magic[8], u32 layout, u32 version, u64 len */

/* Metadata sections are small; refuse absurd ones rather than allocate them. */
#define PD_MAX_SECTION (256u << 20)
#define PD_MAX_ATTR_SIZE 4096u

static inline uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static inline void ipp_pd_set_bit(uint64_t *map, unsigned int bit)
{
	map[bit / 64] |= 1ull << (bit % 64);
}

static inline bool ipp_pd_test_bit(const uint64_t *map, unsigned int bit)
{
	return map[bit / 64] >> (bit % 64) & 1;
}

/* Return a NUL-terminated copy of @len bytes of @s, or NULL when out of memory. */
char *ipp_pd_memdup0(const char *s, size_t len);

#endif /* IPCPERF_PD_FILE_H */
