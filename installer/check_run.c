/* `warpdrv check` as one call below the front end (installer/check.h:
 * check_run): the session's volume and database, the files read under the
 * volume's shared lock (so a setup or rollback rewriting them together ends
 * first and check sees both old or both new), the NIC packages of the
 * bundled repository, and a transaction left pending as a finding. */
#include <stdlib.h>
#include <string.h>

#include "catalog/repo.h"
#include "common/date.h"
#include "installer/check.h"
#include "session/session.h"
#include "state/db.h"
#include "txn/txn.h"

/* The NIC packages of the bundled repository (local: nothing downloads):
 * their manifests make an instance's DriverName certain. Without them check
 * still runs, with more of its facts guessed. */
struct known {
	struct catalog cat;
	struct package *pkgs;
	const struct pkg_manifest **m;
	size_t n;
};

static void known_load(struct session *ss, struct known *k)
{
	memset(k, 0, sizeof *k);
	catalog_init(&k->cat, NULL);
	struct wd_err e;
	int today;
	const struct keyring *kr;
	const char *bundled = ss->o.bundled_repo;
	if (!bundled || wd_today(&today, &e) || session_keyring(ss, &kr, &e))
		return;
	int r = catalog_add_bundled(&k->cat, bundled, kr, &e);
	for (size_t i = 0; !r && i < k->cat.n; i++) {
		const struct repo *rp = &k->cat.repos[i];
		k->pkgs = wd_xrealloc(k->pkgs, (k->n + rp->idx.npkgs + 1) * sizeof *k->pkgs);
		k->m = wd_xrealloc(k->m, (k->n + rp->idx.npkgs + 1) * sizeof *k->m);
		for (size_t j = 0; j < rp->idx.npkgs; j++)
			if (!catalog_fetch(rp, &rp->idx.pkgs[j], kr, &k->pkgs[k->n], &e)) {
				if (k->pkgs[k->n].m.kind != PKG_KIND_NIC) {
					package_free(&k->pkgs[k->n]);
					continue;
				}
				k->m[k->n] = &k->pkgs[k->n].m;
				k->n++;
			}
	}
}

static void known_free(struct known *k)
{
	for (size_t i = 0; i < k->n; i++)
		package_free(&k->pkgs[i]);
	free(k->pkgs);
	free(k->m);
	catalog_free(&k->cat);
}

int check_run(struct session *ss, struct check_report *rep, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	int r = session_boot_volume(ss, &v, err);
	/* the database only to know whether a transaction was left half done */
	if (!r)
		r = session_cmd_db(ss, &db, NULL, err);
	int lock;
	if (r || (r = txn_read_lock(v, &lock, err)))
		return r;
	struct known k;
	known_load(ss, &k);
	r = check_volume(v, k.m, k.n, rep, err);
	txn_read_unlock(lock);
	known_free(&k);
	const struct txn_pending_desc *pend = r ? NULL : session_pending(ss);
	if (pend) {
		/* what a reboot now would load may be half of a change: an error
		 * (exit 1) until 'warpdrv recover' finishes or undoes it */
		char what[512];
		txn_pending_text(pend, what, sizeof what);
		report_add(rep, WD_STATE_DIR "/" WD_DB_NAME, 0, CHECK_ERROR, "txn-pending", "txn",
			   "the interrupted %s was neither finished nor undone: CONFIG.SYS and "
			   "PROTOCOL.INI may hold half of it; run 'warpdrv recover'", what);
		check_sort(rep);
	}
	return r;
}
