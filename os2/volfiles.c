#include "os2/volfiles.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"

int volfile_read(const struct volume *v, const char *os2path, char **host, bool *found,
		 struct wd_buf *out, struct wd_err *err)
{
	*host = NULL;
	*found = false;
	int r = volume_resolve(v, os2path, host, found, err);
	if (r || !*found)
		return r;
	if (!fs_is_dir(&v->fs, *host))
		return volume_read_file(v, *host, WD_CONFIG_FILE_MAX, out, err);
	*found = false;
	return 0;
}

int volfile_config_sys(const struct volume *v, struct wd_buf *out, struct wd_err *err)
{
	return volume_read_file(v, v->config_sys, WD_CONFIG_FILE_MAX, out, err);
}

/* The value of PROTMAN's /I: switch ("/I:C:\IBMCOM", any case), or empty. */
static struct wd_sv switch_i(struct wd_sv args)
{
	for (size_t k = 0; k + 3 <= args.n; k++) {
		if (args.p[k] != '/' && args.p[k] != '-')
			continue;
		if (toupper((unsigned char)args.p[k + 1]) != 'I' || args.p[k + 2] != ':')
			continue;
		if (k > 0 && args.p[k - 1] != ' ' && args.p[k - 1] != '\t')
			continue;
		size_t s = k + 3, e = s;
		while (e < args.n && args.p[e] != ' ' && args.p[e] != '\t')
			e++;
		return wd_sv_make(args.p + s, e - s);
	}
	return wd_sv_make("", 0);
}

void pi_locate(const struct config_sys *cs, char boot_drive, struct pi_location *loc)
{
	memset(loc, 0, sizeof *loc);
	loc->protman = config_sys_find(cs, 0, "DEVICE", "PROTMAN.OS2");
	char boot = boot_drive ? boot_drive : 'C';
	if (loc->protman < 0) {
		loc->where = PI_NO_PROTMAN;
		loc->drive = boot;
		loc->dir = wd_xstrdup("\\IBMCOM");
		loc->path = wd_xstrdup(WD_IBMCOM_PROTOCOL_INI);
		return;
	}
	struct cs_stmt st;
	config_sys_stmt(cs, (size_t)loc->protman, &st);
	struct wd_sv i = switch_i(st.args), dir, name;
	char drive = st.drive;
	if (i.n) {
		loc->by_switch = true;
		cs_split_path(i, &drive, &dir, &name);
		/* "/I:C:\IBMCOM" names a folder: its last part is no file name. */
		dir = wd_sv_make(dir.p, dir.n + name.n);
	} else {
		dir = st.dir;
	}
	while (dir.n && (dir.p[dir.n - 1] == '\\' || dir.p[dir.n - 1] == '/'))
		dir.n--;
	loc->drive = drive ? drive : boot;
	loc->where = loc->drive == boot ? PI_ON_VOLUME : PI_OTHER_DRIVE;
	struct wd_sv rel = dir;
	while (rel.n && (rel.p[0] == '\\' || rel.p[0] == '/')) {
		rel.p++;
		rel.n--;
	}
	loc->dir = wd_xasprintf("\\%.*s", (int)rel.n, rel.p);
	loc->path = rel.n ? wd_xasprintf("%.*s\\PROTOCOL.INI", (int)rel.n, rel.p)
			  : wd_xstrdup("PROTOCOL.INI");
}

void pi_location_free(struct pi_location *loc)
{
	free(loc->dir);
	free(loc->path);
	memset(loc, 0, sizeof *loc);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The NIF file names of a host folder, in byte order so results are stable. */
static size_t list_nifs(const struct volume *v, const char *dir, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	DIR *d = fs_opendir(&v->fs, dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 4 || strcasecmp(e->d_name + len - 4, ".NIF"))
			continue;
		names = wd_xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = wd_xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_str);
	*out = names;
	return n;
}

static int load_nif(const struct volume *v, const char *path, struct nif *nif,
		    struct wd_err *e)
{
	struct wd_buf b = {0};
	int r = volume_read_file(v, path, WD_CONFIG_FILE_MAX, &b, e);
	if (!r)
		r = nif_parse(nif, b.p ? b.p : "", b.len, e);
	else
		memset(nif, 0, sizeof *nif);
	wd_buf_free(&b);
	return r;
}

static bool too_long(const char *s)
{
	return s && strlen(s) > WD_NIF_NAME_MAX;
}

/* Reads one NIF, keeps its summary and frees the rest before the next. */
static void read_one_nif(const struct volume *v, const char *dir, const char *name,
			 struct vol_nif *out)
{
	out->host = wd_path_join(dir, name);
	out->label = wd_xasprintf("IBMCOM\\MACS\\%s", name);
	struct wd_err e;
	struct nif whole;
	int r = load_nif(v, out->host, &whole, &e);
	if (!r && (too_long(whole.section) || too_long(whole.drivername) ||
		   too_long(whole.file_name)))
		r = wd_err_set(&e, WD_EFAIL, "a name in it (section, DriverName or [FILE] Name) is "
			       "longer than %d bytes", WD_NIF_NAME_MAX);
	if (r) {
		out->error = wd_xstrdup(e.msg);
	} else {
		out->nif.section = whole.section;
		out->nif.drivername = whole.drivername;
		out->nif.file_name = whole.file_name;
		whole.section = whole.drivername = whole.file_name = NULL;
	}
	nif_free(&whole);
}

int vol_nif_load(const struct volume *v, const struct vol_nif *vn, struct nif *out,
		 struct wd_err *err)
{
	int r = load_nif(v, vn->host, out, err);
	if (r)
		nif_free(out);
	return r;
}

static int read_nifs(const struct volume *v, struct boot_files *f, struct wd_err *err)
{
	char *dir = NULL;
	bool found = false;
	int r = volume_resolve(v, WD_MACS_DIR, &dir, &found, err);
	char **names = NULL;
	size_t n = !r && found ? list_nifs(v, dir, &names) : 0;
	f->nifs = wd_xcalloc(n + 1, sizeof *f->nifs);
	for (size_t k = 0; k < n; k++) {
		read_one_nif(v, dir, names[k], &f->nifs[f->nnifs++]);
		free(names[k]);
	}
	free(names);
	free(dir);
	return r;
}

int boot_files_read(const struct volume *v, struct boot_files *f, struct wd_err *err)
{
	memset(f, 0, sizeof *f);
	int r = volfile_config_sys(v, &f->config_bytes, err);
	config_sys_parse(&f->cs, f->config_bytes.p ? f->config_bytes.p : "", f->config_bytes.len);
	if (r)
		return r;
	pi_locate(&f->cs, v->boot_drive, &f->loc);
	bool found = false;
	if (f->loc.where != PI_OTHER_DRIVE) {
		r = volfile_read(v, f->loc.path, &f->pi_host, &found, &f->pi_bytes, err);
		if (r)
			return r;
	}
	if (found) {
		protocol_ini_parse(&f->pi, f->pi_bytes.p ? f->pi_bytes.p : "", f->pi_bytes.len);
		f->have_pi = true;
	}
	if (strcasecmp(f->loc.path, WD_IBMCOM_PROTOCOL_INI) || f->loc.where == PI_OTHER_DRIVE) {
		char *host = NULL;
		bool there = false;
		struct wd_err e;
		if (!volume_resolve(v, WD_IBMCOM_PROTOCOL_INI, &host, &there, &e))
			f->stale_ibmcom = there && !fs_is_dir(&v->fs, host);
		free(host);
	}
	return read_nifs(v, f, err);
}

void boot_files_free(struct boot_files *f)
{
	config_sys_free(&f->cs);
	wd_buf_free(&f->config_bytes);
	if (f->have_pi)
		protocol_ini_free(&f->pi);
	wd_buf_free(&f->pi_bytes);
	free(f->pi_host);
	pi_location_free(&f->loc);
	for (size_t k = 0; k < f->nnifs; k++) {
		nif_free(&f->nifs[k].nif);
		free(f->nifs[k].error);
		free(f->nifs[k].label);
		free(f->nifs[k].host);
	}
	free(f->nifs);
	memset(f, 0, sizeof *f);
}
