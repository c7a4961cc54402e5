/* A session: one run of a command, as libalpm's alpm_handle_t is. The front
 * end opens it once from its options (session_open) and closes it once
 * (session_close); in between a command asks it for what it needs, and each
 * piece is opened the first time it is asked for and kept for the rest of
 * the run:
 *
 *   session_volume        the volume (--root), CONFIG.SYS at its top
 *   session_boot_volume   the same with its boot drive resolved (CONFIG.SYS
 *                         read, or --boot-drive)
 *   session_db            the volume's database: read (never written, an
 *                         interrupted transaction only told), read after
 *                         recovery (for a command that writes), or created
 *   session_keyring       the trusted keys (bundled, --keys DIR)
 *   session_catalog       every repository's index (--repo URLs, the stored
 *                         catalog, the bundled repository); with the
 *                         volume's package cache for a command that installs
 *   session_activation    the activated subscription key, with the
 *                         revocations and dates of the catalog when it is open
 *   session_gate          the subscription gate: may package p be installed
 *
 * It never prints: what the user should hear goes through the callbacks. */
#ifndef WD_SESSION_H
#define WD_SESSION_H

#include <stdbool.h>

#include "catalog/fetch.h"
#include "catalog/repo.h"
#include "txn/txn.h"
#include "license/activation.h"
#include "os2/volume.h"
#include "pci/pci.h"
#include "pci/vbox_machine.h"
#include "session/source_disk.h"
#include "state/db.h"
#include "trust/keys.h"

struct session_cb {
	/* A note the user should see (a stale catalog, say); msg has no newline. */
	void (*warn)(void *ud, const char *msg);
	/* The trusted keys were loaded (the front end may name development keys). */
	void (*keys_loaded)(void *ud);
	/* A question the user answers before the run goes on (a download the
	 * plan needs): 0 for yes; else the error, refusal naming what needed
	 * the yes (no terminal: a usage error naming --yes; a no: WD_EFAIL).
	 * NULL: every question is refused so. */
	int (*ask)(void *ud, const char *question, const char *refusal, struct wd_err *err);
	void *ud;
};

enum session_db_mode {
	/* Read only: nothing is written, not even a recovery. An interrupted
	 * transaction is told (a warning naming 'warpdrv recover', and
	 * session_pending) and left as it is. */
	SESSION_DB_READ,
	/* For a command that writes: an interrupted transaction is finished or
	 * undone first (under --dry-run: as SESSION_DB_READ). */
	SESSION_DB_RECOVER,
	/* The state folder and database are made if there are none. */
	SESSION_DB_CREATE,
	/* As it is, for a command whose own transaction comes later and
	 * recovers first (txn/txn.h): an interrupted transaction is
	 * neither told nor recovered here, and the boot drive not resolved. */
	SESSION_DB_PLAIN,
};

struct session_opts {
	const char *root;               /* the volume (--root); NULL: none */
	/* Or the OS/2 volume of a disk image (--disk IMAGE, or the boot disk of
	 * --vm MACHINE), mounted when the volume is first asked for; readonly
	 * for a command that writes nothing, so the image never changes. */
	const char *disk;
	const char *disk_format;        /* --disk-format, or NULL: from its header */
	/* Or a VirtualBox machine (--vm): its boot disk is o.disk's, and a
	 * machine with a saved state is opened for reading only. */
	const char *vm;
	const char *vbox_dir;           /* VirtualBox's folder (its registry), or NULL */
	int partition;                  /* --partition N, or 0 */
	bool readonly;
	char boot_drive;                /* 0: from CONFIG.SYS */
	const char *keys_dir;           /* --keys DIR, or NULL */
	const char *host_state;         /* the host state folder (catalog/hoststate.h), or NULL */
	const char *bundled_keys;       /* the program's own key folder, or NULL */
	const char *system_keys;        /* the administrator's (/etc/warpdrv/keys), or NULL */
	const char *bundled_repo;       /* the program's own repository, or NULL */
	const char *const *repos;       /* --repo URLs, fetched now */
	int nrepos;
	const struct fetch_net *net;    /* NULL: catalog/fetch.h's defaults */
	bool dry_run;                   /* write nothing, not even recovery */
	int lock_wait;                  /* seconds for the volume's lock; negative: the default */
	/* The database mode the command's table entry declares (ui/ui.h's
	 * wd_cmd: session_cmd_db opens the database so). */
	enum session_db_mode db_mode;
	struct session_cb cb;
};


struct session {
	struct session_opts o;          /* bundled_keys and bundled_repo owned */
	struct volume v;
	bool vol_open, vol_boot;
	struct disk_source disk;        /* o.disk's, once mounted (o.root is its folder) */
	bool disk_open;
	struct vbox_machine vm;         /* o.vm's settings, once read */
	bool vm_open;
	struct wd_buf switch_text;      /* the settings with PCnet adapters switched */
	struct vbox_switch sw;          /* what --switch-nic switches */
	bool switch_made;
	int disk_rc;                    /* a failed mount, told again, never retried */
	struct wd_err disk_err;
	struct db db;
	bool db_tried, db_have, db_created, db_recovered;
	bool db_rw;                     /* the database open for writing */
	struct txn_pending_desc pending;
	bool pending_known, pending_told;
	struct keyring kr;
	bool kr_open, kr_volume_told;
	struct catalog cat;
	bool cat_open, cat_cache;
	struct activation act;
	bool act_open, act_merged;
};

/* Takes the options (copied; bundled_keys and bundled_repo become the
 * session's, freed by session_close). Opens nothing yet. */
int session_open(struct session *s, const struct session_opts *o, struct wd_err *err);
/* Frees everything the session opened, in one place; s may be closed twice. */
void session_close(struct session *s);
/* The same, with the disk image's final unmount, sync and shutdown told: 0,
 * or the error that makes the run a failed one (the image may lack the
 * change). */
int session_close_checked(struct session *s, struct wd_err *err);

/* The volume at --root, or the disk image's OS/2 volume (--disk; the
 * appliance started and the volume mounted at the first call). A folder
 * without CONFIG.SYS is refused; no --root is a usage error. */
int session_volume(struct session *s, struct volume **v, struct wd_err *err);
/* The machine of --vm (its settings read once); no --vm is a usage error. */
int session_machine(struct session *s, const struct vbox_machine **m, struct wd_err *err);
/* setup --switch-nic: the machine's NICs as they will be once each enabled
 * PCnet adapter is an 82540EM (*n of them), for the plan; then, once the
 * guest's change is applied, the machine's settings changed so: by
 * VBoxManage modifyvm for a registered machine where VBoxManage is on PATH,
 * else by rewriting the .vbox atomically, the old one kept as .vbox-prev. */
int session_switch_nic_pci(struct session *s, struct pci_list *l, int *n, struct wd_err *err);
/* gen: the generation of the guest's change, recorded in the machine's
 * ExtraData (VBOX_SWITCH_KEY) for rollback. */
int session_switch_nic_apply(struct session *s, long gen, struct wd_err *err);
/* rollback of the guest's configuration to before generation gen: the
 * adapters a setup --switch-nic of generation gen or later switched are
 * given back their types (as above), told in done (done->n 0: none). */
int session_unswitch_nic(struct session *s, long gen, struct vbox_switch *done,
			 struct wd_err *err);
/* The same with its boot drive set (--boot-drive, else CONFIG.SYS's). */
int session_boot_volume(struct session *s, struct volume **v, struct wd_err *err);
/* The volume's database as mode says; *have (may be NULL) false when the
 * volume has none yet (then (*db)->h is NULL: the state readers take that
 * as empty). The volume opens first, its boot drive resolved (but for
 * SESSION_DB_PLAIN). */
int session_db(struct session *s, enum session_db_mode mode, struct db **db, bool *have,
	       struct wd_err *err);
/* session_db in the mode the command declared (session_opts.db_mode). */
int session_cmd_db(struct session *s, struct db **db, bool *have, struct wd_err *err);
/* The interrupted transaction the database records, after any session_db:
 * NULL when there is none (or it was recovered). */
const struct txn_pending_desc *session_pending(struct session *s);
/* The host state folder (catalog/hoststate.h), or NULL. */
const char *session_host_state(const struct session *s);

/* The bundled keys and --keys DIR. Keys on the volume (var/lib/warpdrv/keys)
 * are never trusted: when the volume is open at the first call, a warning
 * names them. */
int session_keyring(struct session *s, const struct keyring **kr, struct wd_err *err);
/* --repo URLs first (fetched now), then the volume's remote repositories
 * from the catalog `warpdrv update` stored (no network), then the bundled
 * repository. install: remote packages are downloaded into the volume's
 * var/cache/warpdrv/packages (under --dry-run only read: nothing downloads). */
int session_catalog(struct session *s, bool install, struct catalog **cat, struct wd_err *err);
/* The activated key (none without a database), with the revoked ids and
 * the newest index date of the catalog once it is open. */
int session_activation(struct session *s, const struct activation **a, struct wd_err *err);
/* 0 when package p may be installed under the volume's subscription; else
 * why not (why filled; -WD_ELICENSE and the like). */
int session_gate(struct session *s, const struct package *p, struct wd_err *why);
/* Tells the user a note (the warn callback above; nothing without one). */
void session_warn(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Asks the user (the ask callback above); question and refusal are plain
 * text, escaped by the front end. */
int session_ask(struct session *s, const char *question, const char *refusal, struct wd_err *err);
/* A package by name (from the catalog) or a .wdp file on disk. */
int session_load(struct session *s, const char *arg, struct package *p, struct wd_err *err);

#endif
