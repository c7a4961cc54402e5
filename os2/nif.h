/* A NIF (Network Information File): the INI-like text each NDIS driver ships
 * to tell MPTS what its PROTOCOL.INI section holds. Kept as lines with their
 * bytes (installer/textlines.h) so it writes back unchanged; read into the
 * driver's own section, [FILE] and one entry per keyword section. */
#ifndef WD_NIF_H
#define WD_NIF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "os2/nameidx.h"
#include "os2/textlines.h"

/* One keyword of the MAC section ("[NETADDRESS]"). Values are as written,
 * with the quotes around a quoted value taken off; NULL when absent. A Help
 * that runs over several lines holds them joined by "\n". */
struct nif_keyword {
	char *name;
	size_t line; /* of its header */
	char *display, *type, *strlength, *range, *set, *deflt, *optional, *editable, *help;
};

struct nif {
	struct textlines t;
	char *section; /* the driver's own section: "E1000" */
	char *type, *title, *version, *drivername, *xports;
	char *file_name, *file_path; /* [FILE] Name and Path as written */
	struct nif_keyword *kw;
	size_t nkw, kwcap;
	struct nameidx kwix; /* keyword name -> its first entry */
};

/* A keyword and the value MPTS would write for it in PROTOCOL.INI. */
struct nif_kv {
	char *key, *value;
};

/* Parses bytes. The lines are always kept (nif_write works); -WD_EFAIL when
 * the text has no driver section or that section no DriverName, which makes
 * it no NIF a driver could be configured from. */
int nif_parse(struct nif *nif, const char *p, size_t n, struct wd_err *err);
void nif_free(struct nif *nif);
void nif_write(const struct nif *nif, struct wd_buf *out);

const struct nif_keyword *nif_keyword(const struct nif *nif, const char *name);
/* Optional = Yes. A keyword that does not say is required (MPTS's rule). */
bool nif_keyword_optional(const struct nif_keyword *k);

/* The MAC section a driver needs: DriverName first, then each required
 * keyword that has a Default, at that default (quoted when its Type is
 * String, as MPTS writes strings). Returns how many; free with nif_kv_free. */
size_t nif_mac_section(const struct nif *nif, struct nif_kv **out);
void nif_kv_free(struct nif_kv *kv, size_t n);

#endif
