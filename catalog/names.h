/* The words a package is known by: its name, its version and its dates, as
 * the manifest and the index both write them. One rule for both, so that a
 * package a repository lists is one that packs, and the reverse. */
#ifndef WD_NAMES_H
#define WD_NAMES_H

#include <stdbool.h>

#include "common/buf.h"

/* A package name: [a-z0-9][a-z0-9.+-]*, 1 to NAMES_PACKAGE_MAX bytes. The
 * name becomes file names (NAME-VERSION.wdp, and that with ".part" or a
 * temporary suffix while it is written), so the maximum leaves room within
 * the 255 bytes a file name may have. */
#define NAMES_PACKAGE_MAX 32
#define NAMES_PACKAGE_RULE "lowercase letters, digits, '.', '+', '-', starting with a letter " \
			   "or digit; at most 32 bytes"
/* A version: letters, digits and .+-~_, 1 to NAMES_VERSION_MAX bytes (its
 * order: catalog/version.h). */
#define NAMES_VERSION_MAX 32
#define NAMES_VERSION_RULE "letters, digits and .+-~_ only; at most 32 bytes"

/* A package's file in its repository ("mmlem-2.06.wdp"): a plain name, 1 to
 * NAMES_FILE_MAX bytes, no '/', '\\' or ':', no control character, not "."
 * or "..". It is joined to the repository's URL and to the cache folder
 * (var/cache/warpdrv/packages), so it must name a file in that folder and
 * nowhere else: the index parser and every path built from a catalog entry
 * ask this one rule. */
#define NAMES_FILE_MAX 100
#define NAMES_FILE_RULE "a plain file name in the repository: no '/', '\\' or ':', not . or " \
			"..; at most 100 bytes"

bool names_package_ok(struct wd_sv v);
bool names_version_ok(struct wd_sv v);
bool names_file_ok(struct wd_sv v);
/* A date YYYY-MM-DD into days since 1970-01-01: 0, or -1 when it is not one. */
int names_date(struct wd_sv v, int *days);

#endif
