#include "catalog/versions.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/version.h"

struct at {
	struct catalog_version v;
	size_t repo, pos;
};

/* By name, newest first, then the catalog's order. */
static int by_name_newest(const void *a, const void *b)
{
	const struct at *x = a, *y = b;
	int c = strcmp(x->v.e->name, y->v.e->name);
	if (!c)
		c = -version_cmp(x->v.e->version, y->v.e->version);
	if (!c)
		c = (x->repo > y->repo) - (x->repo < y->repo);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

struct catalog_version *catalog_versions(const struct catalog *c, const char *name, size_t *n)
{
	struct at *v = NULL;
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < c->repos[i].idx.npkgs; j++) {
			const struct index_entry *e = &c->repos[i].idx.pkgs[j];
			if (strcmp(e->name, name))
				continue;
			v = wd_xrealloc(v, (k + 1) * sizeof *v);
			v[k++] = (struct at){{e, &c->repos[i]}, i, j};
		}
	if (k > 1)
		qsort(v, k, sizeof *v, by_name_newest);
	struct catalog_version *out = k ? wd_xcalloc(k, sizeof *out) : NULL;
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!i || version_cmp(v[i].v.e->version, v[i - 1].v.e->version))
			out[(*n)++] = v[i].v;
	free(v);
	return out;
}

static int by_first_seen(const void *a, const void *b)
{
	const struct at *x = a, *y = b;
	if (x->repo != y->repo)
		return (x->repo > y->repo) - (x->repo < y->repo);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

struct catalog_version *catalog_newest_each(const struct catalog *c, size_t *n)
{
	size_t total = 0;
	for (size_t i = 0; i < c->n; i++)
		total += c->repos[i].idx.npkgs;
	struct at *v = wd_xcalloc(total + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < c->repos[i].idx.npkgs; j++)
			v[k++] = (struct at){{&c->repos[i].idx.pkgs[j], &c->repos[i]}, i, j};
	qsort(v, k, sizeof *v, by_name_newest);
	/* the newest of each name (the first of its run), in name order */
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		if (!i || strcmp(v[i].v.e->name, v[i - 1].v.e->name))
			v[m++] = v[i];
	struct catalog_version *out = wd_xcalloc(m + 1, sizeof *out);
	for (size_t i = 0; i < m; i++)
		out[i] = v[i].v;
	free(v);
	*n = m;
	return out;
}

struct catalog_version *catalog_pick_each(const struct catalog *c,
					  const struct entitlement_ctx *ctx, size_t *n)
{
	size_t total = 0;
	for (size_t i = 0; i < c->n; i++)
		total += c->repos[i].idx.npkgs;
	struct at *v = wd_xcalloc(total + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < c->repos[i].idx.npkgs; j++)
			v[k++] = (struct at){{&c->repos[i].idx.pkgs[j], &c->repos[i]}, i, j};
	qsort(v, k, sizeof *v, by_name_newest);
	struct entitlement_ctx none = {.last_seen = -1};
	struct entitlement_offer *o = wd_xcalloc(total + 1, sizeof *o);
	size_t *where = wd_xcalloc(total + 1, sizeof *where);
	size_t m = 0;
	for (size_t i = 0, end; i < k; i = end) {
		size_t no = 0; /* each version once: the first repository's */
		for (end = i; end < k && !strcmp(v[end].v.e->name, v[i].v.e->name); end++)
			if (end == i || version_cmp(v[end].v.e->version, v[end - 1].v.e->version)) {
				o[no] = (struct entitlement_offer){v[end].v.e->entitlement,
								   v[end].v.e->released};
				where[no++] = end;
			}
		long at = entitlement_pick(ctx ? ctx : &none, o, no, NULL);
		v[m++] = v[where[at >= 0 ? at : 0]];
	}
	free(o);
	free(where);
	qsort(v, m, sizeof *v, by_first_seen);
	struct catalog_version *out = wd_xcalloc(m + 1, sizeof *out);
	for (size_t i = 0; i < m; i++)
		out[i] = v[i].v;
	free(v);
	*n = m;
	return out;
}

void catalog_gate(const struct catalog *c, struct activation *a)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct repo_index *idx = &c->repos[i].idx;
		activation_add_revoked(a, (const char *const *)idx->revoked, idx->nrevoked);
		activation_saw_date(a, idx->issued);
	}
}

const struct index_entry *catalog_pick(const struct catalog *c, const char *name,
				       const struct entitlement_ctx *ctx, const struct repo **from,
				       bool *allowed, struct wd_err *why)
{
	size_t n;
	struct catalog_version *v = catalog_versions(c, name, &n);
	if (!n)
		return NULL;
	struct entitlement_offer *o = wd_xcalloc(n, sizeof *o);
	for (size_t i = 0; i < n; i++)
		o[i] = (struct entitlement_offer){v[i].e->entitlement, v[i].e->released};
	struct entitlement_ctx none = {.last_seen = -1};
	long at = entitlement_pick(ctx ? ctx : &none, o, n, why);
	if (allowed)
		*allowed = at >= 0;
	struct catalog_version got = v[at >= 0 ? at : 0];
	free(o);
	free(v);
	if (from)
		*from = got.from;
	return got.e;
}

const struct index_entry *catalog_pick_db(struct db *db, const struct keyring *kr,
					  const struct catalog *c, const char *name,
					  const struct repo **from, struct wd_err *err)
{
	size_t n;
	struct catalog_version *v = catalog_versions(c, name, &n);
	bool entitled = false;
	for (size_t i = 0; i < n; i++)
		entitled |= v[i].e->entitlement != NULL;
	const struct index_entry *e = n ? v[0].e : NULL;
	if (n && from)
		*from = v[0].from;
	free(v);
	if (!e) {
		wd_err_set(err, WD_EFAIL, "no package named '%s' in the repositories ('warpdrv list' "
			   "shows them)", name);
		return NULL;
	}
	if (!entitled)
		return e;
	struct activation a;
	if (activation_load(db, kr, &a, err)) {
		activation_free(&a);
		return NULL;
	}
	catalog_gate(c, &a);
	e = catalog_pick(c, name, &a.ctx, from, NULL, NULL);
	activation_free(&a);
	return e;
}

int catalog_gate_entry(struct db *db, const struct keyring *kr, const struct catalog *c,
		       const struct index_entry *e, struct wd_err *err)
{
	if (!e->entitlement)
		return 0;
	struct activation a;
	int r = activation_load(db, kr, &a, err);
	if (!r) {
		catalog_gate(c, &a);
		if ((r = entitlement_check(&a.ctx, e->entitlement, e->released, err)))
			wd_err_prefix(err, "%s %s", e->name, e->version);
	}
	activation_free(&a);
	return r;
}

int catalog_need_repository(const struct catalog *c, struct wd_err *err)
{
	if (c->n)
		return 0;
	return wd_err_set(err, WD_EFAIL, "no repository to take packages from: none is bundled "
			  "with this warpdrv, none is given with --repo, none is stored on the "
			  "volume; add one with 'warpdrv --root DIR repo add NAME URL', then "
			  "'warpdrv --root DIR update' (or give --repo URL for one run)");
}
