/* The SQLite VFS of the volume's databases (state/db_vfs.c): SQLite reads
 * and writes only descriptors the confined layer opened and checked, and
 * names nothing but the database and its journal in one folder handle. */
#ifndef WD_DB_VFS_H
#define WD_DB_VFS_H

#include <sqlite3.h>

#include <stdbool.h>

struct db_vfs;

/* A VFS of its own for one database: the file leaf in the folder dirfd (a
 * handle opened beneath the volume's root), already open as dbfd (checked:
 * a plain file with one link), read-only or not. It owns both descriptors
 * from now on, closed or not. path names the database in messages (the
 * volume-relative path). NULL if SQLite's default VFS is not there (the
 * descriptors are closed). */
struct db_vfs *db_vfs_new(int dirfd, int dbfd, const char *leaf, const char *path,
			  bool readonly);
/* What to give sqlite3_open_v2: the file name and the VFS name. */
const char *db_vfs_file(const struct db_vfs *v);
const char *db_vfs_name(const struct db_vfs *v);
/* What is left of the running statement's step budget on the connection
 * opened on v (state/db.c): kept with the VFS, which lives exactly as long
 * as the connection, even one handed out of its struct db
 * (db_handle_close). */
int *db_vfs_step_budget(struct db_vfs *v);
/* The VFS behind a connection, or NULL if the connection is not on one. */
struct db_vfs *db_vfs_of(sqlite3 *h);
/* What the VFS refused since it was made (the first refusal: what was
 * asked, of which file, and what to do), or NULL. A statement that failed
 * on a refusal reports this, not SQLite's word for it. */
const char *db_vfs_refused(const struct db_vfs *v);
/* Unregisters and frees, after the connection on it closed. */
void db_vfs_free(struct db_vfs *v);

#endif
