/* Shared by the fuzz targets: compare two line lists. */
#ifndef WD_FUZZ_LINES_H
#define WD_FUZZ_LINES_H

#include <stdlib.h>
#include <string.h>

#include "os2/textlines.h"

static inline int fz_same_line(const struct tl_line *a, const struct tl_line *b)
{
	if (a->len == b->len && !memcmp(a->p, b->p, a->len))
		return 1;
	/* A last line without an ending gains one when a line goes after it. */
	return a->eol == 0 && b->len > a->len && !memcmp(a->p, b->p, a->len) && b->eol == b->len - a->len;
}

/* Every line of old but `skip` (-1: none) is found, in order and byte for
 * byte, among the lines of new: what an edit must leave alone. */
static inline int fz_kept(const struct textlines *old, const struct textlines *new, long skip)
{
	size_t j = 0;
	for (size_t i = 0; i < old->n; i++) {
		if ((long)i == skip)
			continue;
		while (j < new->n && !fz_same_line(&old->v[i], &new->v[j]))
			j++;
		if (j == new->n)
			return 0;
		j++;
	}
	return 1;
}

static inline void fz_copy(const struct textlines *t, struct textlines *out)
{
	struct wd_buf b = {0};
	tl_write(t, &b);
	tl_parse(out, b.p ? b.p : "", b.len);
	wd_buf_free(&b);
}

#endif
