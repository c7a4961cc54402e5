/* setup, configure nic|acpi and rollback as one call each below the front
 * end (installer/setup.h: setup_prepare, setup_commit), and detect's advice:
 * the session gives the volume, the database, the keys, the catalog and the
 * subscription; the front end renders the plan and asks. */
#include <stdlib.h>

#include "installer/config_off.h"
#include "installer/setup_internal.h"
#include "session/session.h"

/* The machine's NICs as --switch-nic leaves them, and a note of each switch. */
static int switch_nic_pci(struct setup *s, struct wd_err *err)
{
	struct pci_list l;
	int n = 0;
	int r = session_switch_nic_pci(s->ss, &l, &n, err);
	if (r)
		return r;
	for (int i = 0; i < n; i++)
		setup_note(s, wd_xasprintf("the machine's adapter %d becomes an Intel PRO/1000 MT "
					   "Desktop (82540EM) in its settings (--switch-nic)",
					   s->ss->sw.slots[i] + 1));
	if (!n)
		setup_note(s, wd_xstrdup("--switch-nic: the machine has no PCnet adapter to switch"));
	setup_take_pci(s, &l);
	return 0;
}

static int plan_nic(struct setup *s, const struct setup_req *q, const char *driver,
		    struct wd_err *err)
{
	int r = q->switch_nic ? switch_nic_pci(s, err) : setup_read_pci(s, q->pci, err);
	if (r)
		return r;
	size_t n;
	const struct package **nics = offer_nics(&s->offer, &n);
	struct nic_plan_in in = {.pkgs = nics, .npkgs = n, .may = offer_gate, .may_arg = &s->offer,
				 .driver = driver, .slot = q->slot, .section = q->section,
				 .off = q->off, .load = offer_unstub, .load_arg = &s->offer};
	r = setup_plan_nic(s, &in, err);
	free(nics);
	return r;
}

/* optional: when acpi-psd may not be installed, say what a subscription
 * would add and go on (setup); else that is the error (configure acpi). */
static int plan_acpi(struct setup *s, bool optional, struct wd_err *err)
{
	const struct package *p = NULL;
	for (size_t i = 0; i < s->offer.npkgs && !p; i++)
		if (s->offer.pkgs[i].m.kind == PKG_KIND_PSD)
			p = &s->offer.pkgs[i];
	if (!p) {
		if (optional) {
			setup_note(s, wd_xstrdup("no ACPI PSD package in the repositories: ACPI left as it is"));
			return 0;
		}
		return wd_err_set(err, WD_EFAIL, "no ACPI PSD package in the repositories "
				  "('warpdrv list' shows what there is)");
	}
	struct wd_err why = {0};
	int r = offer_gate(&s->offer, p, &why);
	if (r && optional) {
		setup_refuse_acpi(s, p);
		if (s->verbose)
			setup_note(s, wd_xasprintf("%s %s: %s", p->m.name, p->m.version, why.msg));
		return 0;
	}
	if (r) {
		*err = why;
		return wd_err_prefix(err, "%s %s", p->m.name, p->m.version);
	}
	return setup_plan_acpi(s, p, err);
}

/* The packages, then --off's driver before, the NIC plan, the ACPI plan. */
static int plan(struct setup *s, const struct setup_req *q, struct wd_err *err)
{
	setup_set_frame(s, q->frame);
	int r = offer_load(&s->offer, err);
	const char *driver = q->driver;
	if (!r && q->off) { /* back to the driver before (installer/config_off.h) */
		const struct package *cur, *prev;
		long gen;
		/* a copy: reading the package whole replaces its manifest */
		if (!(r = config_off_nic(s, s->offer.pkgs, s->offer.npkgs, &cur, &prev, &gen, err)))
			driver = s->off_driver = prev ? wd_xstrdup(prev->m.name) : NULL;
		s->offer.free_only = !r && !prev;
	}
	if (!r && q->nic)
		r = plan_nic(s, q, driver, err);
	if (!r && q->acpi)
		r = plan_acpi(s, q->acpi_optional, err);
	return r;
}

int setup_from_session(struct session *ss, const char *command, struct setup **out,
		       struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	*out = NULL;
	int r = session_boot_volume(ss, &v, err);
	if (!r)
		r = session_cmd_db(ss, &db, &have, err);
	if (!r)
		r = setup_new(out, command, v, db, have, err);
	if (!r)
		(*out)->ss = ss;
	return r;
}

int setup_prepare(struct session *ss, const struct setup_req *q, struct setup **out,
		  struct wd_err *err)
{
	int r = setup_from_session(ss, q->command, out, err);
	if (r)
		return r;
	struct setup *s = *out;
	s->switch_nic = q->switch_nic;
	s->verbose = q->verbose;
	s->offer = (struct offer){.ss = ss, .command = q->command, .writes = true};
	if (q->acpi_off) { /* planned, rendered and checked by setup_plan_acpi_off */
		const struct keyring *kr;
		if (!(r = session_keyring(ss, &kr, err)) &&
		    !(r = setup_plan_acpi_off(s, kr, &s->acpi_off, err))) {
			s->acpi_off_done = true;
			setup_diff(s, &s->diff);
		}
		return r;
	}
	r = q->rollback ? setup_plan_rollback(s, q->gen, err) : plan(s, q, err);
	if (r)
		return r;
	setup_render(s);
	const struct package **pkgs = wd_xcalloc(s->offer.npkgs + 1, sizeof *pkgs);
	for (size_t i = 0; i < s->offer.npkgs; i++)
		pkgs[i] = &s->offer.pkgs[i];
	r = setup_verify(s, pkgs, s->offer.npkgs, err);
	free(pkgs);
	if (!r)
		setup_diff(s, &s->diff);
	return r;
}

int setup_commit(struct setup *s, struct wd_err *err)
{
	int r = setup_apply(s, err);
	s->applied = !r;
	if (!r && s->switch_nic && s->ss->sw.n &&
	    !(r = session_switch_nic_apply(s->ss, s->generation, err)))
		s->switched = s->ss->sw.n;
	return r;
}

int setup_advise(struct session *ss, bool volume, const struct pci_list *l,
		 struct nic_advice *out, struct wd_err *err)
{
	char **driver = out->driver, **why = out->why;
	struct volume none = {0}, *v = &none; /* no volume: the boot drive C: */
	struct offer o = {.ss = ss, .command = "detect"};
	struct db *db;
	int r = 0;
	for (size_t i = 0; i < l->n; i++)
		driver[i] = why[i] = NULL;
	if (volume && !(r = session_boot_volume(ss, &v, err)))
		r = session_db(ss, SESSION_DB_READ, &db, NULL, err);
	if (!r)
		r = offer_load(&o, err);
	size_t n;
	const struct package **nics = offer_nics(&o, &n);
	struct nic_plan_in in = {.v = v, .pkgs = nics, .npkgs = n, .may = offer_gate, .may_arg = &o};
	if (!r)
		r = nic_advise(&in, l, driver, why, err);
	free(nics);
	offer_free(&o);
	return r;
}
