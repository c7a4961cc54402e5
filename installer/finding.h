/* Findings about a volume's configuration: what `warpdrv check` reports and
 * what the boot model's rules produce. */
#ifndef WD_FINDING_H
#define WD_FINDING_H

#include <stddef.h>

enum check_severity { CHECK_WARNING, CHECK_ERROR };

struct finding {
	char *file;      /* "CONFIG.SYS", "IBMCOM\PROTOCOL.INI", "IBMCOM\MACS\X.NIF" */
	size_t line;     /* from 1; 0 for the file as a whole */
	enum check_severity severity;
	const char *code; /* stable: "psd-path", "binding-unknown", ... */
	char *key;        /* what it is about ("E1000_nif"): compares findings of two models */
	char *message;
};

struct check_report {
	struct finding *v;
	size_t n;
	size_t errors;
	char *pi_file; /* the PROTOCOL.INI checked ("MPTS\PROTOCOL.INI"), or NULL */
};

void report_add(struct check_report *rep, const char *file, size_t line,
		enum check_severity sev, const char *code, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* The first error of rep with this code and key, or NULL. */
const struct finding *report_find_error(const struct check_report *rep, const char *code,
					const char *key);
void check_sort(struct check_report *rep);
void check_report_free(struct check_report *rep);

#endif
