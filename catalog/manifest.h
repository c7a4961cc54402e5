/* The package manifest: what a package is, what it drives and what it puts
 * where. A line-based text (docs/formats.md, "Package manifest") parsed here
 * without copying; the planners (NIC, ACPI) read it through this struct.
 *
 * A recipe's manifest (drivers/NAME/MANIFEST) lists files without size and
 * hash; a packed manifest has both and ends with a signature line, which
 * catalog/signed.h checks before this parser sees the text. */
#ifndef WD_MANIFEST_H
#define WD_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/hash.h"

#define MANIFEST_FORMAT 1
#define MANIFEST_MAX_BYTES (256 * 1024)

enum pkg_kind { PKG_KIND_UNSET = -1, PKG_KIND_NIC, PKG_KIND_PSD };

/* "pci 8086:100e [subsys 8086:001e] [rev 40] rank 1": a device the driver
 * runs. Lower rank is preferred when several packages drive one device. */
struct pkg_pci {
	uint16_t vendor, device;
	bool has_subsys;
	uint16_t subsys_vendor, subsys_device;
	int revision; /* 0..255, or -1 for any */
	int rank;
};

/* "file SRC DEST [SIZE SHA256]": SRC is the member name in the package (and
 * the file's name in the recipe folder); DEST the OS/2 path on the volume. */
struct pkg_file {
	char *src;
	char *dest;                  /* "\IBMCOM\MACS\MMLEM.OS2" */
	bool has_hash;               /* false only in a recipe */
	uint64_t size;
	char sha256[WD_SHA256_HEX];  /* lowercase hex */
};

/* A CONFIG.SYS statement: "config-need PSD ACPI.PSD" (a statement the package
 * needs: KEYWORD=VALUE) or "config-displace DEVICE APM.SYS" (any statement
 * with that keyword whose file name, after the last \, is VALUE must go). */
struct pkg_config {
	char *keyword; /* upper case: "PSD", "BASEDEV", "DEVICE", "RUN", "CALL" */
	char *value;
};

struct pkg_manifest {
	int format;
	char *name;          /* [a-z0-9][a-z0-9.+-]*, at most 32 characters */
	char *version;
	int released;        /* days since 1970-01-01 */
	char *summary;
	enum pkg_kind kind;
	char *entitlement;   /* NULL: free */
	char **replaces;     /* packages this one takes over from */
	size_t nreplaces;
	struct pkg_pci *pci;
	size_t npci;
	/* NIC drivers: the DEVICE= file (in \IBMCOM\MACS), the NIF, the
	 * PROTOCOL.INI DriverName; NULL for a PSD. */
	char *driver;
	char *nif;
	char *driver_name;
	/* Further adapters of one driver (docs/formats.md): the DriverName of
	 * instance k >= 2 ("MMLEM%d$": %d is k) and the DEVICE= switch that
	 * selects it ("/A%d": %d is k - 1); NULL when the driver has no source
	 * for one (no further instance, or no switch). */
	char *instance_drivername;
	char *instance_switch;
	/* The PROTOCOL.INI keyword by which the driver picks its card when
	 * several are there ("SLOT" for RTGNDA: its NIF's [SLOT], "PCI SLOT
	 * index ... starts 0"), and the value of the first card; written on
	 * instance k >= 2 as slot_first + k - 1, when the driver's NIF defines
	 * the keyword. NULL: none. */
	char *slot_keyword;
	int slot_first;
	struct pkg_file *files;
	size_t nfiles;
	struct pkg_config *config_need;
	size_t nconfig_need;
	struct pkg_config *config_displace;
	size_t nconfig_displace;
};

/* Parses a manifest. With recipe true, files may omit size and hash; else
 * both are required. Errors (WD_ETRUST) name the line and field. where is
 * the name used in messages ("mmlem-2.06.wdp: MANIFEST"). */
int manifest_parse(const char *text, size_t len, bool recipe, const char *where,
		   struct pkg_manifest *m, struct wd_err *err);
void manifest_free(struct pkg_manifest *m);
/* Writes the manifest back as text (with sizes and hashes when known). */
void manifest_write(const struct pkg_manifest *m, struct wd_buf *out);

const char *pkg_kind_name(enum pkg_kind k);
/* A kind's name back to the kind; false for a word that names none. */
bool pkg_kind_parse(struct wd_sv word, enum pkg_kind *k);
/* A member name safe to unpack anywhere: relative, '/'-separated, no "." or
 * ".." component, no backslash, colon or control character. */
bool pkg_safe_member(const char *name);
/* An OS/2 destination: "\DIR\...\FILE", no "." or ".." component, no drive
 * letter, no '/', ':' or control character, components of at most 255. */
bool pkg_safe_dest(const char *dest);
/* Why dest may not be installed (unsafe, reserved by warpdrv, or no name
 * HPFS/JFS holds: docs/formats.md, "Destinations"), or NULL when it may. */
const char *pkg_dest_problem(const char *dest);
/* The file the manifest installs at dest (compared without case), or NULL. */
const struct pkg_file *manifest_find_dest(const struct pkg_manifest *m, const char *dest);
/* The DriverName of instance k (1..) of a NIC package's driver, or NULL
 * when the manifest gives none for k (malloc'd). */
char *manifest_instance_drivername(const struct pkg_manifest *m, int k);
/* The DEVICE= switch of instance k, or NULL: none (instance 1, or a driver
 * that selects its card otherwise). malloc'd. */
char *manifest_instance_switch(const struct pkg_manifest *m, int k);

#endif
