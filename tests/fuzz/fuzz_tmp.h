/* Shared by the fuzz targets that need files: one scratch folder a process,
 * removed with what is in it at exit. */
#ifndef WD_FUZZ_TMP_H
#define WD_FUZZ_TMP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"

static char fz_dir[64];

static inline void fz_tmp_remove(void)
{
	DIR *d = opendir(fz_dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			char *p = wd_path_join(fz_dir, de->d_name);
			unlink(p);
			free(p);
		}
	if (d)
		closedir(d);
	rmdir(fz_dir);
}

static inline const char *fz_tmp(void)
{
	if (!fz_dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(fz_dir, sizeof fz_dir, "%s/wdfuzz.XXXXXX", t && strlen(t) < 40 ? t : "/tmp");
		if (!mkdtemp(fz_dir))
			abort();
		atexit(fz_tmp_remove);
	}
	return fz_dir;
}

/* Writes data to NAME in the scratch folder; returns its path (malloc'd). */
static inline char *fz_put(const char *name, const void *data, size_t len)
{
	char *p = wd_path_join(fz_tmp(), name);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
	return p;
}

#endif
