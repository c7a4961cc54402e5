/* warpdrv detect: the PCI devices and the VirtualBox NIC models among them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/versions.h"
#include "common/buf.h"
#include "pci/pci.h"
#include "session/session.h"
#include "trust/keys.h"
#include "installer/setup.h"
#include "ui/commands.h"
#include "ui/source.h"

static void hexfield(struct json *j, const char *key, long v, int digits)
{
	if (v == PCI_NONE) {
		json_null(j, key);
		return;
	}
	char s[16];
	snprintf(s, sizeof s, "%0*lx", digits, v);
	json_str(j, key, s);
}

static void print_json(struct wd_ctx *ctx, const struct pci_list *l, char **driver, char **why)
{
	struct json *j = &ctx->j;
	json_obj_begin(j, NULL);
	json_bool(j, "virtualbox", l->virtualbox);
	json_str(j, "source", l->source);
	json_arr_begin(j, "devices");
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		json_obj_begin(j, NULL);
		json_str(j, "slot", d->slot);
		hexfield(j, "vendor", d->vendor, 4);
		hexfield(j, "device", d->device, 4);
		hexfield(j, "subvendor", d->subvendor, 4);
		hexfield(j, "subdevice", d->subdevice, 4);
		hexfield(j, "class", d->class_code, 6);
		hexfield(j, "revision", d->revision, 2);
		json_str(j, "name", d->name);
		json_bool(j, "network", pci_is_network(d));
		json_str(j, "vbox_model", d->vbox_model);
		if (pci_is_network(d)) {
			json_str(j, "package", driver ? driver[i] : NULL);
			json_str(j, "package_note", why ? why[i] : NULL);
		}
		if (d->adapter) {
			json_int(j, "adapter", d->adapter);
			json_str(j, "attachment", d->attachment);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
}

static const char *hexs(char *buf, size_t n, long v, int digits)
{
	if (v == PCI_NONE)
		snprintf(buf, n, "%.*s", digits, "----------");
	else
		snprintf(buf, n, "%0*lx", digits, v);
	return buf;
}

static void print_text(struct wd_ctx *ctx, const struct pci_list *l, char **driver, char **why)
{
	printf("Source: %s\n", l->source);
	printf("VirtualBox guest: %s\n\n", l->virtualbox ? "yes"
			: "no (no VirtualBox guest service device 80ee:cafe)");
	printf("%-13s %-9s %-6s %-3s %-10s %s\n", "SLOT", "ID", "CLASS", "REV", "NIC MODEL", "NAME");
	size_t nics = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		char v[8], dv[8], c[8], r[8];
		bool nic = pci_is_network(d);
		nics += nic;
		printf("%s%-13s %s:%s %-6s %-3s %-10s %s%s\n", nic ? ui_color(ctx, "bold") : "", d->slot,
		       hexs(v, sizeof v, d->vendor, 4), hexs(dv, sizeof dv, d->device, 4),
		       hexs(c, sizeof c, d->class_code, 6), hexs(r, sizeof r, d->revision, 2),
		       d->vbox_model ? d->vbox_model : (nic ? "(other)" : ""), d->name ? d->name : "",
		       nic ? ui_color(ctx, "reset") : "");
	}
	if (!l->n)
		printf("(no devices)\n");
	printf("\n%zu network controller%s", nics, nics == 1 ? "" : "s");
	for (size_t i = 0, k = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		if (!pci_is_network(d))
			continue;
		printf("%s %s %s", k++ ? "," : ":", d->slot,
		       d->vbox_model ? d->vbox_model : "(not a VirtualBox model)");
		if (d->attachment)
			printf(" (%s)", d->attachment);
	}
	printf(".\n");
	for (size_t i = 0; driver && i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		if (!pci_is_network(d))
			continue;
		if (driver[i])
			printf("%s: driver %s%s%s%s\n", d->slot, driver[i], why[i] ? " (" : "",
			       why[i] ? why[i] : "", why[i] ? ")" : "");
		else
			printf("%s: no driver package%s%s\n", d->slot, why[i] ? ": " : "",
			       why[i] ? why[i] : "");
	}
}

int cmd_detect(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "detect takes no arguments (got '%s')", argv[0]);
	key_crypto_quick();
	struct pci_list l;
	struct wd_err err = {0};
	int r = pci_read(ctx->pci, &l, &err);
	if (!r)
		r = pci_name_devices(&l, ctx->pci_ids, &err);
	if (r) {
		pci_list_free(&l);
		return ui_fail(ctx, r, &err);
	}
	/* The driver each NIC would get: a catalog that cannot be read (no
	 * bundled repository, say) leaves that out with a warning. */
	char **driver = wd_xcalloc(l.n + 1, sizeof *driver), **why = wd_xcalloc(l.n + 1, sizeof *why);
	struct wd_err e2 = {0};
	struct nic_advice adv = {driver, why};
	if (setup_advise(ctx->s, ui_volume_given(ctx), &l, &adv, &e2)) {
		/* no repository at all: the devices are still listed */
		struct catalog *cat;
		struct wd_err e3 = {0};
		bool none = !session_catalog(ctx->s, false, &cat, &e3) &&
			    catalog_need_repository(cat, &e3);
		if (!none && (e2.kind == WD_K_USAGE || e2.kind == WD_K_FAIL)) {
			/* --root given but no volume there is the user's mistake */
			if (ui_volume_given(ctx)) {
				pci_list_free(&l);
				free(driver);
				free(why);
				return ui_fail(ctx, -e2.code, &e2);
			}
		}
		ui_warn(ctx, "the driver each NIC would get is left out: %s\n", e2.msg);
		for (size_t i = 0; i < l.n; i++) {
			free(driver[i]);
			free(why[i]);
		}
		free(driver);
		free(why);
		driver = why = NULL;
	}
	if (ctx->json)
		print_json(ctx, &l, driver, why);
	else
		print_text(ctx, &l, driver, why);
	for (size_t i = 0; driver && i < l.n; i++) {
		free(driver[i]);
		free(why[i]);
	}
	free(driver);
	free(why);
	pci_list_free(&l);
	return 0;
}
