#include "installer/undo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "fs/fs.h"
#include "installer/generation.h"
#include "installer/setup_internal.h"
#include "txn/txn.h"
#include "os2/config_sys.h"
#include "state/installed.h"
#include "state/generations.h"
#include "state/lifecycle.h"

int undo_packages(struct db *db, long from, char ***names, char ***versions, size_t *n,
		  struct wd_err *err)
{
	struct gen_pkg *g = NULL;
	size_t ng = 0;
	*names = *versions = NULL;
	*n = 0;
	int r = generation_packages(db, from, &g, &ng, err);
	for (size_t i = 0; !r && i < ng; i++) {
		if (strcmp(g[i].action, "install"))
			continue; /* an upgrade or a reinstall brought nothing new */
		bool have = false;
		for (size_t k = 0; k < *n; k++)
			have |= !strcmp((*names)[k], g[i].name);
		char *ver = NULL;
		if (have || (r = installed_version(db, g[i].name, &ver, err)) || !ver) {
			free(ver);
			continue;
		}
		*names = wd_xrealloc(*names, (*n + 1) * sizeof **names);
		*versions = wd_xrealloc(*versions, (*n + 1) * sizeof **versions);
		(*names)[*n] = wd_xstrdup(g[i].name);
		(*versions)[(*n)++] = ver;
	}
	generation_packages_free(g, ng);
	return r;
}

static struct txn_op *add_op(struct txn_plan *plan, enum txn_op_kind kind)
{
	plan->ops = wd_xrealloc(plan->ops, (plan->nops + 1) * sizeof *plan->ops);
	struct txn_op *o = &plan->ops[plan->nops++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	return o;
}

/* Every file of an installed package retired (deleted, or its original put
 * back), and the package removed by the commit. */
static int retire_package(struct setup *s, struct db *db, const char *name,
			  struct txn_plan *plan, struct wd_err *err)
{
	char *ver = NULL;
	struct installed_file *f = NULL;
	size_t nf = 0;
	int r = installed_version(db, name, &ver, err);
	if (!r && !ver)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed any more; run the command again",
			       name);
	if (!r)
		r = installed_files(db, name, &f, &nf, err);
	for (size_t i = 0; !r && i < nf; i++) {
		struct txn_op *o = add_op(plan, TXN_RETIRE);
		o->os2 = wd_xstrdup(f[i].path);
		o->host = wd_xstrdup(f[i].host);
		o->kept = f[i].kept ? wd_xstrdup(f[i].kept) : NULL;
		memcpy(o->old_sha, f[i].kept_sha, WD_SHA256_HEX);
		memcpy(o->new_sha, f[i].sha, WD_SHA256_HEX);
		char *abs = wd_path_join(s->v->root, f[i].host);
		if (fs_exists(&s->v->fs, abs))
			r = fs_sha256(&s->v->fs, abs, o->new_sha, err);
		free(abs);
	}
	if (!r) {
		plan->removes = wd_xrealloc(plan->removes, (plan->nremoves + 1) * sizeof *plan->removes);
		plan->removes_version = wd_xrealloc(plan->removes_version, (plan->nremoves + 1) *
									  sizeof *plan->removes_version);
		plan->removes[plan->nremoves] = wd_xstrdup(name);
		plan->removes_version[plan->nremoves++] = ver;
		ver = NULL;
	}
	free(ver);
	installed_files_free(f, nf);
	return r;
}

/* A file the plan deletes that the new CONFIG.SYS still loads. */
static int check_loaded(const struct setup *s, const struct txn_plan *plan, struct wd_err *err)
{
	struct config_sys cs;
	const struct wd_buf *b = &s->new_[F_CONFIG];
	config_sys_parse(&cs, b->p ? b->p : "", b->len);
	int r = 0;
	for (size_t i = 0; !r && i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		if (o->kind != TXN_RETIRE || o->kept || !o->os2)
			continue;
		const char *base = strrchr(o->os2, '\\');
		base = base ? base + 1 : o->os2;
		for (long k = 0; !r && (k = config_sys_find(&cs, (size_t)k, NULL, base)) >= 0; k++) {
			struct cs_stmt st;
			if (config_sys_stmt(&cs, (size_t)k, &st) && st.loads)
				r = wd_err_set(err, WD_EFAIL, "%s: CONFIG.SYS as it would be put back "
					       "loads %s at line %ld, and removing the packages "
					       "deletes it: the guest would not find it at boot. Roll "
					       "back without --packages, or configure another driver "
					       "first; nothing was changed", s->command, base, k + 1);
		}
	}
	config_sys_free(&cs);
	return r;
}

int undo_plan(struct setup *s, struct db *db, char *const *names, size_t n,
	      struct txn_plan *plan, struct wd_err *err)
{
	txn_plan_init(plan, s->command, "-");
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		r = retire_package(s, db, names[i], plan, err);
	struct generation_note gn = {
		.command = (char *)s->command,
		.summary = (char *)(s->summary ? s->summary : ""),
	};
	if (!r)
		r = setup_plan_generation(s, db, &gn, plan, err);
	if (!r)
		r = check_loaded(s, plan, err);
	if (!r)
		r = txn_check_kept(s->v, plan, err);
	if (!r && plan->nops)
		r = txn_plan_space(s->v, plan, err);
	if (r)
		txn_plan_free(plan);
	return r;
}

int undo_apply(struct setup *s, char *const *names, size_t n, struct wd_err *err)
{
	struct txn t;
	int r = txn_begin(&t, s->v, s->command, err);
	if (r)
		return r;
	struct txn_plan plan;
	s->generation = 0;
	if (!(r = undo_plan(s, &t.db, names, n, &plan, err))) {
		if (plan.nops && !(r = txn_apply(&t, &plan, err)) && plan.done_extra)
			s->generation = plan.gen_n;
		txn_plan_free(&plan);
	}
	txn_end(&t);
	return r;
}

int undo_prepare(struct setup *s, long *gen, char ***names, char ***versions, size_t *n,
		 bool *files, struct wd_err *err)
{
	*names = *versions = NULL;
	*n = 0;
	*files = false;
	int r = 0;
	if (!*gen) { /* the newest generation (setup_plan_rollback says when there is none) */
		struct generation *g = NULL;
		size_t ng = 0;
		if (!(r = generation_list(s->db, &g, &ng, err)) && ng)
			*gen = g[ng - 1].n;
		generation_list_free(g, ng);
	}
	if (!r)
		r = setup_plan_rollback(s, *gen, err);
	if (r)
		return r;
	setup_render(s);
	free(s->own_command);
	free(s->own_summary);
	s->command = s->own_command = wd_xasprintf("rollback --packages %ld", *gen);
	*files = setup_file_changed(s, F_CONFIG) || setup_file_changed(s, F_PROTOCOL);
	r = undo_packages(s->db, *gen, names, versions, n, err);
	/* a generation recorded before the database named what each installed
	 * (schema step 10) gives no packages: the summary says only what is done */
	s->summary = s->own_summary =
		*n ? wd_xasprintf("CONFIG.SYS and PROTOCOL.INI as before generation %ld, and its "
				  "packages removed", *gen)
		   : wd_xasprintf("CONFIG.SYS and PROTOCOL.INI as before generation %ld (no "
				  "package it installed is recorded as installed)", *gen);
	return r;
}
