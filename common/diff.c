#include "common/diff.h"

#include <stdlib.h>
#include <string.h>

struct line {
	const char *p;
	size_t n; /* with its line ending */
};

static struct line *split(const char *s, size_t len, size_t *count)
{
	size_t n = 0, cap = 16;
	struct line *v = wd_xmalloc(cap * sizeof *v);
	const char *end = s + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl + 1 : end;
		if (n == cap)
			v = wd_xrealloc(v, (cap *= 2) * sizeof *v);
		v[n].p = s;
		v[n].n = (size_t)(e - s);
		n++;
		s = e;
	}
	*count = n;
	return v;
}

static int eq(const struct line *a, const struct line *b)
{
	return a->n == b->n && !memcmp(a->p, b->p, a->n);
}

enum op { KEEP, DEL, ADD };

/* Past this many differing lines the diff says "all old lines go, all new
 * lines come" instead of searching on: the trace of the search grows with
 * the square of the difference, and such a diff helps nobody read anyway. */
#define MAX_D 2000
/* The same when the search has compared this many times the lines of both
 * texts: the search costs (lines) x (differences), and this keeps it linear
 * in the lines (no diff a person reads comes near it). */
#define MAX_WORK_PER_LINE 64

static enum op *replace_all(size_t n, size_t m, size_t *len)
{
	enum op *ops = wd_xmalloc((n + m + 1) * sizeof *ops);
	for (size_t i = 0; i < n; i++)
		ops[i] = DEL;
	for (size_t i = 0; i < m; i++)
		ops[n + i] = ADD;
	*len = n + m;
	return ops;
}

/* Myers' greedy algorithm; trace[d] keeps the furthest x on diagonals -d..d
 * after step d, and walking it back from (n, m) gives the edit script. */
static enum op *edit_script(const struct line *a, size_t n, const struct line *b, size_t m,
			    size_t *len)
{
	long max = (long)(n + m);
	long **trace = NULL;
	long d, found = -1;
	long *prev = NULL;
	size_t work = 0, budget = MAX_WORK_PER_LINE * (n + m + 1);
	for (d = 0; d <= max && d <= MAX_D && found < 0 && work <= budget; d++) {
		long *v = wd_xmalloc((size_t)(2 * d + 1) * sizeof *v); /* v[d + k] */
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && prev[d - 1 + k - 1] < prev[d - 1 + k + 1]))
				x = prev[d - 1 + k + 1];
			else
				x = prev[d - 1 + k - 1] + 1;
			long y = x - k, v0 = x;
			while (x < (long)n && y < (long)m && eq(&a[x], &b[y])) {
				x++;
				y++;
			}
			work += (size_t)(x - v0) + 1;
			v[d + k] = x;
			if (x >= (long)n && y >= (long)m && found < 0)
				found = d;
		}
		trace = wd_xrealloc(trace, (size_t)(d + 1) * sizeof *trace);
		trace[d] = v;
		prev = v;
	}
	if (found < 0) {
		for (long i = 0; i < d; i++)
			free(trace[i]);
		free(trace);
		return replace_all(n, m, len);
	}
	size_t k_ops = 0;
	enum op *rev = wd_xmalloc((n + m + 1) * sizeof *rev);
	long x = (long)n, y = (long)m;
	for (d = found; d > 0; d--) {
		long *pv = trace[d - 1], k = x - y;
		long pk = (k == -d || (k != d && pv[d - 1 + k - 1] < pv[d - 1 + k + 1])) ? k + 1 : k - 1;
		long px = pv[d - 1 + pk], py = px - pk;
		while (x > px && y > py) {
			rev[k_ops++] = KEEP;
			x--;
			y--;
		}
		rev[k_ops++] = x == px ? ADD : DEL;
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		rev[k_ops++] = KEEP;
		x--;
		y--;
	}
	for (long i = 0; i <= found; i++)
		free(trace[i]);
	free(trace);
	enum op *ops = wd_xmalloc((k_ops ? k_ops : 1) * sizeof *ops);
	for (size_t i = 0; i < k_ops; i++)
		ops[i] = rev[k_ops - 1 - i];
	free(rev);
	*len = k_ops;
	return ops;
}

static void put_line(struct wd_buf *out, char tag, const struct line *l)
{
	size_t n = l->n;
	bool nl = n && l->p[n - 1] == '\n';
	if (nl)
		n--;
	if (n && l->p[n - 1] == '\r')
		n--;
	wd_buf_addc(out, tag);
	wd_buf_add(out, l->p, n);
	wd_buf_addc(out, '\n');
	if (!nl)
		wd_buf_adds(out, "\\ No newline at end of file\n");
}

void wd_diff(const char *a, size_t alen, const char *b, size_t blen, const char *aname,
	     const char *bname, struct wd_buf *out)
{
	size_t n, m, len;
	struct line *la = split(a, alen, &n), *lb = split(b, blen, &m);
	enum op *ops = edit_script(la, n, lb, m, &len);
	const size_t ctx = 3;
	bool header = false;
	size_t i = 0;
	/* Lines of a and b before ops[done], counted as the hunks go by. */
	size_t done = 0, ai_done = 0, bi_done = 0;
	while (i < len) {
		if (ops[i] == KEEP) {
			i++;
			continue;
		}
		/* A hunk: from ctx lines before this change to ctx lines after the
		 * last change that is within 2*ctx lines of the one before it. */
		size_t start = i >= ctx ? i - ctx : 0, end = i;
		for (size_t j = i; j < len; j++) {
			if (ops[j] != KEEP) {
				end = j + 1;
				continue;
			}
			if (j - end >= 2 * ctx)
				break;
		}
		end = end + ctx < len ? end + ctx : len;
		while (start < i && ops[start] != KEEP)
			start++;
		/* Line numbers where the hunk starts in a and b. */
		for (; done < start; done++) {
			ai_done += ops[done] != ADD;
			bi_done += ops[done] != DEL;
		}
		size_t ai = ai_done, bi = bi_done;
		size_t ac = 0, bc = 0;
		for (size_t j = start; j < end; j++) {
			ac += ops[j] != ADD;
			bc += ops[j] != DEL;
		}
		if (!header) {
			wd_buf_addf(out, "--- %s\n+++ %s\n", aname, bname);
			header = true;
		}
		wd_buf_addf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? ai + 1 : ai, ac, bc ? bi + 1 : bi, bc);
		for (size_t j = start; j < end; j++) {
			if (ops[j] == KEEP)
				put_line(out, ' ', &la[ai++]), bi++;
			else if (ops[j] == DEL)
				put_line(out, '-', &la[ai++]);
			else
				put_line(out, '+', &lb[bi++]);
		}
		i = end;
	}
	free(ops);
	free(la);
	free(lb);
}
