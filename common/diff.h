/* Unified diffs of two texts, line by line (Myers' O(ND) algorithm), for
 * showing what a change will do to CONFIG.SYS and PROTOCOL.INI. */
#ifndef WD_DIFF_H
#define WD_DIFF_H

#include <stddef.h>

#include "common/buf.h"

/* Appends to out the unified diff (3 lines of context) of a -> b under the
 * names given; appends nothing when the texts are equal. Lines compare as
 * bytes, line ending included; they are shown without their CR LF or LF. */
void wd_diff(const char *a, size_t alen, const char *b, size_t blen, const char *aname,
	     const char *bname, struct wd_buf *out);

#endif
