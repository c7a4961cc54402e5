/* Held packages (table hold): `warpdrv hold PKG` keeps a package at its
 * installed version; `upgrade` passes it by. Each function takes a database
 * that may not be open (no database: nothing is held). */
#ifndef WD_HOLDS_H
#define WD_HOLDS_H

#include <stdbool.h>

#include "state/db.h"

/* Is name held? */
int hold_get(struct db *db, const char *name, bool *held, struct wd_err *err);
/* Holds or releases name (its own statement; the caller may wrap it). */
int hold_set(struct db *db, const char *name, bool held, struct wd_err *err);

#endif
