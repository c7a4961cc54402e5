/* Which package drives which network controller: the one PCI matcher, and
 * the best ranked driver the user may install. */
#include "installer/nic_plan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

void nic_add_note(char ***notes, size_t *n, char *note)
{
	*notes = wd_xrealloc(*notes, (*n + 1) * sizeof **notes);
	(*notes)[(*n)++] = note;
}

char *nic_stem(const char *file)
{
	size_t n = strcspn(file, ".");
	char *s = wd_xstrndup(file, n);
	for (char *c = s; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return s;
}

bool nic_drives(const struct package *p, const struct pci_dev *d, int *rank)
{
	const struct pkg_manifest *m = &p->m;
	if (d->vendor == PCI_NONE || d->device == PCI_NONE)
		return false;
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *e = &m->pci[i];
		if (e->vendor != d->vendor || e->device != d->device)
			continue;
		/* A source that does not give the subsystem or revision (lspci -n)
		 * matches on what it gives. */
		if (e->has_subsys && d->subvendor != PCI_NONE &&
		    (e->subsys_vendor != d->subvendor || e->subsys_device != d->subdevice))
			continue;
		if (e->revision >= 0 && d->revision != PCI_NONE && e->revision != d->revision)
			continue;
		*rank = e->rank;
		return true;
	}
	return false;
}

const struct package *nic_package_of_driver(const struct nic_plan_in *in, const char *file)
{
	for (size_t i = 0; i < in->npkgs; i++)
		if (in->pkgs[i]->m.driver && !strcasecmp(in->pkgs[i]->m.driver, file))
			return in->pkgs[i];
	return NULL;
}

static bool forced_is(const struct package *p, const char *name)
{
	if (!strcasecmp(p->m.name, name))
		return true;
	char *s = p->m.driver ? nic_stem(p->m.driver) : NULL;
	bool eq = s && !strcasecmp(s, name);
	free(s);
	return eq;
}

static const char *model_of(const struct pci_dev *d)
{
	return d->vbox_model ? d->vbox_model : "adapter";
}

char *nic_display_name(const struct package *p)
{
	return p->m.driver ? nic_stem(p->m.driver) : wd_xstrdup(p->m.name);
}

/* The packages that drive d, best ranked first (a stable insertion). */
static size_t ranked(const struct nic_plan_in *in, const struct pci_dev *d,
		     const struct package **cand, int *ranks)
{
	size_t n = 0;
	for (size_t i = 0; i < in->npkgs; i++) {
		int rank;
		if (!nic_drives(in->pkgs[i], d, &rank))
			continue;
		size_t at = n++;
		while (at > 0 && ranks[at - 1] > rank) {
			cand[at] = cand[at - 1];
			ranks[at] = ranks[at - 1];
			at--;
		}
		cand[at] = in->pkgs[i];
		ranks[at] = rank;
	}
	return n;
}

/* --driver NAME: the one candidate, when it drives d. */
static int forced(const struct nic_plan_in *in, const struct pci_dev *d,
		  const struct package **cand, size_t *n, struct wd_err *err)
{
	const struct package *f = NULL;
	for (size_t i = 0; i < in->npkgs; i++)
		if (forced_is(in->pkgs[i], in->driver))
			f = in->pkgs[i];
	if (!f)
		return wd_err_set(err, WD_EFAIL, "--driver %s: no NIC driver package of that "
				  "name ('warpdrv list' shows them)", in->driver);
	bool ok = false;
	for (size_t i = 0; i < *n; i++)
		ok |= cand[i] == f;
	if (!ok)
		return wd_err_set(err, WD_EFAIL, "--driver %s: %s does not drive the %s at %s "
				  "(%04x:%04x)", in->driver, f->m.name, model_of(d), d->slot,
				  d->vendor, d->device);
	cand[0] = f;
	*n = 1;
	return 0;
}

/* The first candidate the gate lets through. */
static int pick(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
		const struct package **cand, size_t n, struct wd_err *err)
{
	struct wd_buf why = {0};
	for (size_t i = 0; i < n; i++) {
		struct wd_err e = {0};
		int r = in->may ? in->may(in->may_arg, cand[i], &e) : 0;
		if (!r) {
			it->pkg = cand[i];
			if (it->better) {
				char *a = nic_display_name(it->better), *b = nic_display_name(cand[i]);
				nic_add_note(&it->notes, &it->nnotes,
					     wd_xasprintf("%s needs a subscription with %s; using %s", a,
							  it->better->m.entitlement
								  ? it->better->m.entitlement : "it", b));
				free(a);
				free(b);
			}
			wd_buf_free(&why);
			return 1;
		}
		if (in->driver && !in->off) {
			wd_buf_free(&why);
			*err = e;
			return wd_err_prefix(err, "--driver %s", in->driver);
		}
		if (!it->better)
			it->better = cand[i];
		wd_buf_addf(&why, "%s%s: %s", why.len ? "; " : "", cand[i]->m.name, e.msg);
	}
	int r = wd_err_set(err, WD_ELICENSE, "no driver the subscription allows for the %s at %s: %s",
			   model_of(d), d->slot, why.p);
	wd_buf_free(&why);
	return r;
}

static int choose(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
		  struct wd_err *err);

/* The chosen package read whole, so that only it is downloaded. */
int nic_choose(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
	       struct wd_err *err)
{
	int r = choose(in, d, it, err);
	if (r == 1 && in->load) {
		int lr = in->load(in->load_arg, it->pkg, err);
		if (lr)
			return lr;
	}
	return r;
}

/* configure nic --off: the driver before where it drives d, else the
 * drivers that need no subscription; none: d would keep the subscription's
 * driver, and the whole --off is refused naming it. */
static int off_choice(const struct nic_plan_in *in, const struct pci_dev *d,
		      const struct package **cand, size_t *n, struct wd_err *err)
{
	for (size_t i = 0; in->driver && i < *n; i++)
		if (forced_is(cand[i], in->driver)) {
			cand[0] = cand[i];
			*n = 1;
			return 0;
		}
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (!cand[i]->m.entitlement)
			cand[k++] = cand[i];
	if (k || !*n) {
		*n = k;
		return 0;
	}
	struct wd_buf b = {0};
	for (size_t i = 0; i < *n; i++)
		wd_buf_addf(&b, "%s%s (needs a subscription with %s)", i ? ", " : "",
			    cand[i]->m.name, cand[i]->m.entitlement);
	char *cmd = nic_switch_command(0);
	int r = wd_err_set(err, WD_ELICENSE, "configure nic --off: the %s at %s would keep the "
			   "subscription's driver: only %s drive%s it; nothing was changed. "
			   "Switch that adapter on the host to a model a driver needing no "
			   "subscription drives (%s), or turn the other adapters off alone with "
			   "--slot SLOT", model_of(d), d->slot, b.p, *n == 1 ? "s" : "", cmd);
	free(cmd);
	wd_buf_free(&b);
	return r;
}

static int choose(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
		  struct wd_err *err)
{
	const struct package **cand = wd_xcalloc(in->npkgs + 1, sizeof *cand);
	int *ranks = wd_xcalloc(in->npkgs + 1, sizeof *ranks);
	size_t n = ranked(in, d, cand, ranks);
	int r = in->off ? off_choice(in, d, cand, &n, err)
	      : in->driver ? forced(in, d, cand, &n, err) : 0;
	if (!r && n)
		r = pick(in, d, it, cand, n, err);
	free(cand);
	free(ranks);
	return r;
}
