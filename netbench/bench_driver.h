/* Which NIC driver a run measured: the MAC driver the OS/2 volume's
 * CONFIG.SYS loads (DEVICE= from \IBMCOM\MACS\), and the version of the
 * package that installed it when the volume's state knows it. Read only:
 * nothing on the volume is written, not even the state folder. */
#ifndef WD_BENCH_DRIVER_H
#define WD_BENCH_DRIVER_H

#include "common/err.h"

struct bench_driver {
	char label[64];     /* "MMLEM": the file name without ".OS2", a run's default label */
	char file[64];      /* "MMLEM.OS2" */
	char version[64];   /* "mmlem 2.06", or "" when no installed package owns it */
	int line;           /* CONFIG.SYS line, from 1 */
};

/* The first MAC driver of the volume at root; a volume whose CONFIG.SYS
 * loads none is an error naming the file and what to do. */
int bench_driver_of_volume(const char *root, struct bench_driver *d, struct wd_err *err);

#endif
