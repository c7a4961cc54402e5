/* warpdrv hold / unhold: a held package keeps its installed version;
 * upgrade passes it by (state/holds.h keeps the rows). */
#ifndef WD_HOLD_H
#define WD_HOLD_H

#include <stdbool.h>

#include "session/session.h"

/* Holds (held) or releases each of the n installed packages names, in one
 * database transaction; every name must be installed. Under the session's
 * dry run only checked, nothing written. */
int hold_packages(struct session *s, char *const *names, int n, bool held,
		  struct wd_err *err);

#endif
