/* The unchanged update's short way: what `warpdrv update` needs of a stored
 * index to ask "changed since?" and to report a 304 (its serial, dates,
 * counts and signer), kept as a note beside the HTTP validators
 * (catalog.validators) with the identity of the stored catalog file it
 * describes (device, inode, size, modification and change times, as
 * os2/volume.c tells a folder listing that is still current).
 *
 * The note is written after the index was verified in full and the stored
 * catalog written. An update reads it instead of reading, verifying and
 * parsing the stored index again (3.6 MB and 20,000 entries: most of an
 * unchanged update's time) when the stored catalog is still that file and
 * the signer is still a trusted, unrevoked key; else, or when anything is to
 * be written, the stored index is read in full as before (store_get). Every
 * command that uses the catalog still verifies it on load: the note only
 * decides what update asks and says. A note forged together with the stored
 * catalog (both lie on the volume; so would a digest of it) can at worst make
 * update report wrong counts and ask a conditional question; the forged
 * catalog is refused by the next load, as without the note, and removing
 * catalog.validators makes the next update a full one. */
#ifndef WD_FETCH_STORED_H
#define WD_FETCH_STORED_H

#include <stdbool.h>

#include "catalog/fetch.h"
#include "catalog/index.h"
#include "trust/keys.h"

/* The stored index of repository name (url) from its note, when the note
 * matches (see above): idx gets serial, issued, expires, signer and the
 * counts npkgs and nrevoked, but no entries and no signed text: good for a
 * 304's report and for no other use, and freed with fetch_stored_light_free
 * (not index_free). false: no note, or one that does not match; idx is
 * untouched. */
bool fetch_stored_light(const struct fs_root *fs, const char *store_path, const char *name,
			const char *url, const struct keyring *kr,
			const struct fetch_validators *vs, struct repo_index *idx);
void fetch_stored_light_free(struct repo_index *idx);
/* Notes idx (fully read and verified) as what the stored catalog at
 * store_path, just written, holds for name (url). */
void fetch_stored_remember(struct fetch_validators *vs, const struct fs_root *fs,
			   const char *store_path, const char *name, const char *url,
			   const struct repo_index *idx);

#endif
