/* The installed packages and files of the volume (tables package and file).
 * Every function takes a database that may not be open (no database on the
 * volume): then nothing is installed. Paths read back are checked as
 * state/txnlog.h tells (volume-relative, nothing outside the root): a row
 * that is not is refused, naming the database and the row. */
#ifndef WD_INSTALLED_H
#define WD_INSTALLED_H

#include <stdbool.h>
#include <stddef.h>

#include "common/hash.h"
#include "state/db.h"

struct installed_pkg {
	char *name, *version, *released, *kind, *entitlement, *summary, *installed;
};

struct installed_file {
	char *path;                  /* the OS/2 path, upper case */
	char *package;
	char *host;                  /* relative to the volume's root */
	long long size;
	char sha[WD_SHA256_HEX];
	char *kept;                  /* the kept copy of the file it replaced, or NULL */
	char kept_sha[WD_SHA256_HEX];
};

/* The installed version of a package (malloc'd), or NULL. */
int installed_version(struct db *db, const char *name, char **version, struct wd_err *err);
/* The package that owns an OS/2 path (any case), or NULL. */
int installed_owner(struct db *db, const char *os2, char **owner, struct wd_err *err);
/* Every installed package by name. */
int installed_packages(struct db *db, struct installed_pkg **out, size_t *n,
		       struct wd_err *err);
void installed_packages_free(struct installed_pkg *p, size_t n);
/* The files of one package (name NULL: of all), by package and path. */
int installed_files(struct db *db, const char *name, struct installed_file **out, size_t *n,
		    struct wd_err *err);
void installed_files_free(struct installed_file *f, size_t n);
/* SQLite's integrity and foreign-key checks: 0 or -WD_ETRUST naming what is wrong. */
int installed_db_intact(struct db *db, struct wd_err *err);

#endif
