#include "ui/json.h"

#include <stdlib.h>
#include <string.h>

#include "os2/codepage.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->first[0] = true;
}

/* One code point of a string, escaped as JSON wants it. */
static void put_cp(FILE *f, unsigned u, const char *raw, size_t rawlen)
{
	switch (u) {
	case '"': fputs("\\\"", f); break;
	case '\\': fputs("\\\\", f); break;
	case '\n': fputs("\\n", f); break;
	case '\r': fputs("\\r", f); break;
	case '\t': fputs("\\t", f); break;
	default:
		if (u < 0x20 || (u >= 0x7f && u < 0xa0))
			fprintf(f, "\\u%04x", u); /* controls, C1 ones too */
		else if (raw)
			fwrite(raw, 1, rawlen, f); /* valid UTF-8 passes as it is */
		else {
			struct wd_buf b = {0};
			utf8_put(&b, u);
			fwrite(b.p, 1, b.len, f);
			wd_buf_free(&b);
		}
	}
}

void json_escape(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned u;
		size_t len = utf8_seq(s + i, n - i, &u);
		if (len) {
			put_cp(f, u, s + i, len);
			i += len;
		} else {
			/* not UTF-8 (an argument, a host path): one U+FFFD per
			 * byte, never the byte read as Latin-1 */
			fputs("\\ufffd", f);
			i++;
		}
	}
	fputc('"', f);
}

void json_escape_cp(FILE *f, const char *s, size_t n, const struct codepage *cp, bool mixed)
{
	if (!cp)
		cp = codepage_find(CODEPAGE_DEFAULT);
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned u;
		size_t len = mixed ? utf8_seq(s + i, n - i, &u) : 0;
		if (len > 1) {
			put_cp(f, u, s + i, len);
			i += len;
		} else {
			unsigned char c = (unsigned char)s[i++];
			put_cp(f, c < 0x80 ? c : cp->high[c - 0x80], NULL, 0);
		}
	}
	fputc('"', f);
}

static void sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputs(", ", j->f);
	j->first[j->depth] = false;
	if (key) {
		json_escape(j->f, key, strlen(key));
		fputs(": ", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	bool top = j->depth == 0;
	sep(j, key);
	fputc(c, j->f);
	j->begun = true;
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
	j->kind[j->depth] = c;
	if (top && c == '{')
		json_int(j, "format", JSON_FORMAT); /* every document says its schema */
}

static void close_(struct json *j, char c)
{
	if (j->depth == 1 && c == '}' && j->hold_top)
		j->pending = true;
	else
		fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_hold_top(struct json *j)
{
	j->hold_top = true;
}

bool json_reopen_top(struct json *j)
{
	if (j->pending) {
		j->pending = false;
		j->depth = 1;
		j->first[1] = false;
		return true;
	}
	if (!j->begun || j->depth < 1 || j->kind[1] != '{')
		return false;
	while (j->depth > 1)
		close_(j, j->kind[j->depth] == '{' ? '}' : ']');
	return true;
}

void json_end_document(struct json *j)
{
	if (!j->pending)
		return;
	j->pending = false;
	fputs("}\n", j->f);
	fflush(j->f);
}

void json_obj_begin(struct json *j, const char *key) { open_(j, key, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_(j, key, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_strn(struct json *j, const char *key, const char *val, size_t n)
{
	sep(j, key);
	if (!val)
		fputs("null", j->f);
	else
		json_escape(j->f, val, n);
}

void json_voln(struct json *j, const char *key, const char *val, size_t n)
{
	sep(j, key);
	if (!val)
		fputs("null", j->f);
	else
		json_escape_cp(j->f, val, n, j->cp, false);
}

void json_vol(struct json *j, const char *key, const char *val)
{
	json_voln(j, key, val, val ? strlen(val) : 0);
}

void json_mixed(struct json *j, const char *key, const char *val)
{
	sep(j, key);
	if (!val)
		fputs("null", j->f);
	else
		json_escape_cp(j->f, val, strlen(val), j->cp, true);
}

static bool two(const char *p)
{
	return p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9';
}

bool json_utc_parse(const char *s, struct tm *tm)
{
	/* "2026-12-01 18:00:48" (SQLite's datetime()), or with a T and a Z */
	if (!s || strlen(s) < 19 || !two(s) || !two(s + 2) || s[4] != '-' || !two(s + 5) ||
	    s[7] != '-' || !two(s + 8) || (s[10] != ' ' && s[10] != 'T') || !two(s + 11) ||
	    s[13] != ':' || !two(s + 14) || s[16] != ':' || !two(s + 17) ||
	    (s[19] && strcmp(s + 19, "Z")))
		return false;
	memset(tm, 0, sizeof *tm);
	tm->tm_year = atoi(s) - 1900;
	tm->tm_mon = atoi(s + 5) - 1;
	tm->tm_mday = atoi(s + 8);
	tm->tm_hour = atoi(s + 11);
	tm->tm_min = atoi(s + 14);
	tm->tm_sec = atoi(s + 17);
	return true;
}

void json_time(struct json *j, const char *key, const char *utc)
{
	struct tm tm;
	if (!utc || !*utc) {
		json_null(j, key);
	} else if (json_utc_parse(utc, &tm)) {
		char t[32];
		strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_str(j, key, t);
	} else {
		json_str(j, key, utc); /* not a time warpdrv wrote: as it is */
	}
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_strn(j, key, val, val ? strlen(val) : 0);
}

void json_int(struct json *j, const char *key, long long val)
{
	sep(j, key);
	fprintf(j->f, "%lld", val);
}

void json_num(struct json *j, const char *key, double val, int decimals)
{
	sep(j, key);
	fprintf(j->f, "%.*f", decimals, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	if (!j->pending)
		fputc('\n', j->f);
	fflush(j->f);
}
