/* JSON accessors for the libcheck suites: see jsoncheck.h. */
#include <ctype.h>
#include <inttypes.h>
#include <check.h>

#include "jsoncheck.h"

json_object *parse_json(const char *text, size_t len, const char *what)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;
	enum json_tokener_error err;
	size_t end;

	ck_assert_msg(tok != NULL, "json_tokener_new failed");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	ck_assert_msg(o != NULL && err == json_tokener_success,
		      "%s: not one complete JSON document (%s at byte %zu of %zu):\n%.1500s", what,
		      json_tokener_error_desc(err), end, len, text);
	for (size_t i = end; i < len; i++)
		ck_assert_msg(isspace((unsigned char)text[i]),
			      "%s: bytes after the JSON document, from byte %zu:\n%.500s", what, i,
			      text + i);
	return o;
}

json_object *jget(json_object *o, const char *key, json_type type)
{
	json_object *v;

	ck_assert_msg(json_object_is_type(o, json_type_object), "not an object where \"%s\" belongs",
		      key);
	ck_assert_msg(json_object_object_get_ex(o, key, &v), "missing \"%s\" in %.300s", key,
		      json_object_to_json_string(o));
	ck_assert_msg(json_object_is_type(v, type), "\"%s\" is %s, expected %s: %.300s", key,
		      json_type_to_name(json_object_get_type(v)), json_type_to_name(type),
		      json_object_to_json_string(o));
	return v;
}

int64_t jint(json_object *o, const char *key)
{
	return json_object_get_int64(jget(o, key, json_type_int));
}

int64_t jnat(json_object *o, const char *key)
{
	int64_t v = jint(o, key);

	ck_assert_msg(v >= 0, "\"%s\" is %" PRId64 ", negative", key, v);
	return v;
}

const char *jstr(json_object *o, const char *key)
{
	return json_object_get_string(jget(o, key, json_type_string));
}

json_object *jproc(json_object *doc, int64_t pid)
{
	json_object *procs = jget(doc, "processes", json_type_array);

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);

		if (jint(p, "pid") == pid)
			return p;
	}
	ck_abort_msg("pid %" PRId64 " is not among the processes: %s", pid,
		     json_object_to_json_string(procs));
	return NULL;
}

void jeach_row(json_object *doc, const char *list,
	       void (*fn)(void *ctx, json_object *proc, json_object *row), void *ctx)
{
	json_object *procs = jget(doc, "processes", json_type_array);

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);
		json_object *rows = jget(p, list, json_type_array);

		for (size_t k = 0; k < json_object_array_length(rows); k++)
			fn(ctx, p, json_object_array_get_idx(rows, k));
	}
}

static void add_syscall_row(void *ctx, json_object *proc, json_object *sc)
{
	struct sc_count *c = sc_counts_get(ctx, jstr(sc, "name"));

	c->calls += jint(sc, "calls");
	c->errors += jint(sc, "errors");
}

void jsum_syscalls(json_object *doc, struct sc_counts *t)
{
	jeach_row(doc, "syscalls", add_syscall_row, t);
}
