/* A small streaming JSON writer: it tracks commas and escapes strings. */
#ifndef WD_JSON_H
#define WD_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "os2/codepage.h"

#define JSON_MAX_DEPTH 32

/* The schema version of every document (docs/json.md): each top object
 * begins with "format": JSON_FORMAT. Raised when a name changes meaning or
 * goes; a member added leaves it. */
#define JSON_FORMAT 1

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	char kind[JSON_MAX_DEPTH]; /* '{' or '[' of each open level */
	bool hold_top; /* the top object's '}' waits for json_end_document */
	bool pending;  /* ... and is waiting now */
	bool begun;    /* something was written */
	const struct codepage *cp; /* of the volume's text (json_vol); NULL: 850 */
};

void json_init(struct json *j, FILE *f);
/* key is NULL inside an array or at the top. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
/* A string of UTF-8 text (messages, package fields, arguments, host paths):
 * valid UTF-8 passes as it is, each byte that is not part of it becomes
 * U+FFFD (never the byte read as Latin-1). NULL: null. */
void json_str(struct json *j, const char *key, const char *val);
void json_strn(struct json *j, const char *key, const char *val, size_t n);
/* A string of text from the volume (a CONFIG.SYS or PROTOCOL.INI line, a
 * section or driver name, a diff of them): its bytes decoded from j->cp. */
void json_vol(struct json *j, const char *key, const char *val);
void json_voln(struct json *j, const char *key, const char *val, size_t n);
/* A message of warpdrv's that may quote the volume (a check finding, a
 * note): valid UTF-8 sequences pass, every other byte is decoded from j->cp. */
void json_mixed(struct json *j, const char *key, const char *val);
/* A time warpdrv recorded in UTC ("2026-12-01 18:00:48", SQLite's
 * datetime('now')) as ISO 8601 with Z: "2026-12-01T18:00:48Z". NULL or
 * empty: null. */
void json_time(struct json *j, const char *key, const char *utc);
/* Reads such a time (a space or a T between, an optional Z) into *tm
 * (UTC fields); false when it is not one. */
bool json_utc_parse(const char *s, struct tm *tm);
void json_int(struct json *j, const char *key, long long val);
void json_num(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);
void json_escape(FILE *f, const char *s, size_t n);
/* The same for text of code page cp (NULL: 850); mixed: valid UTF-8
 * sequences of two bytes or more pass as they are. */
void json_escape_cp(FILE *f, const char *s, size_t n, const struct codepage *cp, bool mixed);

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
