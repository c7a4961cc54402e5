/* libFuzzer target: the unified diff. The input is two texts split at the
 * first NUL; the diff applied to the first must give the second. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/diff.h"
#include "tests/diff_apply.h"

static char *without_cr(const uint8_t *p, size_t n, size_t *out)
{
	char *s = wd_xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] != '\r')
			s[k++] = (char)p[i];
	*out = k;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *z = memchr(data, 0, size);
	size_t an = z ? (size_t)(z - data) : size;
	size_t alen, blen;
	char *a = without_cr(data, an, &alen);
	char *b = z ? without_cr(z + 1, size - an - 1, &blen) : without_cr(data, 0, &blen);
	struct wd_buf d = {0};
	wd_diff(a, alen, b, blen, "a", "b", &d);
	size_t len;
	char *got = diff_apply(a, alen, d.p ? d.p : "", d.len, &len);
	if (!got || len != blen || memcmp(got, b, len))
		abort();
	free(got);
	wd_buf_free(&d);
	free(a);
	free(b);
	return 0;
}
