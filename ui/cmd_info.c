/* warpdrv info PKG...: a package's version, release date, entitlement, the
 * devices it drives and its files; for a name, every version the
 * repositories hold and whether the subscription allows it (and why not).
 * PKG is a name (shown at the version install would take), NAME=VERSION or
 * a .wdp file. */
#include <stdlib.h>
#include <string.h>

#include "catalog/versions.h"
#include "common/buf.h"
#include "installer/nic_plan.h"
#include "installer/query.h"
#include "pci/pci.h"
#include "ui/commands.h"
#include "ui/exit_code.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

/* The VirtualBox NIC models the package drives, "82540EM (Intel PRO/1000 MT
 * Desktop), ..." into b; false when none. */
static bool vbox_models(const struct package *p, struct wd_buf *b)
{
	size_t n;
	const struct vbox_nic_model *all = vbox_model_table(&n);
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		const struct vbox_nic_model *m = &all[i];
		if (m->vendor == PCI_NONE)
			continue;
		struct pci_dev d = {.vendor = m->vendor, .device = m->device,
				    .subvendor = m->subvendor, .subdevice = m->subdevice,
				    .revision = m->revision};
		int rank;
		if (!nic_drives(p, &d, &rank))
			continue;
		wd_buf_addf(b, "%s%s (%s)", any ? ", " : "", m->nictype, m->title);
		any = true;
	}
	return any;
}

/* The devices, condensed: per vendor and rank, the count and then the ids
 * six to a line (as lspci -n writes them, to be found with a search); the
 * few with a subsystem or revision each on a line of its own. */
static void print_devices(struct wd_ctx *ctx, const struct pkg_manifest *m)
{
	bool *done = wd_xcalloc(m->npci + 1, sizeof *done);
	const char *lead = "Devices:    ";
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *p = &m->pci[i];
		if (done[i])
			continue;
		if (p->has_subsys || p->revision >= 0) {
			ui_say(ctx, "%s %04x:%04x", lead, p->vendor, p->device);
			if (p->has_subsys)
				ui_say(ctx, " subsystem %04x:%04x", p->subsys_vendor, p->subsys_device);
			if (p->revision >= 0)
				ui_say(ctx, " rev %02x", p->revision);
			ui_say(ctx, " (rank %d)\n", p->rank);
			lead = "            ";
			done[i] = true;
			continue;
		}
		size_t count = 0;
		for (size_t k = i; k < m->npci; k++) {
			const struct pkg_pci *q = &m->pci[k];
			if (!done[k] && !q->has_subsys && q->revision < 0 && q->vendor == p->vendor &&
			    q->rank == p->rank)
				count++;
		}
		ui_say(ctx, "%s %zu device%s, rank %d:", lead, count, count == 1 ? "" : "s", p->rank);
		int col = 99;
		for (size_t k = i; k < m->npci; k++) {
			const struct pkg_pci *q = &m->pci[k];
			if (done[k] || q->has_subsys || q->revision >= 0 || q->vendor != p->vendor ||
			    q->rank != p->rank)
				continue;
			if (col >= 6) {
				ui_say(ctx, "\n            ");
				col = 0;
			}
			ui_say(ctx, " %04x:%04x", q->vendor, q->device); /* as lspci -n says them */
			col++;
			done[k] = true;
		}
		ui_say(ctx, "\n");
		lead = "            ";
	}
	free(done);
}

/* What the versions of a name are judged by: the catalog, the volume's
 * subscription (ec NULL: none, or no --root) and what it has installed. */
struct judge {
	const struct catalog *cat;
	const struct entitlement_ctx *ec;
	struct session *s;
};

/* Every version of the package's name, newest first: where it is, whether
 * it is allowed (why not) and installed. Nothing for a name no repository
 * has (a .wdp file of another name). */
static void print_versions(struct wd_ctx *ctx, const struct judge *jd, const char *name)
{
	size_t n;
	struct catalog_version *v = catalog_versions(jd->cat, name, &n);
	char *inst = jd->s ? query_installed_version(jd->s, name, NULL) : NULL;
	struct entitlement_ctx none = {.last_seen = -1};
	if (ctx->json && n)
		json_arr_begin(&ctx->j, "versions");
	for (size_t i = 0; i < n; i++) {
		const struct index_entry *e = v[i].e;
		char rel[11], buf[256];
		pkg_date(e->released, rel);
		const char *why = entitlement_why_not(jd->ec ? jd->ec : &none, e->entitlement,
						      e->released, buf, sizeof buf);
		const char *where = v[i].from->name ? v[i].from->name : v[i].from->url;
		bool here = inst && !strcmp(inst, e->version);
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "version", e->version);
			json_str(&ctx->j, "released", rel);
			json_str(&ctx->j, "repository", where);
			json_bool(&ctx->j, "allowed", !why);
			json_str(&ctx->j, "why_not", why);
			json_bool(&ctx->j, "is_installed", here);
			json_obj_end(&ctx->j);
			continue;
		}
		ui_say(ctx, "%s %-9s %s  %s%s%s%s\n", i ? "            " : "Versions:   ",
		       ui_esc(e->version), rel, why ? "not allowed: " : "allowed",
		       why ? ui_esc(why) : "", here ? " [installed]" : "", "");
		ui_say(ctx, "%*s from %s\n", 12 + 1 + 9, "", ui_esc(where));
	}
	if (ctx->json && n)
		json_arr_end(&ctx->j);
	free(inst);
	free(v);
}

static void print_text(struct wd_ctx *ctx, const struct package *pkg)
{
	const struct pkg_manifest *m = &pkg->m;
	const char *signer = pkg->signer;
	char rel[11];
	pkg_date(m->released, rel);
	ui_say(ctx, "Package:     %s\nVersion:     %s\nReleased:    %s\nKind:        %s\n"
	       "Entitlement: %s\nSummary:     %s\nSigned by:   %s\n", ui_esc(m->name),
	       ui_esc(m->version), rel, pkg_kind_name(m->kind),
	       m->entitlement ? ui_esc(m->entitlement) : "none (free)", ui_esc(m->summary),
	       ui_esc(signer));
	if (m->driver)
		ui_say(ctx, "Driver:      %s (DriverName %s, NIF %s)\n", ui_esc(m->driver),
		       ui_esc(m->driver_name), ui_esc(m->nif));
	struct wd_buf models = {0};
	if (vbox_models(pkg, &models))
		ui_say(ctx, "VirtualBox:  %s\n", wd_buf_cstr(&models));
	wd_buf_free(&models);
	print_devices(ctx, m);
	for (size_t i = 0; i < m->nfiles; i++)
		ui_say(ctx, "%s %-28s %8llu bytes\n", i ? "            " : "Files:      ",
		       ui_esc(m->files[i].dest), (unsigned long long)m->files[i].size);
	for (size_t i = 0; i < m->nconfig_need; i++)
		ui_say(ctx, "Needs:       %s=%s\n", ui_esc(m->config_need[i].keyword),
		       ui_esc(m->config_need[i].value));
	for (size_t i = 0; i < m->nconfig_displace; i++)
		ui_say(ctx, "Displaces:   %s=...%s\n", ui_esc(m->config_displace[i].keyword),
		       ui_esc(m->config_displace[i].value));
}

static void print_json(struct wd_ctx *ctx, const struct pkg_manifest *m, const char *signer,
		       const struct judge *jd)
{
	struct json *j = &ctx->j;
	char rel[11], id[16];
	pkg_date(m->released, rel);
	json_obj_begin(j, NULL);
	json_str(j, "name", m->name);
	json_str(j, "version", m->version);
	json_str(j, "released", rel);
	json_str(j, "kind", pkg_kind_name(m->kind));
	json_str(j, "entitlement", m->entitlement);
	json_str(j, "summary", m->summary);
	json_str(j, "signer", signer);
	json_str(j, "driver", m->driver);
	json_str(j, "driver_name", m->driver_name);
	json_str(j, "nif", m->nif);
	json_arr_begin(j, "devices");
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *p = &m->pci[i];
		json_obj_begin(j, NULL);
		snprintf(id, sizeof id, "%04x:%04x", p->vendor, p->device);
		json_str(j, "pci_id", id);
		snprintf(id, sizeof id, "%04x:%04x", p->subsys_vendor, p->subsys_device);
		json_str(j, "subsystem", p->has_subsys ? id : NULL);
		if (p->revision >= 0)
			json_int(j, "revision", p->revision);
		else
			json_null(j, "revision");
		json_int(j, "rank", p->rank);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "files");
	for (size_t i = 0; i < m->nfiles; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", m->files[i].dest);
		json_int(j, "size", (long long)m->files[i].size);
		json_str(j, "sha256", m->files[i].sha256);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "config_need");
	for (size_t i = 0; i < m->nconfig_need; i++) {
		char *s = wd_xasprintf("%s=%s", m->config_need[i].keyword, m->config_need[i].value);
		json_str(j, NULL, s);
		free(s);
	}
	json_arr_end(j);
	json_arr_begin(j, "config_displace");
	for (size_t i = 0; i < m->nconfig_displace; i++) {
		char *s = wd_xasprintf("%s=%s", m->config_displace[i].keyword,
				       m->config_displace[i].value);
		json_str(j, NULL, s);
		free(s);
	}
	json_arr_end(j);
	print_versions(ctx, jd, m->name);
	json_obj_end(j);
}

int cmd_info(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc < 1)
		return ui_usage(ctx, "info: name at least one package or .wdp file");
	pkg_fold_names(argc, argv);
	struct wd_err err = {0};
	const struct keyring *kr;
	struct catalog *cat;
	int r = session_keyring(ctx->s, &kr, &err); /* the keys before the catalog */
	if (r)
		return ui_fail(ctx, r, &err);
	int rc = 0;
	/* with --root, the volume's state is read: a transaction left pending
	 * there is told */
	struct db *db;
	if (ui_volume_given(ctx) && (r = session_db(ctx->s, SESSION_DB_READ, &db, NULL, &err)))
		rc = ui_fail(ctx, r, &err);
	if (!rc && ((r = session_catalog(ctx->s, false, &cat, &err)) ||
		    (r = pkg_need_repository(cat, argc, argv, &err))))
		rc = ui_fail(ctx, r, &err);
	/* {"packages": [...]}, for one package as for several (docs/json.md).
	 * A package that cannot be shown is said, and the others still are. */
	bool several = ctx->json;
	if (!rc && several) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "packages");
	}
	/* with --root, the volume's subscription judges the versions (read
	 * only; the session merges the catalog's revocations and dates) */
	const struct activation *act = NULL;
	struct judge jd = {.cat = cat, .s = ui_volume_given(ctx) && !rc ? ctx->s : NULL};
	if (!rc && ui_volume_given(ctx)) {
		if (session_activation(ctx->s, &act, &err))
			ui_warn(ctx, "%s: versions judged as with no subscription\n", err.msg);
		else
			jd.ec = &act->ctx;
	}
	struct wd_err first = {0};
	int first_r = 0;
	for (int i = 0; !rc && i < argc; i++) {
		struct package p;
		wd_err_clear(&err);
		if ((r = query_info_package(ctx->s, argv[i], jd.ec, &p, &err))) {
			if (!first_r) {
				first_r = r;
				first = err;
			}
			if (!ctx->json && argc > 1)
				ui_fail(ctx, r, &err);
			continue;
		}
		if (ctx->json) {
			print_json(ctx, &p.m, p.signer, &jd);
			if (!several)
				json_finish(&ctx->j);
		} else {
			if (i)
				ui_say(ctx, "\n");
			print_text(ctx, &p);
			print_versions(ctx, &jd, p.m.name);
		}
		package_free(&p);
	}
	if (!rc && several) {
		json_arr_end(&ctx->j);
		if (!first_r) {
			json_obj_end(&ctx->j);
			json_finish(&ctx->j);
		}
	}
	if (!rc && first_r)
		rc = ctx->json || argc == 1 ? ui_fail(ctx, first_r, &first)
					     : ui_exit_code(&first, first_r);
	return rc;
}
