/* Applying a plan: the intent recorded as rows (state/txnlog.h), the file
 * phases, then the commit that records the plan as done, made from those
 * rows. Signals are deferred from the intent to the end (common/signals.h):
 * one noticed before the commit fails the next step, and the change is put
 * back as after any failure; one after it lets the change finish; either
 * way the run then fails, saying it was interrupted. */
#include "txn/txn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/signals.h"
#include "license/activation.h"
#include "state/txnlog.h"
#include "txn/textlog.h"

/* The packages of an install plan (one or several merged), or none. */
static size_t plan_pkgs(const struct txn_plan *plan, const struct package *const **pkgs,
			const struct package **one)
{
	*one = plan->pkg;
	*pkgs = plan->npkgs ? plan->pkgs : one;
	return !plan->install ? 0 : plan->npkgs ? plan->npkgs : plan->pkg ? 1 : 0;
}

static void intent_op(const struct txn_plan *plan, const struct txn_op *o, bool pkgs,
		      struct txnlog_op *l)
{
	memset(l, 0, sizeof *l);
	l->kind = (enum txnlog_kind)o->kind;
	l->path = o->os2;
	l->host = o->host;
	l->kept = o->kept;
	if (o->kept)
		memcpy(l->old_sha, o->old_sha, WD_SHA256_HEX);
	memcpy(l->new_sha, o->new_sha, WD_SHA256_HEX);
	l->size = (long long)o->len;
	l->config = o->config;
	const struct package *owner = o->owner ? o->owner : plan->pkg;
	if (pkgs && o->kind != TXN_MKDIR && !o->config && owner)
		l->package = (char *)owner->m.name;
}

static void intent_pkg(const struct package *p, struct txnlog_pkg *l)
{
	const struct pkg_manifest *m = &p->m;
	*l = (struct txnlog_pkg){
		.name = m->name,
		.version = m->version,
		.kind = pkg_kind_name(m->kind),
		.entitlement = m->entitlement,
		.summary = m->summary,
		.released = m->released,
		.manifest = p->manifest.p,
		.manifest_len = p->manifest.len,
	};
}

/* Records the intent and commits it: the first durable step. */
static int record_intent(struct txn *t, const struct txn_plan *plan, long long *id,
			 struct wd_err *err)
{
	const struct package *const *pkgs, *one;
	size_t npkgs = plan_pkgs(plan, &pkgs, &one);
	struct txnlog_op *ops = wd_xcalloc(plan->nops + 1, sizeof *ops);
	struct txnlog_pkg *lp = wd_xcalloc(npkgs + 1, sizeof *lp);
	for (size_t i = 0; i < plan->nops; i++)
		intent_op(plan, &plan->ops[i], npkgs > 0, &ops[i]);
	for (size_t k = 0; k < npkgs; k++)
		intent_pkg(pkgs[k], &lp[k]);
	struct txnlog_intent in = {
		.install = plan->install,
		.name = plan->name,
		.version = plan->version,
		.ops = ops,
		.nops = plan->nops,
		.pkgs = lp,
		.npkgs = npkgs,
		.gen_n = plan->gen_n,
		.gen_command = plan->gen_command,
		.gen_summary = plan->gen_summary,
		.removes = plan->removes,
		.nremoves = plan->nremoves,
	};
	int r = db_begin(&t->db, err);
	if (!r && (r = txnlog_insert(&t->db, &in, id, err)))
		db_rollback(&t->db);
	else if (!r && (r = textlog_intent(t, *id, err)))
		db_rollback(&t->db);
	else if (!r && (r = txn_commit_step(t, err)))
		db_rollback(&t->db);
	free(ops);
	free(lp);
	return r;
}

int txn_record_done(struct txn *t, long long id, struct wd_err *err)
{
	int r = db_begin(&t->db, err);
	if (r)
		return r;
	/* the clock guard learns the date from every change (a bad date row
	 * is refused when the subscription is read, not here) */
	struct wd_err e2;
	activation_note_today(&t->db, &e2);
	if ((r = txnlog_done(&t->db, id, err)) ||
	    (t->log_line && (r = db_meta_set(&t->db, TEXTLOG_META_LAST, t->log_line, err))) ||
	    (r = txn_commit_step(t, err)))
		db_rollback(&t->db);
	return r;
}

/* Adds what became of the volume to the message of a failure. */
static int tell(struct wd_err *err, int r, const char *what)
{
	size_t n = strlen(err->msg);
	snprintf(err->msg + n, sizeof err->msg - n, "; %s", what);
	return r;
}

/* What a failure left: the change undone (or never begun), finished, or
 * neither (left to the next run's recovery). */
enum outcome { UNDONE, FINISHED, LEFT };

/* A failure after the intent was committed (a full disk, an I/O error) is
 * undone at once, as recovery would after a crash, so that the volume the
 * command leaves is the one it found: only a crash, or an undo that fails
 * too, leaves the work to the next run. Past the point where recovery
 * finishes instead of undoing, it is finished at once the same way. */
static int put_back(struct txn *t, const struct txn_plan *plan, long long id, int r,
		    enum outcome *how, struct wd_err *err)
{
	struct wd_err e2;
	db_rollback(&t->db);
	*how = LEFT;
	if (plan->install && !txn_can_undo(t, plan->ops, plan->nops) &&
	    txn_can_finish(t, plan->ops, plan->nops)) {
		/* Past the point of no return (an upgrade's copies to undo from
		 * were being dropped): forward, as recovery would after a crash. */
		if (!txn_finish_install(t, plan->ops, plan->nops, &e2) &&
		    !txn_record_done(t, id, &e2)) {
			*how = FINISHED;
			return 0;
		}
		char note[sizeof err->msg + 200];
		snprintf(note, sizeof note, "finishing the change failed too (%.600s): the next "
			 "warpdrv command finishes it (or run warpdrv recover)", e2.msg);
		return tell(err, r, note);
	}
	int u = plan->install ? txn_undo_install(t, plan->ops, plan->nops, &e2)
			      : txn_undo_remove(t, plan->ops, plan->nops, &e2);
	if (!u)
		u = txnlog_forget(&t->db, id, &e2);
	if (!u) {
		*how = UNDONE;
		return tell(err, r, "the volume was put back as it was: nothing was changed");
	}
	char note[sizeof err->msg + 200];
	snprintf(note, sizeof note, "putting the volume back failed too (%.600s): the next "
		 "warpdrv command finishes or undoes it (or run warpdrv recover)", e2.msg);
	return tell(err, r, note);
}

/* The intent, the files, the commit; a failure put back (or finished) at
 * once. *how: what became of the change. */
static int apply(struct txn *t, const struct txn_plan *plan, enum outcome *how,
		 struct wd_err *err)
{
	long long id = 0;
	int r;
	*how = UNDONE;
	textlog_begin(t, plan);
	if ((r = record_intent(t, plan, &id, err))) {
		textlog_forget(t);
		return tell(err, r, "nothing was changed");
	}
	r = plan->install ? txn_put_files(t, plan->ops, plan->nops, err)
			  : txn_remove_files(t, plan->ops, plan->nops, err);
	if (!r && !(r = txn_record_done(t, id, err))) {
		/* committed: a signal from here on fails no step, the rest runs */
		t->signal_arms = false;
		*how = FINISHED;
		if (!plan->install)
			txn_remove_cleanup(t, plan->ops, plan->nops);
		return 0;
	}
	/* the way back runs to its end, whatever signal comes */
	t->signal_arms = false;
	return put_back(t, plan, id, r, how, err);
}

/* The message of a run a signal interrupted: which signal, and whether the
 * change was undone or finished. A failure of another kind that came first
 * keeps its own message behind the signal's name. Always exit 1. */
static int interrupted(const struct txn *t, int sig, int r, enum outcome how,
		       struct wd_err *err)
{
	const char *name = wd_signal_name(sig);
	bool ours = t->signal_failed || !r; /* the signal, not another failure */
	if (ours && how == UNDONE)
		wd_err_set(err, WD_EFAIL, "interrupted by %s before the change was committed: it "
			   "was undone, the volume was put back as it was: nothing was changed",
			   name);
	else if (ours && how == FINISHED)
		wd_err_set(err, WD_EFAIL, "interrupted by %s %s: it was finished, the volume is as "
			   "the change leaves it", name, r ? "past the point of no return"
			   : "after the change was committed");
	else
		wd_err_prefix(err, "interrupted by %s (the change was %s)", name,
			      how == UNDONE ? "undone" : how == FINISHED ? "finished"
			      : "neither undone nor finished");
	return wd_err_recode(err, WD_EFAIL);
}

int txn_apply(struct txn *t, const struct txn_plan *plan, struct wd_err *err)
{
	int r = txn_check_kept(t->v, plan, err);
	if (r)
		return r;
	enum outcome how;
	wd_defer_begin();
	t->signal_arms = true;
	t->signal_failed = false;
	r = apply(t, plan, &how, err);
	t->signal_arms = false;
	textlog_outcome(t, how == FINISHED, how == UNDONE);
	int sig = wd_defer_end();
	return sig ? interrupted(t, sig, r, how, err) : r;
}
