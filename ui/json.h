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

#endif
