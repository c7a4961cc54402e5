/* Test helper: applies a unified diff made by wd_diff to the old text and
 * returns the new text, or NULL when the diff does not fit the old text.
 * Texts hold lines ending in LF and no CR (the diff shows lines without CR). */
#ifndef WD_DIFF_APPLY_H
#define WD_DIFF_APPLY_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static inline const char *diff_nth_line(const char *s, size_t len, size_t k)
{
	const char *p = s, *end = s + len;
	while (k-- && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	return p;
}

static inline char *diff_apply(const char *a, size_t alen, const char *diff, size_t dlen,
			       size_t *outlen)
{
	struct wd_buf out = {0};
	size_t done = 0; /* lines of a copied so far */
	const char *p = diff, *end = diff + dlen;
	bool in_hunk = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n >= 2 && p[0] == '@' && p[1] == '@') {
			size_t as, ac, bs, bc;
			if (sscanf(p, "@@ -%zu,%zu +%zu,%zu @@", &as, &ac, &bs, &bc) != 4)
				goto bad;
			size_t first = ac ? as - 1 : as;
			if (first < done)
				goto bad;
			const char *from = diff_nth_line(a, alen, done), *to = diff_nth_line(a, alen, first);
			wd_buf_add(&out, from, (size_t)(to - from));
			done = first;
			in_hunk = true;
		} else if (!in_hunk) {
			/* the --- and +++ header */
		} else if (n >= 1 && (p[0] == ' ' || p[0] == '-')) {
			const char *l = diff_nth_line(a, alen, done), *le = diff_nth_line(a, alen, done + 1);
			size_t ln = (size_t)(le - l);
			if (ln && l[ln - 1] == '\n')
				ln--;
			if (ln != n - 1 || memcmp(l, p + 1, ln))
				goto bad;
			if (p[0] == ' ')
				wd_buf_add(&out, l, (size_t)(le - l));
			done++;
		} else if (n >= 1 && p[0] == '+') {
			wd_buf_add(&out, p + 1, n - 1);
			bool last = nl && nl + 1 < end && nl[1] == '\\';
			if (!last)
				wd_buf_addc(&out, '\n');
		}
		p = nl ? nl + 1 : end;
	}
	const char *rest = diff_nth_line(a, alen, done);
	wd_buf_add(&out, rest, (size_t)(a + alen - rest));
	*outlen = out.len;
	wd_buf_cstr(&out);
	return out.p;
bad:
	wd_buf_free(&out);
	return NULL;
}

#endif
