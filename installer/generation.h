/* Configuration generations. Each applied change of CONFIG.SYS and
 * PROTOCOL.INI is generation N: a row (date, command, summary) and plain
 * copies of both files as they were before it, in
 * var/lib/warpdrv/generations/N/, which a recovery command prompt can copy
 * back by hand. The copies are written by the transaction that applies the
 * change (txn_plan_config), so a generation exists exactly when its change
 * was committed. The rows, and generation_next and generation_list, are
 * state/generations.h's. */
#ifndef WD_GENERATION_H
#define WD_GENERATION_H

#include "state/db.h"
#include "state/generations.h"
#include "common/buf.h"
#include "txn/txn.h"
#include "os2/volume.h"

#define WD_GENERATIONS_DIR WD_STATE_DIR "/generations"

/* What a plan that changes configuration files records when it commits. */
struct generation_note {
	long n;
	char *command, *summary;
};

/* "var/lib/warpdrv/generations/N" (malloc'd). */
char *generation_dir(long n);
/* Adds to plan the rewrite of each configuration file whose new bytes differ,
 * each saved first into generation note->n's folder, and (when any differs)
 * the recording of the generation at commit. A file that does not change is
 * not copied: before generation N it was as the next generation that copied
 * it saved it, or as it is now. files[i] is the host path below the root; old[i] the
 * bytes the new ones were planned from: the file must still hold them. */
int generation_plan(const struct volume *v, struct txn_plan *plan, struct generation_note *note,
		    const char *const *files, const struct wd_buf *old, const struct wd_buf *new_,
		    size_t nfiles, struct wd_err *err);

#endif
