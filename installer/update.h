/* warpdrv update: fetch every remote repository's signed index (through its
 * mirrors in order), refuse an older one (rollback) or an expired one
 * (freeze), then replace the stored catalog in one rename, in one database
 * transaction with the serials and revoked keys it remembers. A repository
 * that fails keeps its previous catalog; its outcome says why. */
#ifndef WD_UPDATE_H
#define WD_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/repo.h"
#include "catalog/repolist.h"
#include "session/session.h"

/* One repository's outcome. */
struct update_outcome {
	struct repo_index old, fresh;
	bool have_old, have_fresh;
	bool unchanged; /* 304: fresh is old (borrowed), nothing to write */
	size_t used;    /* which URL gave the fresh index: 0 the URL, i mirror i - 1 */
	struct wd_err err;
	int r;
};

struct update_run {
	struct repo_list l;        /* the volume's remote repositories */
	struct update_outcome *o;  /* one per repository of l, once fetched */
	bool *light;               /* which old index is only the note's (internal) */
};

/* The remote repositories the volume names (the database opened as it is,
 * the keys loaded; the transfer helper starts meanwhile). u->l.n 0: none. */
int update_begin(struct session *s, struct update_run *u, struct wd_err *err);
/* Fetches each repository of u->l and stores what is new (under the
 * session's dry run nothing is written); each repository's outcome in
 * u->o. Returns an error only for what stops the whole update: a
 * repository that fails is told by update_failures. Warnings (a stored
 * index that no longer verifies) go through the session's callback. */
int update_fetch(struct session *s, struct update_run *u, struct wd_err *err);
/* The failed repositories as one error (the gravest code, every repository
 * named), or 0 when none failed. */
int update_failures(const struct update_run *u, struct wd_err *err);
/* Frees what update_begin and update_fetch made; u may be freed twice. */
void update_end(struct update_run *u);

#endif
