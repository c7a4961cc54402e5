/* The one place an error's kind becomes the program's exit code. */
#ifndef WD_UI_EXIT_CODE_H
#define WD_UI_EXIT_CODE_H

#include "common/err.h"

/* The exit code of a failed step: from err's kind; for an error with no
 * kind, its code; with neither, r's (a negated exit code), else 1. */
int ui_exit_code(const struct wd_err *err, int r);

#endif
