#include "os2/textlines.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void tl_line_free(struct tl_line *l)
{
	if (l->own)
		free(l->p);
	l->p = NULL;
}

static void push(struct textlines *t, size_t at, char *p, size_t len, size_t eol, bool own)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = wd_xrealloc(t->v, t->cap * sizeof *t->v);
	}
	memmove(t->v + at + 1, t->v + at, (t->n - at) * sizeof *t->v);
	t->v[at] = (struct tl_line){.p = p, .len = len, .eol = eol, .own = own};
	t->n++;
}

void tl_parse(struct textlines *t, const char *p, size_t n)
{
	memset(t, 0, sizeof *t);
	/* A run of Ctrl-Z at the very end is the old end-of-file mark: kept
	 * aside so that a line appended later goes before it. */
	size_t end = n;
	while (end > 0 && p[end - 1] == 0x1a)
		end--;
	if (end < n) {
		t->tail = wd_xstrndup(p + end, n - end);
		t->tail_len = n - end;
	}
	/* One copy of the bytes, each line a view into it: a line is
	 * NUL-terminated only where it is edited (lines are handled by length). */
	if (!end)
		return;
	t->block = wd_xmalloc(end);
	memcpy(t->block, p, end);
	size_t count = 0;
	for (const char *q = p, *e = p + end; q < e && (q = memchr(q, '\n', (size_t)(e - q))); q++)
		count++;
	t->cap = count + 1;
	t->v = wd_xmalloc(t->cap * sizeof *t->v);
	size_t i = 0;
	while (i < end) {
		const char *lf = memchr(p + i, '\n', end - i);
		size_t len = lf ? (size_t)(lf - (p + i)) + 1 : end - i;
		size_t eol = 0;
		if (lf)
			eol = len >= 2 && p[i + len - 2] == '\r' ? 2 : 1;
		t->v[t->n++] = (struct tl_line){.p = t->block + i, .len = len, .eol = eol};
		i += len;
	}
}

void tl_free(struct textlines *t)
{
	for (size_t i = 0; i < t->n; i++)
		tl_line_free(&t->v[i]);
	free(t->v);
	free(t->block);
	free(t->tail);
	memset(t, 0, sizeof *t);
}

void tl_write(const struct textlines *t, struct wd_buf *out)
{
	for (size_t i = 0; i < t->n; i++)
		wd_buf_add(out, t->v[i].p, t->v[i].len);
	if (t->tail_len)
		wd_buf_add(out, t->tail, t->tail_len);
}

struct wd_sv tl_text(const struct textlines *t, size_t i)
{
	return wd_sv_make(t->v[i].p, t->v[i].len - t->v[i].eol);
}

const char *tl_newline(const struct textlines *t)
{
	bool any = false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].eol == 2)
			return "\r\n";
		any = any || t->v[i].eol;
	}
	return any ? "\n" : "\r\n";
}

size_t tl_count_lf_only(const struct textlines *t, size_t *first)
{
	size_t count = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].eol != 1)
			continue;
		if (!count && first)
			*first = i;
		count++;
	}
	return count;
}

bool tl_one_line(const char *text, size_t len)
{
	/* A CR inside a line is kept as it was read; only one at the end
	 * would join the line ending and change it. */
	return !memchr(text, '\n', len) && !(len && text[len - 1] == '\r');
}

int tl_insert(struct textlines *t, size_t at, const char *text, size_t len)
{
	if (at > t->n || !tl_one_line(text, len))
		return -1;
	const char *nl = tl_newline(t);
	size_t nll = strlen(nl);
	if (at > 0 && t->v[at - 1].eol == 0) {
		struct tl_line *prev = &t->v[at - 1];
		char *np = wd_xmalloc(prev->len + nll + 1);
		memcpy(np, prev->p, prev->len);
		memcpy(np + prev->len, nl, nll + 1);
		tl_line_free(prev);
		prev->p = np;
		prev->own = true;
		prev->len += nll;
		prev->eol = nll;
	}
	char *p = wd_xmalloc(len + nll + 1);
	memcpy(p, text, len);
	memcpy(p + len, nl, nll + 1);
	push(t, at, p, len + nll, nll, true);
	return 0;
}

int tl_replace(struct textlines *t, size_t i, const char *text, size_t len)
{
	if (i >= t->n || !tl_one_line(text, len))
		return -1;
	struct tl_line *l = &t->v[i];
	char *p = wd_xmalloc(len + l->eol + 1);
	memcpy(p, text, len);
	memcpy(p + len, l->p + l->len - l->eol, l->eol);
	p[len + l->eol] = '\0';
	tl_line_free(l);
	l->p = p;
	l->own = true;
	l->len = len + l->eol;
	return 0;
}

void tl_delete(struct textlines *t, size_t i)
{
	if (i >= t->n)
		return;
	tl_line_free(&t->v[i]);
	memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof *t->v);
	t->n--;
}

size_t tl_delete_marked(struct textlines *t, const bool *gone)
{
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (gone[i])
			tl_line_free(&t->v[i]);
		else
			t->v[w++] = t->v[i];
	}
	size_t n = t->n - w;
	t->n = w;
	return n;
}

void tl_delete_range(struct textlines *t, size_t from, size_t to)
{
	if (to > t->n)
		to = t->n;
	if (from >= to)
		return;
	for (size_t i = from; i < to; i++)
		tl_line_free(&t->v[i]);
	memmove(t->v + from, t->v + to, (t->n - to) * sizeof *t->v);
	t->n -= to - from;
}

int tl_insert_many(struct textlines *t, size_t at, const char *const *text, const size_t *len,
		   size_t n)
{
	if (at > t->n)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!tl_one_line(text[k], len[k]))
			return -1;
	if (!n)
		return 0;
	/* The first one fixes the line before it and the ending; the rest
	 * follow it (the ending tl_newline gives cannot change after it). */
	if (tl_insert(t, at, text[0], len[0]))
		return -1;
	if (n == 1)
		return 0;
	const char *nl = tl_newline(t);
	size_t nll = strlen(nl);
	if (t->n + n - 1 > t->cap) {
		while (t->n + n - 1 > t->cap)
			t->cap *= 2;
		t->v = wd_xrealloc(t->v, t->cap * sizeof *t->v);
	}
	memmove(t->v + at + n, t->v + at + 1, (t->n - at - 1) * sizeof *t->v);
	for (size_t k = 1; k < n; k++) {
		char *p = wd_xmalloc(len[k] + nll + 1);
		memcpy(p, text[k], len[k]);
		memcpy(p + len[k], nl, nll + 1);
		t->v[at + k] = (struct tl_line){.p = p, .len = len[k] + nll, .eol = nll, .own = true};
	}
	t->n += n - 1;
	return 0;
}

bool tl_sv_ieq(struct wd_sv a, struct wd_sv b)
{
	if (a.n != b.n)
		return false;
	for (size_t i = 0; i < a.n; i++) {
		unsigned char x = (unsigned char)a.p[i], y = (unsigned char)b.p[i];
		if (x >= 'a' && x <= 'z')
			x -= 32;
		if (y >= 'a' && y <= 'z')
			y -= 32;
		if (x != y)
			return false;
	}
	return true;
}

enum ini_kind tl_ini_line(struct wd_sv text, struct wd_sv *a, struct wd_sv *b)
{
	*a = *b = wd_sv_make(text.p, 0);
	if (text.n && text.p[0] == ';')
		return INI_COMMENT;
	struct wd_sv t = wd_sv_trim(text);
	if (!t.n)
		return INI_BLANK;
	if (t.p[0] == '[') {
		const char *close = memchr(t.p, ']', t.n);
		if (!close)
			return INI_OTHER;
		*a = wd_sv_trim(wd_sv_make(t.p + 1, (size_t)(close - t.p) - 1));
		return INI_HEADER;
	}
	const char *eq = memchr(t.p, '=', t.n);
	if (!eq)
		return INI_OTHER;
	*a = wd_sv_trim(wd_sv_make(t.p, (size_t)(eq - t.p)));
	*b = wd_sv_trim(wd_sv_make(eq + 1, t.n - (size_t)(eq - t.p) - 1));
	return a->n ? INI_KEY : INI_OTHER;
}
