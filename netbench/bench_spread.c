/* The spread of a figure over rounds (netbench/bench_spread.h). */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "netbench/bench_spread.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the sorted s[0..n), n > 0. */
static double median_sorted(const double *s, int n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void bench_spread_of(const double *v, int n, struct bench_spread *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0)
		return;
	double *s = wd_xmalloc(sizeof *s * (size_t)n);
	memcpy(s, v, sizeof *s * (size_t)n);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = median_sorted(s, n);
	if (n < 4) {
		out->q1 = out->min;
		out->q3 = out->max;
	} else {
		out->q1 = median_sorted(s, n / 2);
		out->q3 = median_sorted(s + (n + 1) / 2, n / 2);
	}
	free(s);
}

bool bench_within_spread(const struct bench_spread *a, const struct bench_spread *b)
{
	if (a->n == 0 || b->n == 0 || (a->n == 1 && b->n == 1))
		return false;
	return a->min <= b->max && b->min <= a->max;
}
