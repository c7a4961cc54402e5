#include "installer/finding.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

void report_add(struct check_report *rep, const char *file, size_t line,
		enum check_severity sev, const char *code, const char *key, const char *fmt, ...)
{
	if (!(rep->n & (rep->n - 1))) /* 0, 1, 2, 4, ...: room doubles */
		rep->v = wd_xrealloc(rep->v, (rep->n ? rep->n * 2 : 1) * sizeof *rep->v);
	struct finding *f = &rep->v[rep->n++];
	f->file = wd_xstrdup(file);
	f->line = line;
	f->severity = sev;
	f->code = code;
	f->key = wd_xstrdup(key ? key : "");
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	f->message = wd_xmalloc(len > 0 ? (size_t)len + 1 : 1);
	f->message[0] = 0;
	va_start(ap, fmt);
	if (len > 0)
		vsnprintf(f->message, (size_t)len + 1, fmt, ap);
	va_end(ap);
	if (sev == CHECK_ERROR)
		rep->errors++;
}

const struct finding *report_find_error(const struct check_report *rep, const char *code,
					const char *key)
{
	for (size_t i = 0; i < rep->n; i++)
		if (rep->v[i].severity == CHECK_ERROR && !strcmp(rep->v[i].code, code) &&
		    !strcasecmp(rep->v[i].key, key))
			return &rep->v[i];
	return NULL;
}

void check_report_free(struct check_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->v[i].file);
		free(rep->v[i].key);
		free(rep->v[i].message);
	}
	free(rep->v);
	free(rep->pi_file);
	memset(rep, 0, sizeof *rep);
}

static bool before(const struct finding *x, const struct finding *y)
{
	/* CONFIG.SYS first: it is read first at boot. */
	int xc = strcmp(x->file, "CONFIG.SYS") != 0, yc = strcmp(y->file, "CONFIG.SYS") != 0;
	if (xc != yc)
		return xc < yc;
	int c = strcmp(x->file, y->file);
	if (c)
		return c < 0;
	return x->line < y->line;
}

void check_sort(struct check_report *rep)
{
	/* A merge sort: stable, so findings on one line keep the rules'
	 * order, and n log n however many a hostile volume makes. */
	if (rep->n < 2)
		return;
	struct finding *tmp = wd_xmalloc(rep->n * sizeof *tmp), *a = rep->v, *b = tmp;
	for (size_t w = 1; w < rep->n; w *= 2) {
		for (size_t lo = 0; lo < rep->n; lo += 2 * w) {
			size_t mid = lo + w < rep->n ? lo + w : rep->n;
			size_t hi = lo + 2 * w < rep->n ? lo + 2 * w : rep->n, i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				b[k++] = before(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		struct finding *t = a;
		a = b;
		b = t;
	}
	if (a != rep->v)
		memcpy(rep->v, a, rep->n * sizeof *a);
	free(tmp);
}
