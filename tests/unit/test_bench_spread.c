/* The spread of a figure over rounds (netbench/bench_spread.c): medians,
 * ranges and quartiles worked by hand, and when two labels' runs can and
 * cannot tell a difference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "netbench/bench_spread.h"

static void spread_is(const double *v, int n, double median, double min, double max,
		      double q1, double q3)
{
	struct bench_spread s;
	bench_spread_of(v, n, &s);
	assert_int_equal(s.n, n);
	assert_float_equal(s.median, median, 1e-9);
	assert_float_equal(s.min, min, 1e-9);
	assert_float_equal(s.max, max, 1e-9);
	assert_float_equal(s.q1, q1, 1e-9);
	assert_float_equal(s.q3, q3, 1e-9);
}

static void test_median_range_and_quartiles(void **state)
{
	(void)state;
	const double one[] = {7};
	spread_is(one, 1, 7, 7, 7, 7, 7);
	const double two[] = {9, 3};
	spread_is(two, 2, 6, 3, 9, 3, 9);                  /* below 4: quartiles are the range */
	const double three[] = {5, 1, 3};
	spread_is(three, 3, 3, 1, 5, 1, 5);
	const double four[] = {4, 1, 3, 2};
	spread_is(four, 4, 2.5, 1, 4, 1.5, 3.5);           /* halves {1,2} and {3,4} */
	const double five[] = {10, 50, 20, 40, 30};
	spread_is(five, 5, 30, 10, 50, 15, 45);            /* the middle value left out of both */
	const double six[] = {6, 5, 4, 3, 2, 1};
	spread_is(six, 6, 3.5, 1, 6, 2, 5);
	/* The input is left in its order. */
	double mine[] = {3, 1, 2};
	struct bench_spread s;
	bench_spread_of(mine, 3, &s);
	assert_true(mine[0] == 3 && mine[1] == 1 && mine[2] == 2);
	bench_spread_of(mine, 0, &s);
	assert_int_equal(s.n, 0);
}

static struct bench_spread of(const double *v, int n)
{
	struct bench_spread s;
	bench_spread_of(v, n, &s);
	return s;
}

static void test_within_the_spread_when_the_ranges_overlap(void **state)
{
	(void)state;
	const double before[] = {100, 104, 98}, near[] = {103, 110, 107}, far[] = {120, 125, 121};
	struct bench_spread a = of(before, 3), b = of(near, 3), c = of(far, 3);
	assert_true(bench_within_spread(&a, &b));   /* 103 <= 104: the runs overlap */
	assert_true(bench_within_spread(&b, &a));
	assert_false(bench_within_spread(&a, &c));  /* 104 < 120: a difference the runs show */
	assert_false(bench_within_spread(&c, &a));
	/* Ranges that touch at one figure still overlap. */
	const double touch[] = {104, 130};
	struct bench_spread t = of(touch, 2);
	assert_true(bench_within_spread(&a, &t));
	/* One run against several: its one figure inside their range or not. */
	const double inside[] = {99}, outside[] = {97};
	struct bench_spread i = of(inside, 1), o = of(outside, 1);
	assert_true(bench_within_spread(&a, &i));
	assert_false(bench_within_spread(&a, &o));
	/* One run each: the spread is unknown, never "within" it, even if equal. */
	assert_false(bench_within_spread(&i, &i));
	/* Nothing measured on one side. */
	struct bench_spread none = of(inside, 0);
	assert_false(bench_within_spread(&a, &none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_range_and_quartiles),
		cmocka_unit_test(test_within_the_spread_when_the_ranges_overlap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
