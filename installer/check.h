/* `warpdrv check`: what is wrong today with a volume's CONFIG.SYS and
 * PROTOCOL.INI, as findings a user can act on. Reads only. The rules and the
 * choices behind them are in docs/config-files.md. */
#ifndef WD_CHECK_H
#define WD_CHECK_H

#include <stddef.h>

#include "common/err.h"
#include "os2/config_sys.h"
#include "os2/nif.h"
#include "os2/protocol_ini.h"
#include "os2/volume.h"

enum check_severity { CHECK_WARNING, CHECK_ERROR };

struct finding {
	char *file;      /* "CONFIG.SYS", "IBMCOM\PROTOCOL.INI", "IBMCOM\MACS\X.NIF" */
	size_t line;     /* from 1; 0 for the file as a whole */
	enum check_severity severity;
	const char *code; /* stable: "psd-path", "binding-unknown", ... */
	char *message;
};

struct check_report {
	struct finding *v;
	size_t n;
	size_t errors;
};

#define CHECK_PROTOCOL_INI "IBMCOM\\PROTOCOL.INI"

/* A MAC driver's NIF as found in IBMCOM\MACS. */
struct check_nif {
	char *file; /* "IBMCOM\MACS\E1000.NIF" */
	struct nif nif;
};

/* Everything: reads CONFIG.SYS (given), IBMCOM\PROTOCOL.INI and the NIFs in
 * IBMCOM\MACS from the volume, runs every rule, sorts the findings by file
 * and line. Fails only when a file cannot be read. */
int check_volume(const struct volume *v, const struct config_sys *cs, struct check_report *rep,
		 struct wd_err *err);

/* The rules on CONFIG.SYS alone: line endings, files not on the volume,
 * PSD= paths, ACPI mixed with APM or OS2APIC. */
void check_config_sys(const struct volume *v, const struct config_sys *cs,
		      struct check_report *rep);
/* The networking rules across CONFIG.SYS, PROTOCOL.INI (NULL: the file is
 * missing) and the MAC NIFs. */
void check_network(const struct config_sys *cs, const struct protocol_ini *pi,
		   const struct check_nif *nifs, size_t nnif, struct check_report *rep);

void check_sort(struct check_report *rep);
void check_report_free(struct check_report *rep);

#endif
