/* The NIC planner's working state, shared by its two halves: nic_plan.c
 * (which line and section each adapter takes) and nic_edit.c (the edits). */
#ifndef WD_NIC_CTX_H
#define WD_NIC_CTX_H

#include "installer/boot_model.h"
#include "installer/nic_plan.h"

/* A MAC driver line of CONFIG.SYS, as the boot model read it. */
struct mac_line {
	size_t line;
	char *file;        /* "E1000.OS2" as written */
	int occurrence;    /* 1 for the first line loading that file */
	char *drivername;  /* of that instance */
	bool guessed;      /* its DriverName was not verified */
	long section;      /* its PROTOCOL.INI section, or -1 */
	bool claimed;
	bool drop;         /* a replaced driver's line for an adapter that is gone */
};

struct nic_ctx {
	const struct nic_plan_in *in;
	struct config_sys *cs;
	struct protocol_ini *pi;
	struct mac_line *macs;
	size_t nmacs;
	struct nic_plan *out;
	struct wd_err *err;
	const struct pkg_manifest **manifests; /* of in->pkgs */
	long *claim;       /* per item: the index in macs of the line it takes, or -1 */
	char **before;     /* per item: its section's text before the edits, or NULL */
	char **stale;      /* sections --section ruled out: they go with their bindings */
	size_t nstale;
};

int nic_edit_config_sys(struct nic_ctx *c);
int nic_edit_protocol_ini(struct nic_ctx *c);
/* The text of section name and its [IBMLXCFG] entry, to tell a change (malloc'd). */
char *nic_section_text(const struct protocol_ini *pi, const char *name);

#endif
