/* Finishing or undoing what an interrupted run left, from the rows its
 * intent recorded (state/txnlog.h checks them: every path is confined to
 * the volume before anything acts on it). */
#include "txn/txn_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "fs/fs.h"
#include "common/file.h"
#include "common/signals.h"
#include "state/txnlog.h"
#include "txn/textlog.h"

/* A checked relative path from the database, resolved under the root as any
 * other path on the volume is (its case as found on disk). */
static int resolve(const struct volume *v, const char *rel, char **out, struct wd_err *err)
{
	char *abs = NULL;
	bool found;
	int r = volume_resolve(v, rel, &abs, &found, err);
	size_t n = strlen(v->root);
	if (!r && (strncmp(abs, v->root, n) || abs[n] != '/'))
		r = wd_err_set(err, WD_EFAIL, "%s: resolves outside the volume's root", rel);
	if (!r)
		*out = wd_xstrdup(abs + n + 1);
	free(abs);
	return r;
}

static int ops_of(const struct volume *v, const struct txnlog_pending *p, struct txn_op **out,
		  struct wd_err *err)
{
	struct txn_op *ops = wd_xcalloc(p->nops + 1, sizeof *ops);
	int r = 0;
	for (size_t i = 0; !r && i < p->nops; i++) {
		const struct txnlog_op *l = &p->ops[i];
		ops[i].kind = (enum txn_op_kind)l->kind;
		memcpy(ops[i].old_sha, l->old_sha, WD_SHA256_HEX);
		memcpy(ops[i].new_sha, l->new_sha, WD_SHA256_HEX);
		r = resolve(v, l->host, &ops[i].host, err);
		if (!r && l->kept)
			r = resolve(v, l->kept, &ops[i].kept, err);
	}
	if (r)
		txn_free_ops(ops, p->nops);
	else
		*out = ops;
	return r;
}

static int undo(struct txn *t, const struct txnlog_pending *p, const struct txn_op *ops,
		struct wd_err *err)
{
	int r = txn_undo_install(t, ops, p->nops, err);
	if (!r)
		r = db_begin(&t->db, err);
	if (r)
		return r;
	if ((r = txnlog_undone(&t->db, p->id, p->name, err)) ||
	    (t->log_line && (r = db_meta_set(&t->db, TEXTLOG_META_LAST, t->log_line, err))) ||
	    (r = db_commit(&t->db, err)))
		db_rollback(&t->db);
	return r;
}

int txn_recover(struct txn *t, struct wd_err *err)
{
	struct txnlog_pending p;
	bool found;
	int r = txnlog_load(&t->db, &p, &found, err);
	if (r || !found)
		return r;
	/* a signal waits for the recovery to end (common/signals.h): it is
	 * finished or undone all the same, and then the run fails */
	wd_defer_begin();
	const char *became = NULL;
	int sig;
	struct txn_op *ops = NULL;
	if ((r = ops_of(t->v, &p, &ops, err)))
		goto out;
	struct txn_plan check = {.install = p.install, .name = p.name, .ops = ops, .nops = p.nops};
	if (!p.install && (r = txn_check_kept(t->v, &check, err))) {
		/* a kept copy gone or damaged since: refuse before moving anything */
	} else if (p.install && !txn_can_undo(t, ops, p.nops) && txn_can_finish(t, ops, p.nops)) {
		/* A copy to undo from is gone (removed by hand), but every new
		 * file was written and flushed: finishing is the way back to a
		 * consistent volume. */
		textlog_recovering(t, &p, "recovered: finished");
		if (!(r = txn_finish_install(t, ops, p.nops, err)))
			r = txn_record_done(t, p.id, err);
		became = "finished";
	} else if (p.install) {
		/* not committed: undo it, and say so in the history */
		textlog_recovering(t, &p, "recovered: undone");
		r = undo(t, &p, ops, err);
		became = "undone";
	} else {
		/* committed intent: finish it */
		textlog_recovering(t, &p, "recovered: finished");
		if (!(r = txn_remove_files(t, ops, p.nops, err)) &&
		    !(r = txn_record_done(t, p.id, err)))
			txn_remove_cleanup(t, ops, p.nops);
		became = "finished";
	}
	t->recovered = !r;
	t->recovered_as = became;
	txn_free_ops(ops, p.nops);
out:
	sig = wd_defer_end();
	if (sig && !r) {
		r = wd_err_set(err, WD_EFAIL, "interrupted by %s while recovering: the interrupted "
			       "%s of %s was %s first, the volume is as %s it", wd_signal_name(sig),
			       p.install ? "install" : "removal", p.name, became,
			       !strcmp(became, "undone") ? "before" : "after");
		txnlog_pending_free(&p);
		return r;
	}
	if (r) {
		wd_err_prefix(err, "finishing an interrupted %s of %s", p.install ? "install"
			      : "removal", p.name);
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, ". If that file cannot be put right, "
			 "'warpdrv recover --abandon' forgets the interrupted transaction, leaving "
			 "the files as they are (docs/recovery.md)");
		if (sig)
			r = wd_err_prefix(err, "interrupted by %s", wd_signal_name(sig));
	}
	txnlog_pending_free(&p);
	return r;
}

int txn_pending(struct db *db, bool *pending, struct wd_err *err)
{
	int r = txnlog_any(db, pending, err);
	if (r || !*pending)
		return r;
	struct txnlog_pending p;
	bool found;
	r = txnlog_load(db, &p, &found, err);
	txnlog_pending_free(&p);
	return r;
}

void txn_sweep_aside(struct txn *t)
{
	char *d = txn_abs(t, WD_KEPT_DIR);
	DIR *dir = fs_opendir(TXN_FS(t), d);
	struct dirent *de;
	struct wd_err e;
	size_t swept = 0;
	/* one that cannot be deleted is left for the next sweep, as after a
	 * removal (txn_remove_cleanup) */
	fs_batch_begin(TXN_FS(t));
	while (dir && (de = readdir(dir)))
		if (!strncmp(de->d_name, TXN_ASIDE_PREFIX, strlen(TXN_ASIDE_PREFIX))) {
			char *f = wd_path_join(d, de->d_name);
			(void)fs_unlink_errno(TXN_FS(t), f);
			free(f);
			swept++;
		}
	fs_batch_end(TXN_FS(t));
	if (dir)
		closedir(dir);
	/* flushed before this transaction moves files aside under the same
	 * names: a power cut must not bring an old one back to be taken for
	 * this removal's (recover --abandon puts back what it finds) */
	if (swept)
		fs_fsync_dir(TXN_FS(t), d, &e);
	free(d);
}

/* Whether a transaction is pending, read without writing anything: with
 * none, recover does not even take the lock (or make the state folder). */
static int any_pending(const struct volume *v, bool *pending, struct wd_err *err)
{
	struct db db;
	bool have;
	*pending = false;
	int r = db_open(&db, v, false, &have, err);
	if (!r && have)
		r = txnlog_any(&db, pending, err);
	if (!r && have && !*pending) /* or only the text log's line of the last one */
		*pending = textlog_behind(v, &db);
	db_close(&db);
	return r;
}

int txn_pending_describe(struct db *db, struct txn_pending_desc *d, struct wd_err *err)
{
	memset(d, 0, sizeof *d);
	bool any;
	int r = txnlog_any(db, &any, err);
	if (r || !any)
		return r;
	struct txnlog_pending p;
	if ((r = txnlog_load(db, &p, &d->found, err)) || !d->found)
		return r;
	d->install = p.install;
	d->name = p.name;
	p.name = NULL;
	if (p.install)
		r = txnlog_packages(db, p.id, &d->pkgs, &d->npkgs, err);
	txnlog_pending_free(&p);
	if (r)
		txn_pending_desc_free(d);
	return r;
}

void txn_pending_desc_free(struct txn_pending_desc *d)
{
	for (size_t i = 0; i < d->npkgs; i++)
		free(d->pkgs[i]);
	free(d->pkgs);
	free(d->name);
	memset(d, 0, sizeof *d);
}

void txn_pending_text(const struct txn_pending_desc *d, char *buf, size_t n)
{
	bool own = d->npkgs == 1 && !strcmp(d->pkgs[0], d->name ? d->name : "");
	if (!d->npkgs || own) {
		snprintf(buf, n, "%s of %s", d->install ? "install" : "removal", d->name);
		return;
	}
	size_t len = (size_t)snprintf(buf, n, "'%s' (", d->name);
	for (size_t i = 0; i < d->npkgs && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", d->pkgs[i]);
	if (len < n)
		snprintf(buf + len, n - len, ")");
}

int txn_recover_volume(const struct volume *v, struct txn_pending_desc *d, struct wd_err *err)
{
	struct db db;
	bool have;
	memset(d, 0, sizeof *d);
	bool behind = false;
	int r = db_open(&db, v, false, &have, err);
	if (!r && have)
		r = txn_pending_describe(&db, d, err);
	/* or only the text log's line of the last one is missing: txn_begin
	 * writes it (txn/textlog.h) */
	if (!r && have && !d->found)
		behind = textlog_behind(v, &db);
	db_close(&db);
	if (r || (!d->found && !behind))
		return r;
	struct txn t;
	r = txn_begin(&t, v, "recover", err);
	if (r)
		return r;
	if (d->found && t.recovered) /* else another run recovered it in between */
		d->outcome = t.recovered_as ? t.recovered_as : "finished";
	else
		txn_pending_desc_free(d);
	txn_end(&t);
	return 0;
}

/* A removal's files moved aside go back where their place is empty: what
 * the database still says is installed stays on the volume. */
static size_t put_aside_back(struct txn *t, const struct txnlog_pending *p)
{
	size_t n = 0;
	for (size_t i = 0; !p->install && i < p->nops; i++) {
		char *rel = wd_xasprintf("%s/%s%zu", WD_KEPT_DIR, TXN_ASIDE_PREFIX, i);
		char *aside = txn_abs(t, rel), *target = NULL;
		struct wd_err e;
		if (fs_exists(TXN_FS(t), aside) && !resolve(t->v, p->ops[i].host, &target, &e)) {
			char *abs = txn_abs(t, target);
			if (!fs_exists(TXN_FS(t), abs) && !txn_rename(t, aside, abs, &e))
				n++;
			free(abs);
		}
		free(target);
		free(aside);
		free(rel);
	}
	return n;
}

int txn_abandon(const struct volume *v, struct txn_abandoned *a, struct wd_err *err)
{
	memset(a, 0, sizeof *a);
	bool pending;
	int r = any_pending(v, &pending, err);
	if (r || !pending)
		return r;
	struct txn t;
	r = txn_begin_as(&t, v, "recover --abandon", false, err);
	if (r)
		return r;
	struct txnlog_pending p;
	if ((r = txnlog_load(&t.db, &p, &a->found, err)) || !a->found) {
		if (!r) /* only the text log was behind */
			textlog_catch_up(&t);
		txn_end(&t);
		return r;
	}
	a->install = p.install;
	a->name = wd_xstrdup(p.name);
	wd_defer_begin(); /* its steps run to the end, a signal waits */
	a->put_back = put_aside_back(&t, &p);
	textlog_recovering(&t, &p, "abandoned");
	if (!(r = db_begin(&t.db, err))) {
		if ((r = txnlog_abandoned(&t.db, p.id, p.install, p.name, err)) ||
		    (r = db_meta_set(&t.db, TEXTLOG_META_LAST, t.log_line, err)) ||
		    (r = txn_commit_step(&t, err)))
			db_rollback(&t.db);
	}
	if (!r) {
		txn_sweep_aside(&t);
		textlog_catch_up(&t);
	}
	int sig = wd_defer_end();
	if (sig && !r)
		r = wd_err_set(err, WD_EFAIL, "interrupted by %s: the interrupted %s of %s was "
			       "abandoned all the same", wd_signal_name(sig),
			       p.install ? "install" : "removal", p.name);
	else if (sig)
		r = wd_err_prefix(err, "interrupted by %s", wd_signal_name(sig));
	txnlog_pending_free(&p);
	txn_end(&t);
	return r;
}
