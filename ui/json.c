#include "ui/json.h"

#include <string.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->first[0] = true;
}

void json_escape(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else if (c >= 0x80)
				/* Volume text is code page 850, not UTF-8: keep JSON
				 * valid by escaping high bytes as their Latin-1 code points. */
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
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
	sep(j, key);
	fputc(c, j->f);
	j->begun = true;
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
	j->kind[j->depth] = c;
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
