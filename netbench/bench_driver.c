#include "netbench/bench_driver.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "txn/txn.h"
#include "os2/boot_drive.h"
#include "os2/config_sys.h"
#include "os2/volume.h"
#include "state/db.h"

/* A DEVICE= statement that loads a MAC driver from \IBMCOM\MACS\. */
static bool loads_mac(const struct cs_stmt *st)
{
	static const char macs[] = "\\IBMCOM\\MACS\\";
	size_t n = sizeof macs - 1;
	if (!st->loads || !wd_sv_ieq(st->keyword, "DEVICE") || st->dir.n < n)
		return false;
	return wd_sv_ieq(wd_sv_make(st->dir.p + st->dir.n - n, n), macs);
}

static void set_names(struct bench_driver *d, struct wd_sv name)
{
	snprintf(d->file, sizeof d->file, "%.*s", (int)name.n, name.p);
	size_t k = 0;
	for (size_t i = 0; i < name.n && name.p[i] != '.' && k + 1 < sizeof d->label; i++)
		d->label[k++] = (char)toupper((unsigned char)name.p[i]);
	d->label[k] = '\0';
}

/* The package of that name in the volume's state, when there is a state. */
static int package_version(const struct volume *v, struct bench_driver *d, struct wd_err *err)
{
	char pkg[64];
	size_t k = 0;
	for (; d->label[k] && k + 1 < sizeof pkg; k++)
		pkg[k] = (char)tolower((unsigned char)d->label[k]);
	pkg[k] = '\0';
	struct db db;
	bool exists;
	int r = db_open_read(&db, v, &exists, err);
	if (r || !exists) {
		if (!r)
			db_close(&db);
		return r;
	}
	char *version = NULL;
	r = txn_installed_version(&db, pkg, &version, err);
	if (!r && version)
		snprintf(d->version, sizeof d->version, "%.20s %.40s", pkg, version);
	free(version);
	db_close(&db);
	return r;
}

int bench_driver_of_volume(const char *root, struct bench_driver *d, struct wd_err *err)
{
	memset(d, 0, sizeof *d);
	struct volume v;
	struct config_sys cs;
	int r = boot_volume_open(&v, &cs, root, 0, err);
	if (r)
		return r;
	for (size_t i = 0; i < config_sys_lines(&cs) && !d->line; i++) {
		struct cs_stmt st;
		if (config_sys_stmt(&cs, i, &st) && loads_mac(&st)) {
			set_names(d, st.name);
			d->line = (int)i + 1;
		}
	}
	if (!d->line)
		r = wd_err_set(err, WD_EFAIL, "%s loads no NIC driver (no DEVICE= line from "
			       "\\IBMCOM\\MACS\\): configure one with `warpdrv setup`, or name the "
			       "run with --label instead of --root", v.config_sys);
	else
		r = package_version(&v, d, err);
	config_sys_free(&cs);
	volume_close(&v);
	return r;
}
