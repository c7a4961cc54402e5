#include "catalog/version.h"

#include <ctype.h>
#include <string.h>

#include "catalog/names.h"

/* Where the release ends: at a '-' or '~' followed by a letter, the start
 * of a pre-release suffix ("-beta", "-rc1", "~pre2"); else at the end. */
static size_t release_end(const char *v)
{
	for (size_t i = 0; v[i]; i++)
		if ((v[i] == '-' || v[i] == '~') && isalpha((unsigned char)v[i + 1]))
			return i;
	return strlen(v);
}

static bool is_sep(char c)
{
	return c == '.' || c == '-' || c == '+' || c == '~' || c == '_';
}

bool version_valid(const char *v)
{
	size_t n = strlen(v);
	if (!names_version_ok(wd_sv_make(v, n)) || !isdigit((unsigned char)v[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (is_sep(v[i]) && is_sep(v[i - 1]))
			return false; /* "1..2": an empty part */
	return !is_sep(v[n - 1]);
}

/* The next part of [*p, end): a run of digits or a run of letters. */
struct part {
	const char *s;
	size_t n;
	bool digits;
};

static bool next_part(const char **p, const char *end, struct part *out)
{
	while (*p < end && is_sep(**p))
		(*p)++;
	if (*p >= end)
		return false;
	out->s = *p;
	out->digits = isdigit((unsigned char)**p) != 0;
	while (*p < end && !is_sep(**p) &&
	       (isdigit((unsigned char)**p) != 0) == out->digits)
		(*p)++;
	out->n = (size_t)(*p - out->s);
	return true;
}

/* Numbers as numbers, of any length: leading zeros dropped, then the
 * longer is the larger, then digit by digit. */
static int cmp_number(struct part a, struct part b)
{
	while (a.n > 1 && a.s[0] == '0')
		a.s++, a.n--;
	while (b.n > 1 && b.s[0] == '0')
		b.s++, b.n--;
	if (a.n != b.n)
		return a.n < b.n ? -1 : 1;
	return memcmp(a.s, b.s, a.n);
}

static int cmp_letters(struct part a, struct part b)
{
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		int x = tolower((unsigned char)a.s[i]), y = tolower((unsigned char)b.s[i]);
		if (x != y)
			return x - y;
	}
	return a.n == b.n ? 0 : a.n < b.n ? -1 : 1;
}

/* Part by part; a number outranks letters in the same place (4.13a <
 * 4.13.1), and a version with more parts is the later (4.13 < 4.13a). */
static int cmp_parts(const char *a, const char *aend, const char *b, const char *bend)
{
	for (;;) {
		struct part x, y;
		bool hx = next_part(&a, aend, &x), hy = next_part(&b, bend, &y);
		if (!hx || !hy)
			return hx - hy;
		if (x.digits != y.digits)
			return x.digits ? 1 : -1;
		int c = x.digits ? cmp_number(x, y) : cmp_letters(x, y);
		if (c)
			return c;
	}
}

int version_cmp(const char *a, const char *b)
{
	bool va = version_valid(a), vb = version_valid(b);
	if (!va || !vb) {
		if (va != vb)
			return va ? 1 : -1;
		int c = strcmp(a, b);
		return c < 0 ? -1 : c > 0;
	}
	size_t ra = release_end(a), rb = release_end(b);
	int c = cmp_parts(a, a + ra, b, b + rb);
	if (c)
		return c < 0 ? -1 : 1;
	/* The same release: a pre-release comes before it. */
	bool pa = a[ra] != '\0', pb = b[rb] != '\0';
	if (pa != pb)
		return pa ? -1 : 1;
	c = cmp_parts(a + ra, a + strlen(a), b + rb, b + strlen(b));
	return c < 0 ? -1 : c > 0;
}

int version_compare(const char *a, const char *b, int *out, struct wd_err *err)
{
	const char *bad = !version_valid(a) ? a : !version_valid(b) ? b : NULL;
	if (bad)
		return wd_err_set(err, WD_EFAIL, "version '%s': not a version (a digit first, "
				  "then %s)", bad, NAMES_VERSION_RULE);
	*out = version_cmp(a, b);
	return 0;
}

bool version_is_downgrade(const char *from, const char *to)
{
	return from && to && version_cmp(to, from) < 0;
}
