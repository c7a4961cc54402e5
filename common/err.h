/* Errors: every fallible function below ui/ returns 0 or the negated exit code
 * of the command-line contract, and leaves a message the user can act on in a
 * struct wd_err, with the error's kind. A caller that must tell errors apart
 * tests the kind, never the message; ui/ prints the message and maps the kind
 * to the exit code (ui/exit_code.c); nothing else does. */
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

/* What went wrong, for a caller that acts on it. The first five are the
 * kinds of the five exit codes, which wd_err_set gives; the others are set
 * where the error is made (wd_err_setk) for a caller that needs them. */
enum wd_kind {
	WD_K_NONE = 0,     /* no error, or one made by hand: its code says it */
	WD_K_FAIL,         /* failed (WD_EFAIL) */
	WD_K_USAGE,        /* usage error (WD_EUSAGE) */
	WD_K_TRUST,        /* integrity or trust failure (WD_ETRUST) */
	WD_K_LICENSE,      /* subscription problem (WD_ELICENSE) */
	WD_K_NODEV,        /* no supported device (WD_ENODEV) */
	WD_K_FILES_DIFFER, /* installed files differ from what was installed */
};

struct wd_err {
	int code;          /* the exit code the library returned, negated */
	enum wd_kind kind;
	char msg[1024];
};

/* Sets the error and returns -code, so a caller can `return wd_err_set(...)`. */
int wd_err_set(struct wd_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wd_err_vset(struct wd_err *e, int code, const char *fmt, va_list ap);
/* The same with a kind other than code's own; returns -code. */
int wd_err_setk(struct wd_err *e, enum wd_kind kind, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The error already set becomes one of code (and of code's kind), its
 * message kept; returns -code. */
int wd_err_recode(struct wd_err *e, int code);
/* The kind of an exit code (WD_K_NONE for 0 or a code of no kind). */
enum wd_kind wd_kind_of_code(int code);
/* Puts "prefix: " in front of the message already set; returns -code. */
int wd_err_prefix(struct wd_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wd_err_clear(struct wd_err *e);
/* "WHERE line N: message": the form of every parser's complaint. */
int wd_err_line(struct wd_err *e, int code, const char *where, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
