/* The spread of a figure measured in several rounds, and whether two such
 * figures can be told apart. Pure arithmetic; never prints. */
#ifndef WD_BENCH_SPREAD_H
#define WD_BENCH_SPREAD_H

#include <stdbool.h>

/* n rounds of one figure: the median, the range (min to max) and the
 * quartiles (the medians of the lower and the upper half, the middle value
 * left out when n is odd; with fewer than 4 rounds they are min and max). */
struct bench_spread {
	int n;
	double median, min, max, q1, q3;
};

/* The spread of v[0..n) (v is left as it is); n 0 gives all zeros. */
void bench_spread_of(const double *v, int n, struct bench_spread *out);
/* True when the two ranges overlap: the rounds cannot tell the two figures
 * apart (a single round has a range of one point, so two single rounds are
 * never "within the spread"; the caller says the spread is unknown). */
bool bench_within_spread(const struct bench_spread *a, const struct bench_spread *b);

#endif
