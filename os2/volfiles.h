/* The one place that reads a volume's configuration files: CONFIG.SYS, the
 * PROTOCOL.INI that PROTMAN reads (its /I: folder followed), and the MAC
 * drivers' NIFs in \IBMCOM\MACS. Every reader shares the size cap and the
 * rule for where PROTMAN looks (docs/config-files.md, "Which PROTOCOL.INI"). */
#ifndef WD_VOLFILES_H
#define WD_VOLFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "os2/config_sys.h"
#include "os2/nif.h"
#include "os2/protocol_ini.h"
#include "os2/volume.h"

/* CONFIG.SYS, PROTOCOL.INI and NIFs are kilobytes; anything past this is
 * not one of them. */
#define WD_CONFIG_FILE_MAX (4u << 20)
#define WD_MACS_DIR "\\IBMCOM\\MACS\\"
#define WD_IBMCOM_PROTOCOL_INI "IBMCOM\\PROTOCOL.INI"

/* Reads the file at an OS/2 path of the volume (no drive). *found false
 * and nothing read when it is not there; host is the path on disk below
 * v->root either way. */
int volfile_read(const struct volume *v, const char *os2path, char **host, bool *found,
		 struct wd_buf *out, struct wd_err *err);

/* Reads the volume's CONFIG.SYS (v->config_sys). */
int volfile_config_sys(const struct volume *v, struct wd_buf *out, struct wd_err *err);

/* Where PROTMAN reads PROTOCOL.INI, from its DEVICE= line. */
enum pi_where {
	PI_NO_PROTMAN,   /* no DEVICE= line loads PROTMAN.OS2 */
	PI_ON_VOLUME,    /* on the boot drive: this volume */
	PI_OTHER_DRIVE,  /* /I: names another drive */
};

struct pi_location {
	enum pi_where where;
	long protman;      /* its CONFIG.SYS line, or -1 */
	char drive;        /* of the folder PROTMAN reads */
	char *dir;         /* that folder without drive: "\IBMCOM" */
	char *path;        /* "IBMCOM\PROTOCOL.INI": on the volume, no drive */
	bool by_switch;    /* named by /I: (else PROTMAN's own folder) */
};

/* PROTMAN's /I:X:\DIR names the folder; without /I: it reads the folder it
 * was loaded from (the project's choice: no source says). */
void pi_locate(const struct config_sys *cs, char boot_drive, struct pi_location *loc);
void pi_location_free(struct pi_location *loc);

/* A MAC driver's NIF found on the volume. Only what the boot model asks of
 * it is kept (its section, DriverName and [FILE] Name): the NIFs are read
 * one at a time and each is freed before the next, so memory does not grow
 * with the bytes of a folder of them (docs/config-files.md, "Limits").
 * vol_nif_load reads one whole again. */
struct vol_nif {
	char *label;     /* "IBMCOM\MACS\E1000.NIF" */
	struct nif nif;  /* section, drivername, file_name; unused when error is set */
	char *error;     /* why it could not be read, or NULL */
	char *host;      /* its path on disk */
};

/* A name kept from a NIF is at most this long; a NIF with a longer one is
 * reported unreadable (no driver or file name is that long). */
#define WD_NIF_NAME_MAX 255

/* Reads and parses the whole NIF again, for its keywords. */
int vol_nif_load(const struct volume *v, const struct vol_nif *vn, struct nif *out,
		 struct wd_err *err);

/* What the guest reads at boot, read from the volume. */
struct boot_files {
	struct wd_buf config_bytes;
	struct config_sys cs;
	struct pi_location loc;
	char *pi_host;              /* host path of that PROTOCOL.INI (found or not) */
	bool have_pi;               /* read: it is on this volume and there */
	struct wd_buf pi_bytes;
	struct protocol_ini pi;
	bool stale_ibmcom;          /* \IBMCOM\PROTOCOL.INI is there but not read */
	struct vol_nif *nifs;       /* in byte order of their names */
	size_t nnifs;
};

/* Reads all of it (v's boot drive set already). Fails only when a file
 * that is there cannot be read. */
int boot_files_read(const struct volume *v, struct boot_files *f, struct wd_err *err);
void boot_files_free(struct boot_files *f);

#endif
