#include "common/err.h"

#include <stdio.h>
#include <string.h>

int wd_err_vset(struct wd_err *e, int code, const char *fmt, va_list ap)
{
	if (code <= 0)
		code = WD_EFAIL;
	if (e) {
		e->code = code;
		e->kind = wd_kind_of_code(code);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	}
	return -code;
}

enum wd_kind wd_kind_of_code(int code)
{
	switch (code) {
	case WD_EFAIL: return WD_K_FAIL;
	case WD_EUSAGE: return WD_K_USAGE;
	case WD_ETRUST: return WD_K_TRUST;
	case WD_ELICENSE: return WD_K_LICENSE;
	case WD_ENODEV: return WD_K_NODEV;
	default: return WD_K_NONE;
	}
}

int wd_err_setk(struct wd_err *e, enum wd_kind kind, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = wd_err_vset(e, code, fmt, ap);
	va_end(ap);
	if (e)
		e->kind = kind;
	return r;
}

int wd_err_recode(struct wd_err *e, int code)
{
	if (code <= 0)
		code = WD_EFAIL;
	if (e) {
		e->code = code;
		e->kind = wd_kind_of_code(code);
	}
	return -code;
}

int wd_err_set(struct wd_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = wd_err_vset(e, code, fmt, ap);
	va_end(ap);
	return r;
}

int wd_err_prefix(struct wd_err *e, const char *fmt, ...)
{
	if (!e)
		return -WD_EFAIL;
	char old[sizeof e->msg];
	memcpy(old, e->msg, sizeof old);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	size_t used = n < 0 ? 0 : (size_t)n < sizeof e->msg ? (size_t)n : sizeof e->msg - 1;
	/* Whatever does not fit is cut: a message is for reading, not parsing. */
	size_t room = sizeof e->msg - 1 - used;
	size_t olen = strnlen(old, sizeof old - 1);
	if (room >= 2) {
		memcpy(e->msg + used, ": ", 2);
		used += 2;
		room -= 2;
		size_t k = olen < room ? olen : room;
		memcpy(e->msg + used, old, k);
		used += k;
	}
	e->msg[used] = '\0';
	if (e->code <= 0)
		wd_err_recode(e, WD_EFAIL);
	return -e->code;
}

void wd_err_clear(struct wd_err *e)
{
	if (e) {
		e->code = 0;
		e->kind = WD_K_NONE;
		e->msg[0] = '\0';
	}
}

int wd_err_line(struct wd_err *e, int code, const char *where, int line, const char *fmt, ...)
{
	char msg[sizeof e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return wd_err_set(e, code, "%s line %d: %.900s", where, line, msg);
}
