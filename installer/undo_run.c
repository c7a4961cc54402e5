/* rollback --packages below the front end (installer/undo.h): the session's
 * boot volume and database opened, the generation's files and packages
 * planned (undo_run_prepare), and the transaction (undo_commit). */
#include <stdlib.h>

#include "installer/setup_internal.h"
#include "installer/undo.h"
#include "txn/txn.h"

int undo_run_prepare(struct session *ss, long gen, struct undo_set *u, struct wd_err *err)
{
	*u = (struct undo_set){.gen = gen};
	int r = setup_from_session(ss, "rollback --packages", &u->s, err);
	if (!r)
		r = undo_prepare(u->s, &u->gen, &u->names, &u->versions, &u->n, &u->files, err);
	u->anything = !r && (u->files || u->n);
	if (u->anything && !(r = undo_plan(u->s, u->s->db, u->names, u->n, &u->plan, err))) {
		u->have_plan = true;
		setup_diff(u->s, &u->s->diff); /* the view's */
	}
	return r;
}

int undo_commit(struct undo_set *u, struct wd_err *err)
{
	return undo_apply(u->s, u->names, u->n, err);
}

void undo_set_free(struct undo_set *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->names[i]);
		free(u->versions[i]);
	}
	free(u->names);
	free(u->versions);
	if (u->have_plan)
		txn_plan_free(&u->plan);
	setup_free(u->s);
	*u = (struct undo_set){0};
}
