/*
 * Reading the CLI's JSON in libcheck tests with json-c: each accessor fails
 * the test, saying what and where, when the document is not as expected.
 * Shared by the suites that check ipcperf's --json output.
 */
#ifndef IPCPERF_TESTS_JSONCHECK_H
#define IPCPERF_TESTS_JSONCHECK_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "check-helpers.h"

/* Exactly one JSON document in @text (whitespace around it allowed); @what names it. */
json_object *parse_json(const char *text, size_t len, const char *what);
/* Member @key of object @o, of @type. */
json_object *jget(json_object *o, const char *key, json_type type);
int64_t jint(json_object *o, const char *key);
/* An integer >= 0. */
int64_t jnat(json_object *o, const char *key);
const char *jstr(json_object *o, const char *key);
/* The member of "processes" in @doc whose "pid" is @pid (fails the test when none). */
json_object *jproc(json_object *doc, int64_t pid);
/* Calls @fn with each process of @doc and each row of its array @list ("fds", "syscalls"). */
void jeach_row(json_object *doc, const char *list,
	       void (*fn)(void *ctx, json_object *proc, json_object *row), void *ctx);
/* Adds the calls and errors of each process's "syscalls" rows in @doc to @t, by name. */
void jsum_syscalls(json_object *doc, struct sc_counts *t);
#endif
