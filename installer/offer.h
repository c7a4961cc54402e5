/* The NIC and PSD packages on offer to setup, configure and detect: every
 * one the repositories hold, each name at the newest version the
 * subscription allows, read through the session (its keys, catalog and
 * gate). A download the plan needs starts only once the user agreed, asked
 * through the session's ask callback. */
#ifndef WD_OFFER_H
#define WD_OFFER_H

#include <stdbool.h>

#include "catalog/package.h"
#include "common/err.h"

struct session;

struct offer {
	struct session *ss;
	const char *command;   /* "setup", "configure nic", "detect": named in messages */
	bool writes;           /* for a command that may write (not detect) */
	bool free_only;        /* configure nic --off to the free default */
	bool download_ok;      /* the user agreed to download what the plan needs */
	const struct keyring *kr;
	struct catalog *cat;
	struct package *pkgs;
	size_t npkgs;
};

/* Loads o->pkgs (a command that writes: NIC drivers known from the index
 * alone until chosen, the PSD read whole; detect: the NIC drivers). */
int offer_load(struct offer *o, struct wd_err *err);
void offer_free(struct offer *o);
/* The NIC packages of o, for nic_plan_in (malloc'd; *n of them). */
const struct package **offer_nics(const struct offer *o, size_t *n);
/* nic_plan_in's may and load: the subscription gate (and --off's rule), and
 * the chosen driver read whole (downloaded once agreed). arg: the offer. */
int offer_gate(void *arg, const struct package *p, struct wd_err *why);
int offer_unstub(void *arg, const struct package *p, struct wd_err *err);

#endif
