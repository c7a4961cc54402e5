/* What the volume must not decide, kept on the host: for each repository
 * (the key that signs its index, and its URL), the highest index serial and
 * the newest issue date this host has seen. A volume's own record of them
 * is anyone's to edit (a planted high serial would refuse every later
 * update; an older signed index swapped in with the stored catalog would
 * install what an update had replaced); the host's is not.
 *
 * The folder: --host-state DIR or WARPDRV_HOST_STATE, else /var/lib/warpdrv
 * for root and $XDG_STATE_HOME/warpdrv (~/.local/state/warpdrv) for anyone
 * else (ui/ decides). One text file in it, "indexes", a line a repository:
 * "SIGNER SERIAL ISSUED URL", rewritten whole (atomically) under an flock of
 * the file "lock" beside it. docs/threat-model.md, "Freshness". */
#ifndef WD_HOSTSTATE_H
#define WD_HOSTSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

struct host_seen {
	bool known;      /* this host has seen an index of the repository */
	uint64_t serial;
	int issued;      /* days since 1970-01-01 */
};

/* What the host remembers of (signer, url); nothing known without dir or a
 * file. A file that cannot be read is an error naming it. */
int host_seen_get(const char *dir, const char *signer, const char *url, struct host_seen *out,
		  struct wd_err *err);
/* Raises the memory of (signer, url) to serial and issued (never lowers
 * it), making the folder if needed. */
int host_seen_raise(const char *dir, const char *signer, const char *url, uint64_t serial,
		    int issued, struct wd_err *err);
/* The newest issue date of any index the host has seen (0: none). */
int host_seen_newest(const char *dir, int *issued, struct wd_err *err);

#endif
