#include "installer/config_off.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "installer/boot_critical.h"
#include "installer/setup_internal.h"
#include "trust/signed.h"
#include "state/generations.h"
#include "state/installed.h"
#include "state/lifecycle.h"

static const char *base_name(const char *v)
{
	const char *b = strrchr(v, '\\');
	return b ? b + 1 : v;
}

/* Is line i of cs a statement m needs? Which one: *k. */
static bool is_need(const struct pkg_manifest *m, const struct config_sys *cs, size_t i,
		    size_t *k)
{
	struct cs_stmt st;
	if (!config_sys_stmt(cs, i, &st) || !st.loads)
		return false;
	for (size_t j = 0; j < m->nconfig_need; j++)
		if (wd_sv_ieq(st.keyword, m->config_need[j].keyword) &&
		    wd_sv_ieq(st.name, base_name(m->config_need[j].value))) {
			if (k)
				*k = j;
			return true;
		}
	return false;
}

/* Is line i a statement m displaces (acpi_plan's rule)? */
static bool is_displaced(const struct pkg_manifest *m, const struct config_sys *cs, size_t i)
{
	struct cs_stmt st;
	if (!config_sys_stmt(cs, i, &st) || !st.loads)
		return false;
	for (size_t k = 0; k < m->nconfig_displace; k++)
		if (wd_sv_ieq(st.keyword, m->config_displace[k].keyword) &&
		    wd_sv_ieq(st.name, base_name(m->config_displace[k].value)))
			return true;
	return false;
}

bool config_off_has_needs(const struct pkg_manifest *m, const struct config_sys *cs)
{
	for (size_t i = 0; i < config_sys_lines(cs); i++)
		if (is_need(m, cs, i, NULL))
			return true;
	return false;
}

/* Does cs hold the statement need k asks for (by keyword and file name)? */
static bool has_need(const struct pkg_manifest *m, const struct config_sys *cs, size_t k)
{
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		size_t j;
		if (is_need(m, cs, i, &j) && j == k)
			return true;
	}
	return false;
}

/* The package's generations are those that added a statement it needs. Of
 * each statement CONFIG.SYS holds now, the newest copy that lacks it
 * (going back from the newest generation) is from just before the
 * generation that added it; a statement every copy has was the guest's
 * before warpdrv's first change. The copy kept is the oldest of those
 * newest ones: from before the first of the package's generations still
 * in effect, so that it holds what they displaced and what the guest had. */
int config_off_before(struct setup *s, const struct pkg_manifest *m, struct wd_buf *before,
		      long *gen, bool *guests, struct wd_err *err)
{
	struct generation *g = NULL;
	size_t ng = 0;
	*gen = 0;
	*guests = false;
	wd_buf_reset(before);
	bool *open = wd_xcalloc(m->nconfig_need + 1, sizeof *open);
	size_t left = 0;
	for (size_t k = 0; k < m->nconfig_need; k++)
		left += open[k] = has_need(m, &s->cs, k);
	int r = s->have_db ? generation_list(s->db, &g, &ng, err) : 0;
	for (size_t i = ng; !r && left && i-- > 0;) {
		struct wd_buf b = {0};
		if ((r = setup_before_generation(s, g, ng, g[i].n, F_CONFIG, &b, err))) {
			wd_buf_free(&b);
			break;
		}
		struct config_sys cs;
		config_sys_parse(&cs, b.p ? b.p : "", b.len);
		bool lacks = false;
		for (size_t k = 0; k < m->nconfig_need; k++)
			if (open[k] && !has_need(m, &cs, k)) {
				open[k] = false;
				left--;
				lacks = true;
			}
		config_sys_free(&cs);
		if (lacks) {
			*gen = g[i].n;
			wd_buf_reset(before);
			wd_buf_add(before, b.p, b.len);
		}
		wd_buf_free(&b);
	}
	*guests = !r && ng && !*gen && left;
	free(open);
	generation_list_free(g, ng);
	return r;
}

static struct wd_sv line(const struct config_sys *cs, size_t i)
{
	return tl_text(&cs->t, i);
}

/* Is the text of line i of a somewhere in b (not taken yet)? */
static long find_text(const struct config_sys *b, struct wd_sv text, const bool *taken)
{
	for (size_t i = 0; i < config_sys_lines(b); i++)
		if ((!taken || !taken[i]) && line(b, i).n == text.n &&
		    !memcmp(line(b, i).p, text.p, text.n))
			return (long)i;
	return -1;
}

static bool same_stem(struct wd_sv name, const char *file)
{
	size_t a = 0, b = strcspn(file, ".");
	while (a < name.n && name.p[a] != '.')
		a++;
	return a == b && !strncasecmp(name.p, file, a);
}

/* Which line of before the statement need k took the place of (acpi_plan:
 * the first displaced one of its keyword, else of its file's stem), or -1. */
static long replaced_by(const struct pkg_manifest *m, const struct config_sys *before, size_t k,
			const bool *used)
{
	const struct pkg_config *n = &m->config_need[k];
	struct cs_stmt st;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < config_sys_lines(before); i++) {
			if (used[i] || !is_displaced(m, before, i) || !config_sys_stmt(before, i, &st))
				continue;
			if (pass == 0 ? wd_sv_ieq(st.keyword, n->keyword)
				      : same_stem(st.name, base_name(n->value)))
				return (long)i;
		}
	return -1;
}

int config_off_plan(const struct pkg_manifest *m, const struct config_sys *before,
		    struct config_sys *cs, size_t *restored)
{
	*restored = 0;
	size_t nb = before ? config_sys_lines(before) : 0;
	bool *used = wd_xcalloc(nb + 1, sizeof *used);
	int changed = 0;
	/* A line before had that is still here needs nothing. */
	for (size_t i = 0; i < nb; i++)
		if ((is_displaced(m, before, i) || is_need(m, before, i, NULL)) &&
		    find_text(cs, line(before, i), NULL) >= 0)
			used[i] = true;
	/* Each statement of the package: the line it took the place of back
	 * in its place, else marked to go. */
	size_t n = config_sys_lines(cs);
	bool *gone = wd_xcalloc(n + 1, sizeof *gone);
	for (size_t i = 0; i < n && changed >= 0; i++) {
		size_t k;
		if (!is_need(m, cs, i, &k))
			continue;
		/* the guest's own line, there before the package's change: it stays */
		long own = nb ? find_text(before, line(cs, i), NULL) : -1;
		if (own >= 0 && is_need(m, before, (size_t)own, NULL))
			continue;
		long at = -1;
		/* written another way before the package's change (a path, switches) */
		struct cs_stmt st;
		for (size_t b = 0; at < 0 && b < nb; b++)
			if (!used[b] && is_need(m, before, b, NULL) && config_sys_stmt(before, b, &st) &&
			    wd_sv_ieq(st.keyword, m->config_need[k].keyword) &&
			    wd_sv_ieq(st.name, base_name(m->config_need[k].value)))
				at = (long)b;
		if (at < 0 && nb)
			at = replaced_by(m, before, k, used);
		if (at < 0) {
			gone[i] = true;
			continue;
		}
		used[at] = true;
		struct wd_sv t = line(before, (size_t)at);
		char *text = wd_xstrndup(t.p, t.n);
		changed = config_sys_replace(cs, i, text) ? -1 : changed + 1;
		free(text);
		(*restored)++;
	}
	if (changed >= 0)
		changed += (int)config_sys_delete_marked(cs, gone);
	free(gone);
	/* Displaced lines no statement took the place of: back beside the
	 * nearest line of before that is still here as it was (after the one
	 * it followed, or before the one that followed it), else first. */
	for (size_t b = 0; changed >= 0 && b < nb; b++) {
		if (used[b] || !is_displaced(m, before, b))
			continue;
		long after = -1, until = -1;
		size_t dp = 0, ds = 0;
		for (size_t p = b; after < 0 && p-- > 0;)
			if ((after = find_text(cs, line(before, p), NULL)) >= 0)
				dp = b - p;
		for (size_t q = b + 1; until < 0 && q < nb; q++)
			if ((until = find_text(cs, line(before, q), NULL)) >= 0)
				ds = q - b;
		if (until >= 0 && (after < 0 || ds < dp))
			after = -1;
		else
			until = -1;
		struct wd_sv t = line(before, b);
		char *text = wd_xstrndup(t.p, t.n);
		int e = after >= 0 ? config_sys_insert_after(cs, (size_t)after, text)
		       : until >= 0 ? config_sys_insert_before(cs, (size_t)until, text)
		       : config_sys_lines(cs) ? config_sys_insert_before(cs, 0, text)
					      : config_sys_append(cs, text);
		free(text);
		changed = e ? -1 : changed + 1;
		used[b] = true;
		(*restored)++;
	}
	free(used);
	return changed;
}

/* Does cs load the NIC driver of p? */
static bool loads_driver(const struct config_sys *cs, const struct package *p)
{
	if (p->m.kind != PKG_KIND_NIC || !p->m.driver)
		return false;
	for (long i = 0; (i = config_sys_find(cs, (size_t)i, "DEVICE", p->m.driver)) >= 0; i++) {
		struct cs_stmt st;
		if (config_sys_stmt(cs, (size_t)i, &st) && st.loads)
			return true;
	}
	return false;
}

int config_off_nic(struct setup *s, const struct package *pkgs, size_t n,
		   const struct package **cur, const struct package **prev, long *gen,
		   struct wd_err *err)
{
	*cur = *prev = NULL;
	*gen = 0;
	/* a subscription's driver first: that is what --off turns off */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; !*cur && i < n; i++)
			if ((pass || pkgs[i].m.entitlement) && loads_driver(&s->cs, &pkgs[i]))
				*cur = &pkgs[i];
	if (!*cur)
		return wd_err_set(err, WD_EFAIL, "configure nic --off: %s loads the NIC driver of no "
				  "package ('warpdrv check' tells what it loads): nothing to turn off",
				  s->host[F_CONFIG] ? s->host[F_CONFIG] : "CONFIG.SYS");
	struct generation *g = NULL;
	size_t ng = 0;
	int r = s->have_db ? generation_list(s->db, &g, &ng, err) : 0;
	for (size_t i = ng; !r && i-- > 0;) {
		struct wd_buf b = {0};
		if ((r = setup_before_generation(s, g, ng, g[i].n, F_CONFIG, &b, err)))
			break;
		struct config_sys cs;
		config_sys_parse(&cs, b.p ? b.p : "", b.len);
		bool had = loads_driver(&cs, *cur);
		for (size_t k = 0; !had && !*prev && k < n; k++)
			if (&pkgs[k] != *cur && strcasecmp(pkgs[k].m.name, (*cur)->m.name) &&
			    loads_driver(&cs, &pkgs[k]))
				*prev = &pkgs[k];
		config_sys_free(&cs);
		wd_buf_free(&b);
		if (!had) {
			*gen = g[i].n;
			break;
		}
	}
	generation_list_free(g, ng);
	/* off never turns a subscription's driver on */
	if (!r && !(*cur)->m.entitlement && (!*prev || (*prev)->m.entitlement))
		r = wd_err_set(err, WD_EFAIL, "configure nic --off: CONFIG.SYS loads %s (package "
			       "%s), which needs no subscription, and no driver needing none was "
			       "there before it: nothing to turn off ('warpdrv configure nic "
			       "--driver NAME' configures another)", (*cur)->m.driver,
			       (*cur)->m.name);
	return r;
}

/* The manifest of the installed package of kind psd. The database keeps
 * the signed manifest as installed; the database is the volume's, so the
 * signature is checked again with the trusted keys kr before a line of it
 * is believed (docs/threat-model.md). */
static int installed_psd(struct setup *s, const struct keyring *kr, struct pkg_manifest *m,
			 bool *found, struct wd_err *err)
{
	struct installed_pkg *ip = NULL;
	size_t n = 0;
	*found = false;
	int r = s->have_db ? installed_packages(s->db, &ip, &n, err) : 0;
	const char *name = NULL;
	for (size_t i = 0; !r && !name && i < n; i++)
		if (!strcmp(ip[i].kind, "psd"))
			name = ip[i].name;
	char *text = NULL;
	size_t len = 0;
	if (!r && name && !(r = installed_manifest(s->db, name, &text, &len, err)) && text) {
		/* the body, once its signature is checked */
		size_t body = 0;
		char where[200], signer[WD_FPR_HEX];
		snprintf(where, sizeof where, "the installed manifest of %s (in the volume's "
			 "database)", name);
		if (!(r = signed_verify(text, len, kr, where, &body, signer, err)) &&
		    !(r = manifest_parse(text, body, false, where, m, err)))
			*found = true;
	}
	free(text);
	installed_packages_free(ip, n);
	return r;
}

int setup_plan_acpi_off(struct setup *s, const struct keyring *kr, struct acpi_off *out,
			struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	out->config = s->host[F_CONFIG] ? s->host[F_CONFIG] : "CONFIG.SYS";
	struct pkg_manifest m = {0};
	bool found = false;
	int r = installed_psd(s, kr, &m, &found, err);
	if (!r && !found)
		r = wd_err_set(err, WD_EFAIL, "configure acpi --off: no ACPI PSD package is "
			       "installed ('warpdrv list --installed' shows what is): nothing to "
			       "turn off");
	if (!r && !config_off_has_needs(&m, &s->cs))
		r = wd_err_set(err, WD_EFAIL, "configure acpi --off: %s has none of the statements "
			       "of %s %s (%s=%s ...): nothing to turn off ('warpdrv remove %s' "
			       "removes the package)", out->config, m.name, m.version,
			       m.nconfig_need ? m.config_need[0].keyword : "",
			       m.nconfig_need ? m.config_need[0].value : "", m.name);
	struct wd_buf before = {0};
	bool guests = false;
	if (!r)
		r = config_off_before(s, &m, &before, &out->from_gen, &guests, err);
	if (!r && guests)
		r = wd_err_set(err, WD_EFAIL, "configure acpi --off: the statements of %s %s that %s "
			       "holds were there before warpdrv's first change: no generation "
			       "added them, so nothing is turned off ('warpdrv remove %s' removes "
			       "the package and puts back the files it replaced)", m.name,
			       m.version, out->config, m.name);
	if (!r) {
		struct config_sys b;
		config_sys_parse(&b, before.p ? before.p : "", before.len);
		if (config_off_plan(&m, out->from_gen ? &b : NULL, &s->cs, &out->restored) < 0)
			r = wd_err_set(err, WD_EFAIL, "configure acpi --off: a line of %s could not "
				       "be edited; nothing was written", out->config);
		config_sys_free(&b);
	}
	wd_buf_free(&before);
	/* what no package may take out stays, whatever the manifest says */
	if (!r) {
		char *who = wd_xasprintf("configure acpi --off (%s %s)", m.name, m.version);
		r = boot_critical_guard(&s->bf.cs, &s->cs, who, err);
		free(who);
	}
	if (!r) {
		char summary[200];
		snprintf(summary, sizeof summary, "ACPI PSD off (%s statements out, %zu displaced "
			 "line%s back)", m.name, out->restored, out->restored == 1 ? "" : "s");
		free(s->own_summary);
		s->summary = s->own_summary = wd_xstrdup(summary);
		setup_render(s);
		r = setup_verify(s, NULL, 0, err);
	}
	if (found) {
		out->name = wd_xstrdup(m.name);
		out->version = wd_xstrdup(m.version);
		manifest_free(&m);
	}
	if (r)
		acpi_off_free(out);
	return r;
}

void acpi_off_free(struct acpi_off *o)
{
	free(o->name);
	free(o->version);
	o->name = o->version = NULL;
}
