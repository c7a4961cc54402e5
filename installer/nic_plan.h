/* The NIC planner: for each network controller a package drives, the driver
 * to use (the best ranked the user may install) and the CONFIG.SYS and
 * PROTOCOL.INI edits that make it load at the next boot. It edits the models
 * it is given and decides nothing about writing them. Rules: docs/setup.md. */
#ifndef WD_NIC_PLAN_H
#define WD_NIC_PLAN_H

#include <stdbool.h>

#include "catalog/package.h"
#include "common/err.h"
#include "os2/config_sys.h"
#include "os2/protocol_ini.h"
#include "os2/volfiles.h"
#include "os2/volume.h"
#include "pci/pci.h"

/* May this package be installed? 0, or a negative code with the reason
 * (the subscription gate). */
typedef int (*nic_may_fn)(void *arg, const struct package *p, struct wd_err *why);

struct nic_plan_in {
	const struct volume *v;           /* its boot drive */
	struct pci_list *pci;
	const struct package *const *pkgs; /* the NIC packages on offer */
	size_t npkgs;
	nic_may_fn may;
	void *may_arg;
	const char *driver;               /* --driver NAME, or NULL */
	const char *slot;                 /* --slot SLOT, or NULL: every NIC */
	const char *section;              /* --section NAME: the old adapter's, or NULL */
	/* configure nic --off: driver is the one before (or NULL); a device it
	 * does not drive takes the best ranked driver needing no subscription,
	 * and a device only subscription drivers drive refuses the plan (exit 4,
	 * naming it) rather than keep one on. */
	bool off;
	const struct pi_location *loc;    /* where PROTMAN reads PROTOCOL.INI */
	const struct vol_nif *nifs;       /* the NIFs on the volume */
	size_t nnifs;
	/* Reads the package chosen, when pkgs are known from the index alone
	 * (catalog_stub); NULL: they were read whole. */
	int (*load)(void *arg, const struct package *p, struct wd_err *err);
	void *load_arg;
};

struct nic_item {
	const struct pci_dev *dev;
	const struct package *pkg;  /* the driver chosen */
	int instance;               /* 1 for the first adapter of that driver */
	char *section;              /* "MMLEM_nif", "MMLEM_nif2" */
	char *drivername;           /* "MMLEM$", "MMLEM2$" */
	char *replaced_file;        /* the MAC driver whose line it takes, or NULL */
	char *replaced_section;     /* its PROTOCOL.INI section, or NULL */
	const struct package *better; /* a better ranked one the gate refused */
	char **notes;               /* "MMLEM needs ...; using E1000" */
	size_t nnotes;
	bool unchanged;             /* already configured so: no line of it changed */
	long slot;                  /* the slot keyword's value for it, or -1 */
};

struct nic_plan {
	struct nic_item *items;
	size_t n;
	char **notes;               /* about devices no package drives */
	size_t nnotes;
	/* Warnings: an adapter left unconfigured (the driver cannot tell it
	 * from the first). Setup still applies the rest, exit 0. */
	char **warnings;
	size_t nwarnings;
};

/* Plans and edits cs and pi. Errors: no MPTS networking (WD_EFAIL: no
 * PROTMAN, no PROTOCOL.INI where it reads one or one without [PROT_MAN], LAN
 * Manager's networking, PROTMAN's /I: on another drive), an old adapter's
 * section that cannot be told (WD_EFAIL naming the candidates), no
 * supported NIC (WD_ENODEV, naming the VBoxManage command that switches the
 * adapter to an Intel model), a forced driver that does not drive the
 * device (WD_EFAIL) or may not be installed (its gate's code). */
int nic_plan(const struct nic_plan_in *in, struct config_sys *cs, struct protocol_ini *pi,
	     struct nic_plan *out, struct wd_err *err);
void nic_plan_free(struct nic_plan *p);

/* The driver for one device: the best ranked package the user may install
 * (it->pkg; it->better and a note when a better one was refused). 1 when a
 * package was chosen, 0 when none drives the device, or a negative code. */
int nic_choose(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
	       struct wd_err *err);
/* detect's advice (installer/nic_advice.c), for each device of l: the driver
 * package it would get (driver[i], malloc'd; NULL for none, or not a NIC) and
 * why not a better one or none (why[i]): the gate's reason, for a VirtualBox
 * model no package drives the VBoxManage line that switches it to the
 * 82540EM, or the plan's first note. in: the packages, the gate, the volume
 * (its boot drive); not the files. */
int nic_advise(const struct nic_plan_in *in, const struct pci_list *l, char **driver,
	       char **why, struct wd_err *err);
/* Why no package drives network device d, the adapter-th of its machine
 * (malloc'd): for a VirtualBox model other than the 82540EM (the one every
 * OS/2 driver set has), the VBoxManage line that switches it; for the
 * 82540EM itself or a device not VirtualBox's, that the repositories hold
 * no driver for it. setup's note and detect's advice alike. */
char *nic_unsupported_why(const struct pci_dev *d, int adapter);
/* The one command that switches VirtualBox adapter number adapter (0: "N")
 * to the 82540EM, which every OS/2 driver set drives (malloc'd). */
char *nic_switch_command(int adapter);
/* The one PCI matcher: does package p drive device d (and at what rank)? */
bool nic_drives(const struct package *p, const struct pci_dev *d, int *rank);
const struct package *nic_package_of_driver(const struct nic_plan_in *in, const char *file);
/* "MMLEM" for a package whose driver is MMLEM.OS2, else its name (malloc'd). */
char *nic_display_name(const struct package *p);
/* "MMLEM.OS2" -> "MMLEM" (malloc'd, upper case). */
char *nic_stem(const char *file);

/* The NIF package p ships (its manifest's `nif`), parsed; errors name the
 * package, its version and the file. */
int nic_package_nif(const struct package *p, struct nif *nif, struct wd_err *err);

/* Section s's keywords by nif, the rule of a driver change and of an
 * upgrade (docs/setup.md): each one but DriverName that nif does not define
 * goes, each it defines stays, each required one with a default that s
 * lacks is added at that default. note (may be NULL) hears of each. -1 when
 * an edit cannot be made (the model is then part edited: throw it away). */
enum nic_fit { NIC_CARRIED, NIC_DROPPED, NIC_ADDED };
typedef void nic_fit_note(void *ud, enum nic_fit what, const char *key, const char *value);
int nic_fit_keywords(struct protocol_ini *pi, size_t s, const struct nif *nif,
		     nic_fit_note *note, void *ud);
void nic_add_note(char ***notes, size_t *n, char *note);

#endif
