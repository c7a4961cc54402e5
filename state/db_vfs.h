/* The SQLite VFS of the volume's databases (state/db_vfs.c): a database and
 * its journal opened by folder handle, never by a path from "/". */
#ifndef WD_DB_VFS_H
#define WD_DB_VFS_H

#include "common/sqlite_lib.h"

#include "common/buf.h"

/* Registers the VFS on first use; its name, or NULL if SQLite's default VFS
 * cannot be wrapped. */
const char *db_vfs_name(void);
/* The name to open the file name in the folder dirfd as, the database
 * itself being the open descriptor dbfd (malloc'd). */
char *db_vfs_filename(int dirfd, int dbfd, const char *name);

#endif
