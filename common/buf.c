#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void (*oom_handler)(void);

void wd_on_out_of_memory(void (*handler)(void))
{
	oom_handler = handler;
}

_Noreturn void wd_out_of_memory(void)
{
	if (oom_handler)
		oom_handler(); /* the front end says so and exits */
	abort();
}

static void oom(void)
{
	wd_out_of_memory();
}

void *wd_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *wd_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *wd_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *wd_xstrdup(const char *s)
{
	return wd_xstrndup(s, strlen(s));
}

char *wd_xstrndup(const char *s, size_t n)
{
	char *p = wd_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *wd_xasprintf(const char *fmt, ...)
{
	struct wd_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	wd_buf_reserve(&b, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b.p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return b.p;
}

void wd_buf_reserve(struct wd_buf *b, size_t extra)
{
	if (extra > (size_t)-1 - b->len - 1)
		oom();
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	b->p = wd_xrealloc(b->p, cap);
	b->cap = cap;
}

void wd_buf_add(struct wd_buf *b, const void *p, size_t n)
{
	wd_buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void wd_buf_addc(struct wd_buf *b, char c)
{
	wd_buf_add(b, &c, 1);
}

void wd_buf_adds(struct wd_buf *b, const char *s)
{
	wd_buf_add(b, s, strlen(s));
}

void wd_buf_addf(struct wd_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	wd_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *wd_buf_cstr(struct wd_buf *b)
{
	wd_buf_reserve(b, 0);
	b->p[b->len] = '\0';
	return b->p;
}

void wd_buf_reset(struct wd_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void wd_buf_free(struct wd_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

struct wd_sv wd_sv_cstr(const char *s)
{
	return wd_sv_make(s, strlen(s));
}

struct wd_sv wd_sv_trim(struct wd_sv v)
{
	while (v.n && (v.p[0] == ' ' || v.p[0] == '\t')) {
		v.p++;
		v.n--;
	}
	while (v.n && (v.p[v.n - 1] == ' ' || v.p[v.n - 1] == '\t'))
		v.n--;
	return v;
}

bool wd_sv_eq(struct wd_sv v, const char *s)
{
	size_t n = strlen(s);
	return v.n == n && memcmp(v.p, s, n) == 0;
}

bool wd_sv_ieq(struct wd_sv v, const char *s)
{
	size_t n = strlen(s);
	return v.n == n && strncasecmp(v.p, s, n) == 0;
}

bool wd_sv_istarts(struct wd_sv v, const char *prefix)
{
	size_t n = strlen(prefix);
	return v.n >= n && strncasecmp(v.p, prefix, n) == 0;
}

char *wd_sv_dup(struct wd_sv v)
{
	return wd_xstrndup(v.p, v.n);
}

bool wd_sv_is_sha256_hex(struct wd_sv v)
{
	if (v.n != 64)
		return false;
	for (size_t i = 0; i < 64; i++)
		if (!(v.p[i] >= '0' && v.p[i] <= '9') && !(v.p[i] >= 'a' && v.p[i] <= 'f'))
			return false;
	return true;
}

int wd_sv_u64(struct wd_sv v, unsigned long long max, unsigned long long *out)
{
	if (!v.n || v.n > 20)
		return -1;
	unsigned long long x = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return -1;
		unsigned d = (unsigned)(v.p[i] - '0');
		if (x > (max - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}
