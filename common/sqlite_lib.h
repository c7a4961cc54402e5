/* SQLite, loaded when the first database opens.
 *
 * libsqlite3 is not linked: loading it at every start (Debian's is linked
 * with -z now, so each of its 1,600 symbol references is bound before main)
 * cost about 1 ms of a run here, and the runs that open no database
 * (detect without --root, check of a volume that has no state yet,
 * --version) paid it for nothing. Every file that calls SQLite includes this
 * header instead of <sqlite3.h>: it has SQLite's own declarations, and the
 * names of the functions warpdrv calls are turned into calls through one
 * table, filled by dlopen when the first database opens (sqlite3_open_v2
 * below). The calls that take no database
 * (open, the VFS look-ups, mprintf) load the library themselves; the ones
 * that clean up (close, finalize, free, errmsg) accept being called before
 * any load, as SQLite's own accept NULL. A package must name libsqlite3 as a
 * dependency itself (debian/control). */
#ifndef WD_SQLITE_LIB_H
#define WD_SQLITE_LIB_H

#include <sqlite3.h>

/* The functions called through the table: name without "sqlite3_". */
#define WD_SQLITE_FNS(X)                                                                          \
	X(bind_blob) X(bind_double) X(bind_int) X(bind_int64) X(bind_text) X(busy_timeout)        \
	X(changes) X(clear_bindings) X(close) X(column_blob) X(column_bytes) X(column_double)      \
	X(column_int) X(column_int64) X(column_text) X(column_type) X(db_config) X(errmsg)        \
	X(exec) X(finalize) X(free) X(get_autocommit) X(last_insert_rowid) X(libversion_number)   \
	X(open_v2) X(prepare_v2) X(progress_handler) X(reset) X(step) X(trace_v2) X(vfs_find)     \
	X(vfs_register) X(vfs_unregister) X(vmprintf) X(extended_errcode) X(backup_init)        \
	X(backup_step) X(backup_finish) X(file_control)

struct wd_sqlite_fns {
#define WD_SQLITE_FIELD(n) __typeof__(&sqlite3_##n) p_##n;
	WD_SQLITE_FNS(WD_SQLITE_FIELD)
#undef WD_SQLITE_FIELD
};

/* Filled once the library is loaded; all NULL before. */
extern struct wd_sqlite_fns wd_sqlite;

/* The library's name, and the Debian package that has it. */
#define WD_LIBSQLITE "libsqlite3.so.0"
#define WD_LIBSQLITE_PACKAGE "libsqlite3-0"
/* The oldest SQLite warpdrv runs on (the name sqlite_schema). */
#define WD_SQLITE_MIN 3033000

/* Loads the library, once per process: 0, or -1 with wd_sqlite_why() saying
 * why. The programs built for the tests load the file WARPDRV_LIBSQLITE
 * names instead, where it is set. */
int wd_sqlite_load(void);
/* Why the load failed, with what to do: "cannot load ...; install the package
 * ...", or "not open" when no load failed. */
const char *wd_sqlite_why(void);

int wd_sqlite_open_v2(const char *name, sqlite3 **h, int flags, const char *vfs);
int wd_sqlite_close(sqlite3 *h);
int wd_sqlite_finalize(sqlite3_stmt *st);
void wd_sqlite_free(void *p);
const char *wd_sqlite_errmsg(sqlite3 *h);
char *wd_sqlite_mprintf(const char *fmt, ...);
sqlite3_vfs *wd_sqlite_vfs_find(const char *name);
int wd_sqlite_vfs_register(sqlite3_vfs *vfs, int make_default);

#ifndef WD_SQLITE_LIB_IMPL
#define sqlite3_bind_blob (wd_sqlite.p_bind_blob)
#define sqlite3_bind_double (wd_sqlite.p_bind_double)
#define sqlite3_bind_int (wd_sqlite.p_bind_int)
#define sqlite3_bind_int64 (wd_sqlite.p_bind_int64)
#define sqlite3_bind_text (wd_sqlite.p_bind_text)
#define sqlite3_busy_timeout (wd_sqlite.p_busy_timeout)
#define sqlite3_changes (wd_sqlite.p_changes)
#define sqlite3_clear_bindings (wd_sqlite.p_clear_bindings)
#define sqlite3_column_blob (wd_sqlite.p_column_blob)
#define sqlite3_column_bytes (wd_sqlite.p_column_bytes)
#define sqlite3_column_double (wd_sqlite.p_column_double)
#define sqlite3_column_int (wd_sqlite.p_column_int)
#define sqlite3_column_int64 (wd_sqlite.p_column_int64)
#define sqlite3_column_text (wd_sqlite.p_column_text)
#define sqlite3_column_type (wd_sqlite.p_column_type)
#define sqlite3_db_config (wd_sqlite.p_db_config)
#define sqlite3_exec (wd_sqlite.p_exec)
#define sqlite3_get_autocommit (wd_sqlite.p_get_autocommit)
#define sqlite3_last_insert_rowid (wd_sqlite.p_last_insert_rowid)
#define sqlite3_prepare_v2 (wd_sqlite.p_prepare_v2)
#define sqlite3_progress_handler (wd_sqlite.p_progress_handler)
#define sqlite3_reset (wd_sqlite.p_reset)
#define sqlite3_step (wd_sqlite.p_step)
#define sqlite3_trace_v2 (wd_sqlite.p_trace_v2)
#define sqlite3_vfs_unregister (wd_sqlite.p_vfs_unregister)
#define sqlite3_extended_errcode (wd_sqlite.p_extended_errcode)
#define sqlite3_backup_init (wd_sqlite.p_backup_init)
#define sqlite3_backup_step (wd_sqlite.p_backup_step)
#define sqlite3_backup_finish (wd_sqlite.p_backup_finish)
#define sqlite3_file_control (wd_sqlite.p_file_control)
#define sqlite3_open_v2 wd_sqlite_open_v2
#define sqlite3_close wd_sqlite_close
#define sqlite3_finalize wd_sqlite_finalize
#define sqlite3_free wd_sqlite_free
#define sqlite3_errmsg wd_sqlite_errmsg
#define sqlite3_mprintf wd_sqlite_mprintf
#define sqlite3_vfs_find wd_sqlite_vfs_find
#define sqlite3_vfs_register wd_sqlite_vfs_register
#endif

#endif
