#include "catalog/index_build.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/package.h"
#include "common/buf.h"
#include "common/file.h"
#include "trust/signed.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *dup(const char *s)
{
	return s ? wd_xstrdup(s) : NULL;
}

/* What setup chooses by, from the manifest (catalog/index.h). */
static void entry_choice(struct index_entry *e, const struct pkg_manifest *m)
{
	e->choice = true;
	e->npci = m->npci;
	e->pci = wd_xcalloc(m->npci + 1, sizeof *e->pci);
	if (m->npci)
		memcpy(e->pci, m->pci, m->npci * sizeof *e->pci);
	e->driver = dup(m->driver);
	e->nif = dup(m->nif);
	e->driver_name = dup(m->driver_name);
	e->instance_drivername = dup(m->instance_drivername);
	e->instance_switch = dup(m->instance_switch);
}

int index_build(const char *dir, const struct keyring *kr, struct repo_index *idx,
		struct wd_err *err)
{
	DIR *d = opendir(dir); /* host: the repository folder the vendor indexes */
	if (!d)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open the repository folder", dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".wdp")) {
			names = wd_xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = wd_xstrdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	int r = 0;
	struct wd_buf b = {0};
	for (size_t i = 0; i < n; i++) {
		char *path = wd_path_join(dir, names[i]);
		struct package p;
		if (!r && !(r = wd_read_file(path, PACKAGE_MAX_BYTES, &b, err)) && /* host: a package of that folder */
		    !(r = package_read(b.p, b.len, kr, path, &p, err))) {
			struct index_entry ie = {wd_xstrdup(p.m.name), wd_xstrdup(p.m.version),
						 p.m.released, p.m.kind,
						 p.m.entitlement ? wd_xstrdup(p.m.entitlement) : NULL,
						 wd_xstrdup(names[i]), b.len, "", wd_xstrdup(p.m.summary),
						 false, NULL, 0, NULL, NULL, NULL, NULL, NULL, false};
			wd_sha256_hex(b.p, b.len, ie.sha256);
			entry_choice(&ie, &p.m);
			idx->pkgs = wd_xrealloc(idx->pkgs, (idx->npkgs + 1) * sizeof *idx->pkgs);
			idx->pkgs[idx->npkgs++] = ie;
			package_free(&p);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	wd_buf_free(&b);
	/* every version of a name, newest first; one version twice is refused */
	return r ? r : index_order(idx, dir, err);
}

uint64_t index_next_serial(const char *path)
{
	uint64_t serial = 1;
	struct wd_buf b = {0};
	struct wd_err ignore;
	struct repo_index old;
	if (wd_exists(path) && !wd_read_file(path, INDEX_MAX_BYTES, &b, &ignore)) { /* host: the index it replaces */
		size_t body = b.len;
		char *sig = strstr(b.p, "\nsignature ");
		if (sig)
			body = (size_t)(sig - b.p) + 1;
		if (!index_parse(b.p, body, path, &old, &ignore)) {
			serial = old.serial + 1;
			index_free(&old);
		}
	}
	wd_buf_free(&b);
	return serial;
}
