/* Download progress on a terminal: a bar per download (bytes, rate, time
 * left) with an overall line below it. Drawn only when stdout is a terminal
 * and neither --json nor -q is given; with -v, each mirror that fails is
 * named on stderr as it happens. */
#ifndef WD_PROGRESS_H
#define WD_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/fetch.h"
#include "ui/ui.h"

/* The network options of this run (--cacert, --connect-timeout, ...) with
 * the progress and -v callbacks wired to ctx's output. */
const struct fetch_net *ui_net(struct wd_ctx *ctx);

/* "1.5 MiB", "812 B": binary units, one decimal from KiB on. */
void progress_bytes(uint64_t n, char *out, size_t size);
/* One bar line fitting width columns:
 *   "NAME  [#####.....]  1.5 MiB/3.0 MiB  512 KiB/s  0:03 left"
 * total 0: size unknown (no bar, no time left); seconds: time so far. */
void progress_line(const char *label, uint64_t done, uint64_t total, double seconds, int width,
		   char *out, size_t size);

#endif
