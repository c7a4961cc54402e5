/* warpdrv info PKG: a package's version, release date, entitlement, the
 * devices it drives and its files. PKG is a name or a .wdp file. */
#include <stdlib.h>

#include "ui/commands.h"
#include "ui/pkgutil.h"

static void print_text(struct wd_ctx *ctx, const struct pkg_manifest *m, const char *signer)
{
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
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *p = &m->pci[i];
		ui_say(ctx, "%s %04x:%04x", i ? "            " : "Devices:    ", p->vendor, p->device);
		if (p->has_subsys)
			ui_say(ctx, " subsystem %04x:%04x", p->subsys_vendor, p->subsys_device);
		if (p->revision >= 0)
			ui_say(ctx, " rev %02x", p->revision);
		ui_say(ctx, " (rank %d)\n", p->rank);
	}
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

static void print_json(struct wd_ctx *ctx, const struct pkg_manifest *m, const char *signer)
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
		json_str(j, "id", id);
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
	json_obj_end(j);
	json_finish(j);
}

int cmd_info(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1)
		return ui_usage(ctx, "info: expected one package name or .wdp file");
	struct wd_err err = {0};
	struct keyring kr;
	struct catalog cat = {0};
	struct package p;
	int r = pkg_keyring(ctx, NULL, &kr, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	if (!(r = pkg_catalog(ctx, &kr, &cat, &err)) &&
	    !(r = pkg_load(ctx, &kr, &cat, argv[0], &p, &err))) {
		if (ctx->json)
			print_json(ctx, &p.m, p.signer);
		else
			print_text(ctx, &p.m, p.signer);
		package_free(&p);
	}
	catalog_free(&cat);
	keyring_free(&kr);
	return r ? ui_fail(ctx, r, &err) : 0;
}
