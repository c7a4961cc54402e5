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

/* The plan and its files: private to installer/ (installer/setup_internal.h).
 * The front end makes one with setup_new, plans with the functions below,
 * renders what setup_view gives, and frees it with setup_free. */
struct setup;

struct acpi_off;
/* What the front end renders of a plan: read only, valid until the next
 * planning call or setup_free. */
struct setup_view {
	const char *command;              /* "setup", "configure nic", "rollback 3" */
	const struct nic_plan *nic;       /* the NIC plan, or NULL when none was made */
	const struct package *acpi;       /* the ACPI PSD planned, or NULL */
	bool acpi_changes;                /* its CONFIG.SYS lines change, or packages install */
	const struct package *acpi_refused; /* the gate said no (setup went on) */
	char *const *notes;               /* what the user should read */
	size_t nnotes;
	const struct package *const *install; /* the packages to install */
	size_t ninstall;
	bool anything;                    /* setup_anything */
	long generation;                  /* after setup_apply: the generation (0: none) */
	const char *diff;                 /* setup_prepare's unified diff of both files */
	size_t diff_len;
	bool applied;                     /* setup_apply wrote the plan */
	int switched;                     /* after setup_commit: the machine's adapters
					   * --switch-nic switched */
	const struct acpi_off *acpi_off;  /* configure acpi --off's plan, or NULL */
};
void setup_view(const struct setup *s, struct setup_view *out);

struct session;

/* What one setup, configure nic|acpi or rollback plans. */
struct setup_req {
	const char *command;   /* "setup", "configure nic", "rollback": named in messages */
	bool nic, acpi;        /* plan the NIC, the ACPI PSD */
	bool acpi_off;         /* configure acpi --off (installer/config_off.h) */
	bool acpi_optional;    /* a refused PSD is a note (setup), not the error */
	bool off;              /* configure nic --off: back to the driver before */
	bool switch_nic;       /* setup --switch-nic (--vm): the machine's PCnet adapters */
	bool verbose;          /* the gate's reason in a note too */
	bool rollback;         /* rollback to before generation gen (0: the last) */
	long gen;
	const char *driver, *slot, *section, *frame; /* --driver, --slot, --section, --frame */
	const char *pci;       /* the PCI source (pci/pci.h) */
};

/* The whole plan of q on the session's volume, below the front end: the
 * volume and its database (an interrupted run finished first), its
 * configuration files, the packages on offer (installer/offer.h: a download
 * asked first through the session), the NIC and ACPI plans, rendered and
 * checked by the postcondition, and their diff; or (q->acpi_off) configure
 * acpi --off's plan (installer/config_off.h), the installed manifest checked
 * with the session's keys. *out is the plan (freed with setup_free, even on
 * an error). */
int setup_prepare(struct session *ss, const struct setup_req *q, struct setup **out,
		  struct wd_err *err);
/* Writes a prepared plan in one transaction (setup_apply), then, with
 * --switch-nic, the machine's adapters (view's switched). */
int setup_commit(struct setup *s, struct wd_err *err);
/* detect's advice (nic_advise) for each device of l under the session's
 * subscription: the volume's boot drive when one is given (volume), else
 * C:. driver and why: l->n entries each, filled as nic_advise says. */
struct nic_advice {
	char **driver, **why;
};
int setup_advise(struct session *ss, bool volume, const struct pci_list *l,
		 struct nic_advice *out, struct wd_err *err);

/* A plan of command ("setup", "upgrade") for volume v (opened, its boot
 * drive set) and its database db (read only; have_db false when there is
 * none): its configuration files read. v and db stay the caller's. */
int setup_new(struct setup **out, const char *command, struct volume *v, struct db *db,
	      bool have_db, struct wd_err *err);
void setup_free(struct setup *s);
/* --frame FRAME: the Ethernet frame a protocol of another medium is
 * switched to ("802.3"), or NULL. */
void setup_set_frame(struct setup *s, const char *frame);
/* The PCI devices the NIC plan is made for (pci/pci.h's sources). */
int setup_read_pci(struct setup *s, const char *source, struct wd_err *err);
/* The same from a list already read (l's contents become the plan's). */
void setup_take_pci(struct setup *s, struct pci_list *l);
/* The ACPI PSD p that the subscription gate refused: setup goes on without
 * it, and the view names it for what a subscription would add. */
void setup_refuse_acpi(struct setup *s, const struct package *p);

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

/* rollback [GEN] (gen 0: the last generation): CONFIG.SYS and PROTOCOL.INI as
 * they were before generation gen, planned as the new files (the models
 * loaded with those bytes, so that setup_render gives them back); the
 * command and summary of the generation it records say so. An unknown
 * generation, a volume with none, or a generation folder holding no copy
 * is an error naming what to do. */
int setup_plan_rollback(struct setup *s, long gen, struct wd_err *err);

#endif
