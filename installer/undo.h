/* rollback --packages: a whole setup taken back in one transaction. The
 * configuration files as before generation N (the generation copies, as
 * rollback puts them back) and the packages generations N and later
 * installed (state/lifecycle.h's generation_package) removed, each file
 * deleted or the original it had replaced put back. The commit records a
 * generation (when a file changes) and a removal per package in the
 * history. Nothing here prints. */
#ifndef WD_UNDO_H
#define WD_UNDO_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "installer/setup.h"
#include "txn/txn.h"

/* The installed packages generations from on installed, each once
 * (malloc'd names and versions). */
int undo_packages(struct db *db, long from, char ***names, char ***versions, size_t *n,
		  struct wd_err *err);
/* rollback --packages GEN (*gen 0: the newest generation, set to the one
 * taken): s's files as before it (setup_plan_rollback, rendered), its
 * command and summary, the packages to remove (undo_packages) and whether
 * either file changes (*files). */
int undo_prepare(struct setup *s, long *gen, char ***names, char ***versions, size_t *n,
		 bool *files, struct wd_err *err);

/* The plan against the volume as it is (s opened, s->new_ holding the
 * files' bytes as before the generation; s->old as they are now): RETIRE
 * of every file of each package, the rewrite of the files that differ and
 * the generation. Refuses a file the new CONFIG.SYS would still load (the
 * package was configured again after the generation, by hand or by a later
 * change outside the range). */
int undo_plan(struct setup *s, struct db *db, char *const *names, size_t n,
	      struct txn_plan *plan, struct wd_err *err);
/* Takes the lock, plans again (undo_plan) and applies it as one
 * transaction; s->generation is the generation it recorded (0: none). */
int undo_apply(struct setup *s, char *const *names, size_t n, struct wd_err *err);

/* installer/undo_run.c: rollback --packages below the front end. */
struct session;
struct undo_set {
	struct setup *s;
	long gen;                 /* the generation taken back */
	char **names, **versions; /* the packages removed */
	size_t n;
	bool files;               /* CONFIG.SYS or PROTOCOL.INI changes */
	bool anything;            /* files, or a package to remove */
	struct txn_plan plan;     /* when anything: undo_plan's */
	bool have_plan;
};
/* rollback --packages GEN (0: the newest generation) through the session:
 * its boot volume and database (an interrupted run finished first), then
 * undo_prepare and, when there is anything to do, undo_plan. Free u with
 * undo_set_free, even on an error. */
int undo_run_prepare(struct session *ss, long gen, struct undo_set *u, struct wd_err *err);
/* undo_apply of the prepared set; u->s's view has the generation. */
int undo_commit(struct undo_set *u, struct wd_err *err);
void undo_set_free(struct undo_set *u);

#endif
