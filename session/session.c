/* The session handle (session/session.h): each piece opened when first asked
 * for, everything freed by session_close. */
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/hoststate.h"
#include "catalog/repolist.h"
#include "catalog/store.h"
#include "common/date.h"
#include "common/file.h"
#include "os2/boot_drive.h"
#include "os2/volfiles.h"

void session_warn(const struct session *s, const char *fmt, ...)
{
	if (!s->o.cb.warn)
		return;
	char msg[1100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->o.cb.warn(s->o.cb.ud, msg);
}

/* A volume was given (--root, or a disk image not yet mounted). */
static bool has_volume(const struct session *s)
{
	return s->o.root || s->o.disk || s->o.vm;
}

int session_open(struct session *s, const struct session_opts *o, struct wd_err *err)
{
	(void)err;
	memset(s, 0, sizeof *s);
	s->o = *o;
	return 0;
}

void session_close(struct session *s)
{
	struct wd_err ignore;
	session_close_checked(s, &ignore);
}

int session_close_checked(struct session *s, struct wd_err *err)
{
	if (s->act_open)
		activation_free(&s->act);
	if (s->cat_open)
		catalog_free(&s->cat);
	if (s->kr_open)
		keyring_free(&s->kr);
	txn_pending_desc_free(&s->pending);
	db_close(&s->db);
	if (s->vol_open)
		volume_close(&s->v);
	/* last: nothing may hold a file of the mounted volume open */
	int r = s->disk_open ? disk_close(&s->disk, err) : 0;
	if (s->vm_open)
		vbox_machine_free(&s->vm);
	wd_buf_free(&s->switch_text);
	free((char *)s->o.bundled_keys);
	free((char *)s->o.bundled_repo);
	memset(s, 0, sizeof *s);
	return r;
}

/* ------------------------------------------------------------ the volume */

int session_machine(struct session *s, const struct vbox_machine **m, struct wd_err *err)
{
	if (!s->o.vm)
		return wd_err_set(err, WD_EUSAGE, "no machine: name one with --vm MACHINE");
	if (!s->vm_open) {
		int r = vbox_machine_find(s->o.vm, s->o.vbox_dir, &s->vm, err);
		if (r)
			return r;
		s->vm_open = true;
	}
	*m = &s->vm;
	return 0;
}

/* The machine's boot disk, refused for writing while the machine has a
 * saved state: the guest's memory holds its open files, and resuming it
 * would undo or corrupt what was written. */
static int machine_disk(struct session *s, const char **disk, struct wd_err *err)
{
	const struct vbox_machine *m;
	int r = session_machine(s, &m, err);
	if (r)
		return r;
	const char *name = m->name ? m->name : m->file;
	if (!m->disk)
		return wd_err_set(err, WD_EFAIL, "--vm %s: the machine has no hard disk attached",
				  name);
	if (m->state_file && !(s->o.readonly || s->o.dry_run))
		return wd_err_set(err, WD_EFAIL, "--vm %s: the machine has a saved state (%s), and "
				  "its disk is not written while it does: a resumed guest would undo "
				  "or damage the change. Start it and shut the guest down, or discard "
				  "the state (VBoxManage discardstate \"%s\"), then run again; check, "
				  "detect and --dry-run may inspect it as it is", name, m->state_file,
				  name);
	char state[32];
	if (!(s->o.readonly || s->o.dry_run)) {
		vbox_machine_vmstate(m, state, sizeof state);
		if (*state && strcmp(state, "poweroff") && strcmp(state, "aborted"))
			return wd_err_set(err, WD_EFAIL, "--vm %s: the machine is %s (VBoxManage "
					  "showvminfo), and its disk is written only while it is "
					  "powered off: shut the guest down, then run again; check, "
					  "detect and --dry-run may inspect it as it is", name, state);
	}
	*disk = m->disk;
	return 0;
}

/* A disk image's volume mounted, once: o.root becomes its folder. */
static int attach(struct session *s, struct wd_err *err)
{
	if ((!s->o.disk && !s->o.vm) || s->disk_open)
		return 0;
	if (s->disk_rc) { /* one appliance start per run, even for a failure */
		*err = s->disk_err;
		return s->disk_rc;
	}
	const char *image = s->o.disk;
	int r = s->o.vm ? machine_disk(s, &image, err) : 0;
	if (r)
		return r;
	struct disk_opts d = {
		.image = image,
		.format = s->o.disk_format,
		.partition = s->o.partition,
		.readonly = s->o.readonly || s->o.dry_run,
	};
	r = disk_open(&s->disk, &d, err);
	if (r && s->o.vm)
		wd_err_prefix(err, "--vm %s", s->vm.name ? s->vm.name : s->vm.file);
	if (r) {
		s->disk_rc = r;
		s->disk_err = *err;
		return r;
	}
	s->disk_open = true;
	s->o.root = s->disk.mnt;
	return 0;
}

int session_volume(struct session *s, struct volume **v, struct wd_err *err)
{
	int r = attach(s, err);
	if (r)
		return r;
	if (!s->vol_open) {
		r = volume_open(&s->v, s->o.root, err);
		if (r)
			return r;
		s->v.lock_wait = s->o.lock_wait;
		s->vol_open = true;
	}
	*v = &s->v;
	return 0;
}

int session_boot_volume(struct session *s, struct volume **v, struct wd_err *err)
{
	int r = attach(s, err);
	if (r)
		return r;
	if (!s->vol_open) {
		struct config_sys cs;
		r = boot_volume_open(&s->v, &cs, s->o.root, s->o.boot_drive, err);
		if (r)
			return r;
		s->v.lock_wait = s->o.lock_wait;
		config_sys_free(&cs);
		s->vol_open = s->vol_boot = true;
	} else if (!s->vol_boot) {
		/* opened plain before: CONFIG.SYS read now for the drive */
		struct wd_buf b = {0};
		r = volfile_config_sys(&s->v, &b, err);
		if (r) {
			wd_buf_free(&b);
			return r;
		}
		struct config_sys cs;
		config_sys_parse(&cs, b.p ? b.p : "", b.len);
		wd_buf_free(&b);
		boot_drive_set(&s->v, s->o.boot_drive, &cs);
		config_sys_free(&cs);
		s->vol_boot = true;
	}
	*v = &s->v;
	return 0;
}

/* ------------------------------------------------------------ the database */

/* Opens the database again: read-only for a command that only reads (and
 * under --dry-run), so that a read-only volume serves it and nothing is
 * written, not even a journal played back; read-write for one that writes. */
static int db_reopen(struct session *s, bool create, bool rw, struct wd_err *err)
{
	db_close(&s->db);
	s->db_tried = false;
	rw = (rw || create) && !s->o.dry_run;
	int r = rw ? db_open(&s->db, &s->v, create, &s->db_have, err)
		   : db_open_read(&s->db, &s->v, &s->db_have, err);
	if (!r) {
		s->db_tried = true;
		s->db_rw = rw;
		s->db_created |= create;
	}
	return r;
}

/* tell: a read-only command asked (the pending transaction is warned of);
 * boot: the volume's boot drive resolved first, as the commands that read
 * the state always did; rw: the command writes through this handle (never
 * under --dry-run). */
static int db_get_rw(struct session *s, enum session_db_mode mode, bool tell, bool boot,
		     bool rw, struct wd_err *err)
{
	struct volume *v;
	int r = boot ? session_boot_volume(s, &v, err) : session_volume(s, &v, err);
	rw = rw && !s->o.dry_run;
	if (!r && (!s->db_tried || (rw && !s->db_rw)))
		r = db_reopen(s, false, rw, err);
	if (!r && mode == SESSION_DB_CREATE && !s->db_have)
		r = db_reopen(s, true, true, err);
	if (r || !s->db_have || mode == SESSION_DB_CREATE || (!tell && mode != SESSION_DB_RECOVER))
		return r;
	if (mode == SESSION_DB_RECOVER && s->o.dry_run)
		mode = SESSION_DB_READ; /* --dry-run writes nothing, not even recovery */
	if (!s->pending_known) {
		if ((r = txn_pending_describe(&s->db, &s->pending, err)))
			return r;
		s->pending_known = true;
	}
	if (!s->pending.found)
		return 0;
	if (mode == SESSION_DB_RECOVER) {
		db_close(&s->db);
		struct txn t;
		if ((r = txn_begin(&t, &s->v, "recovery", err)))
			return r;
		txn_end(&t);
		txn_pending_desc_free(&s->pending);
		s->db_recovered = true;
		return db_reopen(s, false, true, err);
	}
	if (!s->pending_told) {
		char what[512];
		txn_pending_text(&s->pending, what, sizeof what);
		session_warn(s, "the interrupted %s is pending on this volume: what is shown is the state "
		     "before it, and nothing was changed; 'warpdrv recover' finishes or undoes it",
		     what);
		s->pending_told = true;
	}
	return 0;
}

/* rw: as the mode says (all but SESSION_DB_READ write). */
static int db_get(struct session *s, enum session_db_mode mode, bool tell, bool boot,
		  struct wd_err *err)
{
	return db_get_rw(s, mode, tell, boot, mode != SESSION_DB_READ, err);
}

int session_db(struct session *s, enum session_db_mode mode, struct db **db, bool *have,
	       struct wd_err *err)
{
	int r = mode == SESSION_DB_PLAIN ? db_get_rw(s, SESSION_DB_READ, false, false, true, err)
					 : db_get(s, mode, true, true, err);
	if (r)
		return r;
	*db = &s->db;
	if (have)
		*have = s->db_have;
	return 0;
}

const char *session_host_state(const struct session *s)
{
	return s->o.host_state;
}

int session_cmd_db(struct session *s, struct db **db, bool *have, struct wd_err *err)
{
	return session_db(s, s->o.db_mode, db, have, err);
}

const struct txn_pending_desc *session_pending(struct session *s)
{
	return s->pending.found ? &s->pending : NULL;
}

/* ------------------------------------------------------------ the keys */

int session_keyring(struct session *s, const struct keyring **kr, struct wd_err *err)
{
	if (s->kr_open) {
		*kr = &s->kr;
		return 0;
	}
	memset(&s->kr, 0, sizeof s->kr);
	int r = s->o.bundled_keys ? keyring_add_dir(&s->kr, s->o.bundled_keys, err) : 0;
	if (!r && s->o.system_keys)
		r = keyring_add_dir(&s->kr, s->o.system_keys, err);
	if (!r && s->o.keys_dir) {
		if (!wd_is_dir(s->o.keys_dir)) /* host: --keys names a folder of the user's */
			r = wd_err_set(err, WD_EUSAGE, "--keys %s: no such folder", s->o.keys_dir);
		else
			r = keyring_add_dir(&s->kr, s->o.keys_dir, err);
	}
	/* Keys on the volume are the volume's data, and the volume is anyone's:
	 * they are never trusted, only named, so that the user knows why a
	 * package or key signed by them is refused. */
	if (!r && s->vol_open) {
		char *dir = NULL;
		bool found;
		struct wd_err e;
		if (!volume_resolve(&s->v, WD_STATE_DIR "/keys", &dir, &found, &e) && found)
			session_warn(s, "%s: keys found on the volume are ignored; warpdrv trusts only its "
			     "own keys and those given with --keys DIR", dir);
		free(dir);
	}
	if (r) {
		keyring_free(&s->kr);
		return r;
	}
	s->kr_open = true;
	if (s->o.cb.keys_loaded)
		s->o.cb.keys_loaded(s->o.cb.ud);
	*kr = &s->kr;
	return 0;
}

/* ------------------------------------------------------------ the catalog */

static void add_stored(const struct session *s, sqlite3 *store, const struct keyring *kr,
		       const struct repo_conf *rc, int today, bool other, struct catalog *cat,
		       struct wd_err *err, int *r)
{
	struct repo_index idx;
	bool found;
	if ((*r = store_get(store, rc->name, rc->url, kr, &idx, &found, err)))
		return;
	if (!found) {
		if (!other)
			session_warn(s, "repository %s has no catalog yet: run 'warpdrv update'", rc->name);
		return;
	}
	wd_buf_free(&idx.text); /* verified; only update keeps it */
	/* fresh enough? the host's memory first; without one, the expiry */
	struct host_seen seen;
	if ((*r = host_seen_get(s->o.host_state, idx.signer, rc->url, &seen, err))) {
		index_free(&idx);
		return;
	}
	char *stale = NULL, d[WD_DATE_LEN];
	if (seen.known && idx.serial < seen.serial) {
		stale = wd_xasprintf("repository %s: its stored catalog (index serial %llu) is older "
				     "than the one this host has seen (serial %llu): the volume's "
				     "catalog was replaced or restored; run 'warpdrv update'",
				     rc->name, (unsigned long long)idx.serial,
				     (unsigned long long)seen.serial);
	} else if (today > idx.expires) {
		wd_date_format(idx.expires, d);
		stale = wd_xasprintf("repository %s: its stored catalog expired on %s, %d days ago%s; "
				     "run 'warpdrv update' (or 'warpdrv repo remove %s' to go on "
				     "without it)", rc->name, d, today - idx.expires,
				     seen.known ? "" : " (this host has no record of it: its expiry "
				     "is all that bounds its age)", rc->name);
	} else if (!seen.known) {
		wd_date_format(idx.expires, d);
		session_warn(s, "repository %s: this host has no record of its index (the volume was "
		     "updated elsewhere): its freshness rests on its expiry, %s", rc->name, d);
	}
	if (stale)
		session_warn(s, "%s", stale);
	struct repo *rp = catalog_add_index(cat, rc->name, rc->url, rc->mirrors, rc->nmirrors,
					    rc->subscription, &idx);
	rp->stale = stale;
}

/* The credentials of subscription repositories: the activated key. With no
 * key (or one that no longer checks out) none are set, and a download from
 * such a repository says to activate one. */
static void stored_auth(struct session *s, struct catalog *cat)
{
	const struct activation *a;
	struct wd_err ignore;
	if (!session_activation(s, &a, &ignore) && a->have)
		catalog_set_auth(cat, &a->sub, a->text);
}

/* The remote repositories of the volume, from the catalog `update` stored
 * (no network), each index verified again with kr: one that does not verify
 * is an error (-WD_ETRUST, docs/repository.md), one of another version of
 * the stored catalog is a note. Writes nothing. */
static int add_stored_all(struct session *s, const struct keyring *kr, int today,
			  struct catalog *cat, struct wd_err *err)
{
	struct repo_list l = {0};
	sqlite3 *store = NULL;
	char *path = NULL;
	bool found, other = false;
	int r = db_get(s, SESSION_DB_READ, false, false, err);
	if (!r)
		r = repolist_read(&s->db, &l, err);
	if (!r && l.n)
		r = volume_resolve(&s->v, STORE_DIR "/" STORE_NAME, &path, &found, err);
	if (!r && l.n)
		r = store_open(&s->v.fs, path, &store, &other, err);
	if (!r && other)
		session_warn(s, "%s: a catalog of another warpdrv version: ignored; run 'warpdrv update'",
		     path);
	for (size_t i = 0; !r && i < l.n; i++) {
		add_stored(s, store, kr, &l.v[i], today, other, cat, err, &r);
		if (l.v[i].subscription && !cat->auth.user && s->db.h)
			stored_auth(s, cat);
	}
	db_handle_close(store);
	free(path);
	repolist_free(&l);
	return r;
}

static int use_cache(struct session *s, struct wd_err *err)
{
	struct volume *v;
	bool found;
	int r = session_volume(s, &v, err);
	if (r)
		return r;
	free(s->cat.cache_dir);
	s->cat.cache_dir = NULL;
	s->cat.cache_fs = &v->fs;
	/* under --dry-run the cache is read, never written: nothing downloads */
	s->cat.no_download = s->o.dry_run;
	return volume_resolve(v, STORE_DIR "/packages", &s->cat.cache_dir, &found, err);
}

int session_catalog(struct session *s, bool install, struct catalog **cat, struct wd_err *err)
{
	const struct keyring *kr;
	int r = session_keyring(s, &kr, err);
	if (r)
		return r;
	if (!s->cat_open) {
		catalog_init(&s->cat, s->o.net);
		int today;
		r = wd_today(&today, err);
		for (int i = 0; !r && i < s->o.nrepos; i++) {
			char *u = repo_url(s->o.repos[i]);
			r = catalog_add_url(&s->cat, u, kr, today, s->o.host_state, !s->o.dry_run, err);
			free(u);
		}
		if (!r && has_volume(s))
			r = add_stored_all(s, kr, today, &s->cat, err);
		if (!r && s->o.bundled_repo)
			r = catalog_add_bundled(&s->cat, s->o.bundled_repo, kr, err);
		if (r) {
			catalog_free(&s->cat);
			return r;
		}
		s->cat_open = true;
	}
	/* an install chooses among every repository's versions: not from a
	 * catalog known to be stale */
	for (size_t i = 0; install && i < s->cat.n; i++)
		if (s->cat.repos[i].stale)
			return wd_err_set(err, WD_ETRUST, "%s", s->cat.repos[i].stale);
	if (install && !s->cat_cache) {
		if ((r = use_cache(s, err)))
			return r;
		s->cat_cache = true;
	}
	*cat = &s->cat;
	return 0;
}

/* ------------------------------------------------------------ the subscription */

int session_activation(struct session *s, const struct activation **a, struct wd_err *err)
{
	const struct keyring *kr;
	int r = session_keyring(s, &kr, err);
	if (r)
		return r;
	if (!s->act_open) {
		/* no volume, or one without a database: no key */
		if (has_volume(s) && (r = db_get(s, SESSION_DB_READ, false, false, err)))
			return r;
		if ((r = activation_load(&s->db, kr, &s->act, err))) {
			activation_free(&s->act);
			return r;
		}
		/* the clock guard's newest date: also what this host has seen, which
		 * the volume cannot set back */
		int newest;
		struct wd_err ignore;
		if (!host_seen_newest(s->o.host_state, &newest, &ignore) && newest)
			activation_saw_date(&s->act, newest);
		s->act_open = true;
	}
	if (s->cat_open && !s->act_merged) {
		for (size_t i = 0; i < s->cat.n; i++) {
			const struct repo_index *idx = &s->cat.repos[i].idx;
			activation_add_revoked(&s->act, (const char *const *)idx->revoked,
					       idx->nrevoked);
			activation_saw_date(&s->act, idx->issued);
		}
		s->act_merged = true;
	}
	*a = &s->act;
	return 0;
}

int session_gate(struct session *s, const struct package *p, struct wd_err *why)
{
	if (!p->m.entitlement)
		return 0;
	const struct activation *a;
	int r = session_activation(s, &a, why);
	return r ? r : entitlement_check(&a->ctx, p->m.entitlement, p->m.released, why);
}

int session_load(struct session *s, const char *arg, struct package *p, struct wd_err *err)
{
	const struct keyring *kr;
	struct catalog *cat;
	int r = session_keyring(s, &kr, err);
	if (r)
		return r;
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp"))) {
		struct wd_buf b = {0};
		r = wd_read_file(arg, PACKAGE_MAX_BYTES, &b, err); /* host: a package file named on the command line */
		if (!r)
			r = package_read(b.p, b.len, kr, arg, p, err);
		wd_buf_free(&b);
		return r;
	}
	if ((r = session_catalog(s, false, &cat, err)))
		return r;
	const struct repo *from;
	const struct index_entry *e = catalog_find(cat, arg, &from);
	if (!e)
		return wd_err_set(err, WD_EFAIL, "no package named '%s' in the repositories "
				  "('warpdrv list' shows them)", arg);
	return catalog_fetch(from, e, kr, p, err);
}

int session_ask(struct session *s, const char *question, const char *refusal, struct wd_err *err)
{
	if (s->o.cb.ask)
		return s->o.cb.ask(s->o.cb.ud, question, refusal, err);
	return wd_err_set(err, WD_EUSAGE, "%s, and no one can be asked: add --yes", refusal);
}
