/* The results of `warpdrv bench`: one SQLite file in the user's state folder
 * (not on an OS/2 volume: a benchmark belongs to the person comparing, not to
 * the guest). A run is a label, where it came from, and one row per block size.
 * Never prints. */
#ifndef WD_BENCH_DB_H
#define WD_BENCH_DB_H

#include <sqlite3.h>
#include <stdbool.h>

#include "state/db.h"
#include "common/err.h"
#include "netbench/netio.h"

/* A results file is a struct db (state/db.h) with a schema of its own. */

struct bench_run {
	long long id;
	char label[128];
	char source[16];     /* "client", "server", "import" */
	char peer[128];      /* host, client address or imported file name */
	char recorded[32];   /* UTC, "2024-05-01T10:00:00Z" */
	char driver[64];     /* "MMLEM.OS2" from the volume's CONFIG.SYS (--root), or "" */
	char version[64];    /* "mmlem 2.06" from the volume's state, or "" */
	struct netio_listing l;
};

/* $XDG_STATE_HOME/warpdrv/bench.db, else ~/.local/state/warpdrv/bench.db
 * (malloc'd), from the two variables' values (the caller reads the
 * environment); NULL when neither is set. */
char *bench_db_default_path(const char *xdg_state_home, const char *home);
/* Opens (create: making the folder and the file) and brings the schema up to
 * date. With create false and no file, *exists is false and nothing is written. */
int bench_db_open(struct db *db, const char *path, bool create, bool *exists,
		  struct wd_err *err);
void bench_db_close(struct db *db);
/* Records a whole run in one transaction; run->id and run->recorded are set. */
int bench_db_add(struct db *db, struct bench_run *run, struct wd_err *err);
/* The labels in the order they were first recorded (malloc'd array of malloc'd strings). */
int bench_db_labels(struct db *db, char ***labels, int *n, struct wd_err *err);
/* The latest max runs of a protocol recorded under label, oldest first, in
 * runs[0..*n) (runs holds max). */
int bench_db_recent(struct db *db, const char *label, enum netio_proto proto, int max,
		    struct bench_run *runs, int *n, struct wd_err *err);

#endif
