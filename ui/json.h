/* A small streaming JSON writer: it tracks commas and escapes strings. */
#ifndef WD_JSON_H
#define WD_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	char kind[JSON_MAX_DEPTH]; /* '{' or '[' of each open level */
	bool hold_top; /* the top object's '}' waits for json_end_document */
	bool pending;  /* ... and is waiting now */
	bool begun;    /* something was written */
};

void json_init(struct json *j, FILE *f);
/* key is NULL inside an array or at the top. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val); /* NULL: null */
void json_strn(struct json *j, const char *key, const char *val, size_t n);
void json_int(struct json *j, const char *key, long long val);
void json_num(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);
void json_escape(FILE *f, const char *s, size_t n);

/* One document per run: with json_hold_top, the closing '}' of the top
 * object (and the newline) waits for json_end_document, so that an error
 * met after the document was written can still go inside it. */
void json_hold_top(struct json *j);
/* Makes the top object take another member: the levels open inside it are
 * closed, or the held '}' is taken back. false when nothing was begun, or
 * the top is not an object that can be reopened. */
bool json_reopen_top(struct json *j);
void json_end_document(struct json *j);

#endif
