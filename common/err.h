/* Errors: every fallible function below ui/ returns 0 or the negated exit code
 * of the command-line contract, and leaves a message the user can act on in a
 * struct wd_err. ui/ prints it; nothing else does. */
#ifndef WD_ERR_H
#define WD_ERR_H

#include <stdarg.h>

enum wd_code {
	WD_OK = 0,
	WD_EFAIL = 1,    /* failed */
	WD_EUSAGE = 2,   /* usage error */
	WD_ETRUST = 3,   /* integrity or trust failure */
	WD_ELICENSE = 4, /* subscription problem */
	WD_ENODEV = 5,   /* no supported device to configure */
};

struct wd_err {
	int code;
	char msg[1024];
};

/* Sets the error and returns -code, so a caller can `return wd_err_set(...)`. */
int wd_err_set(struct wd_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wd_err_vset(struct wd_err *e, int code, const char *fmt, va_list ap);
/* Puts "prefix: " in front of the message already set; returns -code. */
int wd_err_prefix(struct wd_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wd_err_clear(struct wd_err *e);
/* "WHERE line N: message": the form of every parser's complaint. */
int wd_err_line(struct wd_err *e, int code, const char *where, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
