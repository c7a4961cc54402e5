/* Growable byte buffers and borrowed (pointer, length) views.
 * An allocation that fails calls the handler the front end set (it says so
 * and exits 1, inside the exit-code contract); without one it aborts. */
#ifndef WD_BUF_H
#define WD_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct wd_buf {
	char *p;
	size_t len, cap;
};

/* A view into bytes someone else owns. */
struct wd_sv {
	const char *p;
	size_t n;
};

void *wd_xmalloc(size_t n);
void *wd_xcalloc(size_t n, size_t size);
void *wd_xrealloc(void *p, size_t n);
char *wd_xstrdup(const char *s);
char *wd_xstrndup(const char *s, size_t n);
char *wd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void wd_buf_reserve(struct wd_buf *b, size_t extra);
void wd_buf_add(struct wd_buf *b, const void *p, size_t n);
void wd_buf_addc(struct wd_buf *b, char c);
void wd_buf_adds(struct wd_buf *b, const char *s);
void wd_buf_addf(struct wd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The contents as a NUL-terminated string (the NUL is not counted in len). */
const char *wd_buf_cstr(struct wd_buf *b);
void wd_buf_reset(struct wd_buf *b);
void wd_buf_free(struct wd_buf *b);

static inline struct wd_sv wd_sv_make(const char *p, size_t n)
{
	struct wd_sv v = {p, n};
	return v;
}
struct wd_sv wd_sv_cstr(const char *s);
struct wd_sv wd_sv_trim(struct wd_sv v);   /* spaces and tabs, both ends */
bool wd_sv_eq(struct wd_sv v, const char *s);
bool wd_sv_ieq(struct wd_sv v, const char *s); /* ASCII case-insensitive */
bool wd_sv_istarts(struct wd_sv v, const char *prefix);
char *wd_sv_dup(struct wd_sv v);
/* 64 lowercase hex digits, as SHA-256 sums are written. */
bool wd_sv_is_sha256_hex(struct wd_sv v);
/* A decimal number of at most max: 0, or -1 for anything else (signs,
 * spaces, overflow). */
int wd_sv_u64(struct wd_sv v, unsigned long long max, unsigned long long *out);

/* The handler for an allocation that fails; it must not return. */
void wd_on_out_of_memory(void (*handler)(void));
/* An allocation failed (here or inside a library): the handler, or abort. */
_Noreturn void wd_out_of_memory(void);

#endif
