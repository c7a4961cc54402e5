/* struct setup, private to installer/ (installer/setup.h is its public
 * face): the volume's configuration files read once, the models the planners
 * edit, the plans and the packages to install. The front end never includes
 * this header (scripts/ui_planner.sh checks it). */
#ifndef WD_SETUP_INTERNAL_H
#define WD_SETUP_INTERNAL_H

#include "installer/config_off.h"
#include "installer/offer.h"
#include "installer/setup.h"

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
	char *own_command, *own_summary; /* rollback's, when command and summary are made */
	/* setup_prepare's (installer/setup_run.c): the session, the packages on
	 * offer, the diff of the plan, what --switch-nic switched */
	struct session *ss;
	struct offer offer;
	bool switch_nic, verbose;
	char *off_driver;      /* configure nic --off: the driver before (a copy) */
	struct acpi_off acpi_off; /* configure acpi --off's plan */
	bool acpi_off_done;
	struct wd_buf diff;
	bool applied;
	int switched;
};

/* setup_new on the session's boot volume and its database, opened in the
 * command's mode (session_cmd_db: an interrupted run finished first where
 * the command writes); s->ss is the session. What setup_prepare and
 * rollback --packages (installer/undo_run.c) start from. */
int setup_from_session(struct session *ss, const char *command, struct setup **out,
		       struct wd_err *err);

/* Reads the files of s->v (opened, boot drive set); setup_clear frees what
 * setup_open and the plans made, not the volume or database, nor s. */
int setup_open(struct setup *s, struct wd_err *err);
void setup_clear(struct setup *s);

/* Rollback: the bytes of file f as they were before generation gen. */
int setup_before_generation(struct setup *s, const struct generation *g, size_t ng, long gen,
			    int f, struct wd_buf *out, struct wd_err *err);
/* 0 when the generation's folder holds a copy of either file. */
int setup_copies_there(struct setup *s, long gen, struct wd_err *err);

/* The generation a change of s's files records: the next number free both
 * in db and on the volume (a folder left from a database that is gone is
 * passed over), and its copies and rows planned into plan
 * (generation_plan). gn's command and summary are the caller's. */
int setup_plan_generation(struct setup *s, struct db *db, struct generation_note *gn,
			  struct txn_plan *plan, struct wd_err *err);

#endif
