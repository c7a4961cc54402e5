/* The order of package versions, as drivers number them: 2.06 < 2.10 <
 * 3.23.16, 4.13 < 4.13a < 4.14, 1.0-beta < 1.0-rc1 < 1.0. The rule, in full,
 * is in docs/formats.md ("version"). */
#ifndef WD_VERSION_H
#define WD_VERSION_H

#include <stdbool.h>

#include "common/err.h"

/* A version the order is defined for: what catalog/names.h allows, starting
 * with a digit, with no empty part between separators. */
bool version_valid(const char *v);
/* Negative, 0 or positive as a sorts before, with or after b. Equal means
 * the same release ("2.06" and "2.6": leading zeros do not count). An
 * invalid version sorts before every valid one, and invalid ones among
 * themselves by their bytes, so the order stays total. */
int version_cmp(const char *a, const char *b);
/* Whether replacing version from by version to goes down (to sorts before
 * from): a downgrade, which every output names so (never an "upgrade"). */
bool version_is_downgrade(const char *from, const char *to);
/* version_cmp, refusing an invalid version with a message naming it. */
int version_compare(const char *a, const char *b, int *out, struct wd_err *err);

#endif
