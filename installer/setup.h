/* setup, configure nic|acpi and rollback below the front end: the volume's
 * configuration files read once, the NIC and ACPI plans applied to models
 * of them, the postcondition on the result, and the one transaction that
 * writes the packages, both files and a generation. ui/cmd_setup.c shows the
 * plan, asks, and calls these. Rules: docs/setup.md. */
#ifndef WD_SETUP_H
#define WD_SETUP_H

#include <stdbool.h>

#include "catalog/package.h"
#include "common/buf.h"
#include "common/err.h"
#include "installer/generation.h"
#include "installer/nic_plan.h"
#include "os2/volfiles.h"
#include "state/db.h"

enum { F_CONFIG, F_PROTOCOL, NFILES };

struct setup {
	const char *command;   /* "setup", "configure nic", ... */
	const char *summary;   /* for the generation; NULL: made from the plan */
	struct volume *v;      /* opened, boot drive set (the caller's) */
	struct db *db;         /* its database, read only (the caller's) */
	bool have_db;
	struct boot_files bf;  /* as read: CONFIG.SYS, PROTOCOL.INI, the NIFs */
	char *host[NFILES];    /* below the root; NULL: not on the volume */
	struct wd_buf old[NFILES], new_[NFILES];
	struct config_sys cs;  /* the models the planners edit */
	struct protocol_ini pi;
	bool have_pi;
	struct pci_list pci;   /* the devices the NIC plan points into */
	struct nic_plan nic;
	bool nic_done;
	const struct package *acpi;
	bool acpi_done;
	const struct package *acpi_refused; /* the gate said no (setup goes on) */
	const char *frame;     /* --frame: the Ethernet frame a protocol of another
				* medium is switched to ("802.3"), or NULL */
	char **notes;
	size_t nnotes;
	const struct package **install;
	size_t ninstall;
	long generation;
};

/* Reads the files of s->v (opened, boot drive set); setup_free frees what
 * setup_open and the plans made, not the volume or database. */
int setup_open(struct setup *s, struct wd_err *err);
void setup_free(struct setup *s);
void setup_note(struct setup *s, char *text);

/* The NIC plan (in: all but the files' fields, which this fills). */
int setup_plan_nic(struct setup *s, struct nic_plan_in *in, struct wd_err *err);
/* The ACPI plan of package p (allowed already). */
int setup_plan_acpi(struct setup *s, const struct package *p, struct wd_err *err);

/* Renders the models into s->new_. */
void setup_render(struct setup *s);
bool setup_file_changed(const struct setup *s, int f);
bool setup_anything(const struct setup *s);
void setup_diff(const struct setup *s, struct wd_buf *out);

/* The postcondition (installer/boot_model.h) of the rendered plan: the boot
 * model of the new files against the old. pkgs: the NIC packages known. A
 * problem the old files had already whose repair is certain (a missing
 * NETBIND line, NETBIND.EXE where PROTMAN's folder says) is added to the plan
 * as its own change, with a note, and the files rendered again. */
int setup_verify(struct setup *s, const struct package *const *pkgs, size_t npkgs,
		 struct wd_err *err);

/* One transaction: the packages, both files (copied into the generation
 * folder first) and the generation row. */
int setup_apply(struct setup *s, struct wd_err *err);

/* Rollback: the bytes of file f as they were before generation gen. */
int setup_before_generation(struct setup *s, const struct generation *g, size_t ng, long gen,
			    int f, struct wd_buf *out, struct wd_err *err);
/* 0 when the generation's folder holds a copy of either file. */
int setup_copies_there(struct setup *s, long gen, struct wd_err *err);

#endif
