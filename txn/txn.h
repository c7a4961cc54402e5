/* The install transaction (docs/recovery.md tells what it promises).
 *
 * txn_begin takes the volume's lock (fcntl on var/lib/warpdrv/lock: a crashed
 * holder's lock goes with its process), opens the database and finishes or
 * undoes whatever an interrupted run left. A plan is made under the lock and
 * applied in this order:
 *
 *   install: intent (the ops, committed to the database) -> folders -> copies
 *            of the foreign files it overwrites ("kept") -> new files under a
 *            temporary name beside their target, each flushed -> folder flush
 *            -> renames -> folder flush -> commit (package and file rows).
 *            Until that commit, recovery undoes; the commit is the point of
 *            no return. (Where a copy to undo from was removed by hand,
 *            recovery finishes instead, when every new file is written.)
 *            What the commit records is made from the intent's rows
 *            (state/txnlog.h), so a finishing recovery records the same;
 *            no SQL text is kept in the database.
 *   remove:  kept copies checked -> intent -> own files moved aside (into the
 *            kept folder) and kept files moved back -> folder flush ->
 *            commit -> what was moved aside deleted. A failure before the
 *            commit moves everything back at once; after a crash, recovery
 *            finishes the removal: every step is idempotent.
 *
 * Where the system can flush a whole file system at once (Linux syncfs), a
 * "flush" of a batch is one such flush covering every file and folder of the
 * batch; elsewhere each file and folder is flushed on its own. The deletes of
 * a batch are issued one after the other, before the folder flush that makes
 * them durable.
 *
 * The code: txn_step.c (durable steps), txn_files.c (file phases),
 * txn_apply.c (intent and commit), txn_recover.c, txn_lock.c, txn_plan.c;
 * the rows themselves are state/txnlog.h's.
 *
 * Fault injection for the crash test: WARPDRV_CRASH_AT=N makes the process
 * _exit(TXN_CRASH_EXIT) just before its Nth durable step (each write, flush,
 * rename, unlink, mkdir and database commit of txn_apply);
 * WARPDRV_FAIL_AT=N[:EIO] makes that step fail with ENOSPC (or EIO), as a
 * full or failing disk would: the command then puts the volume back itself;
 * WARPDRV_SIGNAL_AT=N:TERM (INT, HUP, QUIT) sends the process that signal
 * just before step N (common/signals.h: deferred, it undoes or finishes). */
#ifndef WD_TXN_H
#define WD_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "state/db.h"
#include "catalog/package.h"
#include "os2/volume.h"

#define TXN_CRASH_EXIT 99
#define WD_KEPT_DIR WD_STATE_DIR "/kept"

/* An upgrade (txn_plan_upgrade) is an install whose ops also say what
 * happens to the old version's files: REPLACE rewrites one the new version
 * has too (kept is the copy to undo from, dropped before the commit; the
 * file row keeps the original it had replaced), RETIRE takes away one the
 * new version lacks (deleted, or the original in kept put back; its undo
 * copy lies at txn_undo_copy(host)). */
enum txn_op_kind { TXN_MKDIR, TXN_PUT, TXN_DELETE, TXN_RESTORE, TXN_REPLACE, TXN_RETIRE };

struct txn_op {
	enum txn_op_kind kind;
	char *os2;                 /* "\IBMCOM\MACS\MMLEM.OS2" as the manifest spells it */
	char *host;                /* the target, relative to the volume's root */
	const char *data;          /* PUT: the new bytes (owned by the package) */
	size_t len;
	char new_sha[WD_SHA256_HEX]; /* PUT: of data; DELETE/RESTORE: the installed file */
	char *kept;                /* relative path of the kept foreign file, or NULL */
	char old_sha[WD_SHA256_HEX]; /* of the kept file */
	const struct package *owner; /* PUT of a package file: its package */
	bool config;               /* PUT of a configuration file (CONFIG.SYS,
				    * PROTOCOL.INI): no package owns it; kept is
				    * its generation copy, which stays */
};

struct txn_plan {
	bool install;              /* else remove */
	const struct package *pkg; /* install of one package */
	const struct package **pkgs; /* install of several (txn_plan_merge) */
	size_t npkgs;
	char *name, *version;
	char *upgrade_from;        /* an upgrade of one package: the installed version */
	char **removes, **removes_version; /* the installed packages it replaces, removed */
	size_t nremoves;           /* by the same commit */
	struct txn_op *ops;
	size_t nops;
	/* The generation the commit records (generation_plan sets it; 0:
	 * none), and its description ("generation 3") in done_extra, which is
	 * set exactly when there is one. Owned by the plan. */
	long gen_n;
	char *gen_command, *gen_summary;
	char *done_extra;
	char *dir_seen;            /* planning: the folder last found there (host path) */
};

struct txn {
	const struct volume *v;
	struct db db;
	int lock_fd;
	int steps, crash_at;
	int fail_at, fail_errno;   /* WARPDRV_FAIL_AT (txn_step.c) */
	/* a deferred signal (common/signals.h) fails the next step while
	 * signal_arms (txn_apply, up to its commit); signal_failed: one did */
	bool signal_arms, signal_failed;
	bool recovered;            /* an interrupted run was finished or undone */
	const char *what;          /* txn_begin's ("install mmlem") */
	/* the text log's description of the change under way, and the line its
	 * commit stores (txn/textlog.h) */
	char *log_desc, *log_line;
	const char *recovered_as;  /* "finished" or "undone" */
	/* flushing in batches (txn_step.c, txn_flush_file): the volume's file system,
	 * and whether it changed since it was last flushed as a whole */
	dev_t fs_dev;
	bool fs_dev_known, fs_unsynced;
	/* the kept folder's file system, asked once by a removal (txn_files.c) */
	dev_t kept_dev;
	bool kept_dev_known;
};

/* How long a command waits for the volume's lock held by another process
 * before it gives up, unless the volume's handle says (v->lock_wait:
 * --lock-wait, WARPDRV_LOCK_WAIT; ui/cli.c reads them, the session sets it):
 * seconds. */
#define TXN_LOCK_WAIT_DEFAULT 3
/* Takes the lock (waiting as v->lock_wait says; the message names the
 * holder from the process table), opens or creates the database, recovers. what
 * ("install mmlem") is written into the lock file for the next one waiting. */
int txn_begin(struct txn *t, const struct volume *v, const char *what, struct wd_err *err);
void txn_end(struct txn *t);
/* A reader's hold on the volume's lock (fcntl F_RDLCK), for a command that
 * reads the database's rows and then the files they name (verify): it waits
 * like txn_begin for a transaction under way to end, and no transaction can
 * begin until txn_read_unlock, so the rows and the files agree. Writes
 * nothing: with no lock file (no transaction ever ran on the volume) *fd is
 * -1 and nothing is held. Close no other descriptor of the lock file while
 * holding it (fcntl locks are the process's): take it after any recovery. */
int txn_read_lock(const struct volume *v, int *fd, struct wd_err *err);
void txn_read_unlock(int fd);
/* The volume's lock alone, held as a transaction holds it (F_WRLCK, waiting
 * like txn_begin), for a command that changes warpdrv's own files but not
 * the database (clean); no database is opened and nothing recovered. With
 * no state folder (no transaction ever ran) *fd is -1 and nothing is made.
 * txn_read_unlock(fd) lets it go. */
int txn_write_lock(const struct volume *v, const char *what, int *fd, struct wd_err *err);
/* Is an interrupted transaction recorded in this database? One whose rows
 * are not what this build records (a path outside the root, SQL text, an
 * unknown kind) is an error naming the database and the row: a read-only
 * command asks this before it takes the lock, so it refuses having touched
 * nothing. */
int txn_pending(struct db *db, bool *pending, struct wd_err *err);
/* What the interrupted transaction is, for the user: its name (a command,
 * "setup", or a package, "mmlem"), install or removal, and the packages it
 * installs. found false when none is pending. Writes nothing; the rows are
 * checked as txn_pending checks them. */
struct txn_pending_desc {
	bool found, install;
	char *name;
	char **pkgs;
	size_t npkgs;
	const char *outcome;   /* after txn_recover_volume: "finished" or "undone" */
};
int txn_pending_describe(struct db *db, struct txn_pending_desc *d, struct wd_err *err);
void txn_pending_desc_free(struct txn_pending_desc *d);
/* For the user: "install of mmlem", "removal of mmlem", or a command with
 * its packages, "'setup' (mmlem, acpi-psd)", into buf. */
void txn_pending_text(const struct txn_pending_desc *d, char *buf, size_t n);

/* warpdrv recover: takes the lock and finishes or undoes an interrupted
 * transaction; d says which (d->found false: there was none) and
 * whether it was finished or undone (d->outcome). A recovery that cannot
 * finish names the file that is wrong and offers --abandon. */
int txn_recover_volume(const struct volume *v, struct txn_pending_desc *d, struct wd_err *err);
/* warpdrv recover --abandon: forgets the interrupted transaction without
 * finishing or undoing it. Every file stays as it is, except that a
 * package's file a removal had moved aside goes back to its place where that
 * is empty; the packages, history and generations stay as the last finished
 * command left them; the history notes the abandon. */
struct txn_abandoned {
	bool found, install;
	char *name;      /* what the transaction was ("mmlem", "setup") */
	size_t put_back; /* files moved aside by a removal, put back */
};
int txn_abandon(const struct volume *v, struct txn_abandoned *a, struct wd_err *err);

/* Plans the installation of a checked package: refuses a path another
 * installed package owns (unless p replaces it) and files that cannot be
 * written. (Paths owned by a package p replaces pass: the caller removes
 * that package first and plans again.) Already installed at the same version: *nothing is set. */
int txn_plan_install(const struct volume *v, struct db *db, const struct package *p,
		     struct txn_plan *plan, bool *nothing, struct wd_err *err);
/* Plans the removal of an installed package (WD_EFAIL if it is not installed). */
int txn_plan_remove(const struct volume *v, struct db *db, const char *name,
		    struct txn_plan *plan, struct wd_err *err);
/* Plans replacing the installed version of p's package (if any) and the
 * installed packages p replaces by p, in one transaction: their files p has
 * too are rewritten, the others retired (a file they had replaced from the
 * OS is put back), p's new files added; the commit removes the replaced
 * packages. The same checks as txn_plan_install for the new paths. */
int txn_plan_upgrade(const struct volume *v, struct db *db, const struct package *p,
		     struct txn_plan *plan, struct wd_err *err);
void txn_plan_free(struct txn_plan *plan);
/* The installed version of a package (malloc'd), or NULL; db may be unopened. */
int txn_installed_version(struct db *db, const char *name, char **version,
			  struct wd_err *err);
/* An empty install plan named name ("setup"), to merge packages into and to
 * add configuration files to. */
void txn_plan_init(struct txn_plan *plan, const char *name, const char *version);
/* Moves the ops and the package of an install plan into another: one commit
 * then installs them all. from is left empty. */
void txn_plan_merge(struct txn_plan *into, struct txn_plan *from);
/* Adds the rewrite of a configuration file (host: its path below the root, as
 * found) with new bytes. Before it is replaced, the file is copied to
 * gen_dir/NAME (a folder below the root, made if missing): undone, that copy
 * is put back; committed, it stays as the generation's copy. The bytes are
 * the caller's and must live until the plan is applied. */
int txn_plan_config(const struct volume *v, struct txn_plan *plan, const char *host,
		    const char *gen_dir, const void *data, size_t len, struct wd_err *err);
/* A removal's kept copies (the originals it puts back): each there, a plain
 * file, with the recorded SHA-256; else an error naming the file, before
 * anything is written. txn_apply checks it too. */
int txn_check_kept(const struct volume *v, const struct txn_plan *plan, struct wd_err *err);
/* Records the intent, applies the plan and commits. A failure after the
 * intent (a full disk, an I/O error) is undone before it returns, and the
 * message says so; only a crash leaves the work to the next run. */
int txn_apply(struct txn *t, const struct txn_plan *plan, struct wd_err *err);
/* Is there room on the volume (statvfs) for what applying plan writes: the
 * new files (beside their targets), the copies to undo from (of each file it
 * overwrites or takes away) and the database's growth? 0, or WD_EFAIL
 * naming the bytes needed and free. */
int txn_plan_space(const struct volume *v, const struct txn_plan *plan, struct wd_err *err);

#endif
