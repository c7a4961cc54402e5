/* The packages on offer (installer/offer.h). */
#include "installer/offer.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/versions.h"
#include "session/session.h"

void offer_free(struct offer *o)
{
	for (size_t i = 0; i < o->npkgs; i++)
		package_free(&o->pkgs[i]);
	free(o->pkgs);
	o->pkgs = NULL;
	o->npkgs = 0;
}

/* A package the plan needs that is not here yet (a remote repository's, not
 * complete in the cache) is downloaded only once the user agreed: the
 * session's ask (--yes, or a yes at the terminal), asked once a run;
 * --dry-run downloads nothing (exit 1, saying what it would need). */
static int may_download(struct offer *o, const struct repo *from, const struct index_entry *e,
			struct wd_err *err)
{
	if (!o->writes || o->download_ok || !catalog_would_download(from, e))
		return 0;
	const char *where = from->name ? from->name : from->url;
	if (o->ss->o.dry_run)
		return wd_err_set(err, WD_EFAIL, "%s --dry-run downloads nothing, and the plan needs "
				  "%s %s (%llu bytes from %s), which is not in the cache: run '%s' "
				  "without --dry-run, which asks before downloading", o->command,
				  e->name, e->version, (unsigned long long)e->size, where,
				  o->command);
	char question[400], refusal[400];
	snprintf(question, sizeof question, "The plan needs %s %s: download %llu bytes from %s?",
		 e->name, e->version, (unsigned long long)e->size, where);
	snprintf(refusal, sizeof refusal, "%s must download %s %s (%llu bytes from %s) to plan",
		 o->command, e->name, e->version, (unsigned long long)e->size, where);
	int r = session_ask(o->ss, question, refusal, err);
	o->download_ok = !r;
	return r;
}

int offer_load(struct offer *o, struct wd_err *err)
{
	int r = session_keyring(o->ss, &o->kr, err);
	/* remote packages download into the volume's cache (and install from
	 * it offline) */
	if (!r)
		r = session_catalog(o->ss, o->writes, &o->cat, err);
	if (!r)
		r = catalog_need_repository(o->cat, err);
	if (r)
		return r;
	struct wd_err ignore; /* a key that does not load: the gate says so when asked */
	const struct activation *act;
	const struct entitlement_ctx *ec =
		session_activation(o->ss, &act, &ignore) ? NULL : &act->ctx;
	size_t n;
	struct catalog_version *picks = catalog_pick_each(o->cat, ec, &n);
	for (size_t i = 0; !r && i < n; i++) {
		const struct index_entry *e = picks[i].e;
		const struct repo *rp = picks[i].from;
		if (!o->writes && e->kind != PKG_KIND_NIC)
			continue; /* detect tells only the NIC drivers */
		o->pkgs = wd_xrealloc(o->pkgs, (o->npkgs + 1) * sizeof *o->pkgs);
		if (e->kind == PKG_KIND_NIC && catalog_stub(rp, e, &o->pkgs[o->npkgs])) {
			o->npkgs++;
			continue;
		}
		if (!(r = may_download(o, rp, e, err)) &&
		    !(r = catalog_fetch(rp, e, o->kr, &o->pkgs[o->npkgs], err)))
			o->npkgs++;
	}
	free(picks);
	return r;
}

const struct package **offer_nics(const struct offer *o, size_t *n)
{
	const struct package **nics = wd_xcalloc(o->npkgs + 1, sizeof *nics);
	*n = 0;
	for (size_t i = 0; i < o->npkgs; i++)
		if (o->pkgs[i].m.kind == PKG_KIND_NIC)
			nics[(*n)++] = &o->pkgs[i];
	return nics;
}

int offer_gate(void *arg, const struct package *p, struct wd_err *why)
{
	struct offer *o = arg;
	if (p->m.entitlement && o->free_only)
		return wd_err_set(why, WD_ELICENSE, "configure nic --off goes back to a driver that "
				  "needs no subscription");
	return session_gate(o->ss, p, why);
}

int offer_unstub(void *arg, const struct package *p, struct wd_err *err)
{
	struct offer *o = arg;
	int r = p->stub ? may_download(o, p->stub_from, p->stub, err) : 0;
	return r ? r : catalog_unstub(o->kr, (struct package *)p, err);
}
