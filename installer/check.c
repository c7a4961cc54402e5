#include "installer/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"
#include "installer/boot_critical.h"
#include "os2/nameidx.h"

#define SV(v) (int)(v).n, (v).p

/* ---- CONFIG.SYS alone ---- */

static void check_line_endings(const struct config_sys *cs, struct check_report *rep)
{
	size_t first = 0;
	size_t n = tl_count_lf_only(&cs->t, &first);
	if (!n)
		return;
	report_add(rep, "CONFIG.SYS", first + 1, CHECK_ERROR, "line-endings", "",
	    "%zu of %zu lines end in LF alone (the first is line %zu); OS/2 misreads such a "
	    "CONFIG.SYS and stops at boot (SYS02068): save it with CR LF line endings",
	    n, config_sys_lines(cs), first + 1);
}

/* What on_volume answered, by path: a CONFIG.SYS names the same files over
 * and over, and each answer costs a walk of the volume's folders. */
struct seen {
	struct nameidx ix; /* path -> found */
	char **paths;
	size_t n;
};


/* A path of plain names only ("\OS2\BOOT\X.SYS"): no empty, "." or ".."
 * part, whose folder means what it says. */
static bool plain(const char *path)
{
	const char *p = path;
	if (*p == '\\' || *p == '/')
		p++;
	while (*p) {
		size_t n = strcspn(p, "\\/");
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p)
			p++;
	}
	return true;
}

static bool on_volume(const struct volume *v, struct seen *seen, const char *os2path)
{
	const size_t *known = ni_get(&seen->ix, wd_sv_cstr(os2path));
	if (known)
		return *known;
	/* A file is there only if its folder is: a folder looked up once
	 * answers for every missing file named in it. */
	size_t cut = 0;
	for (size_t k = 0; os2path[k]; k++)
		if ((os2path[k] == '\\' || os2path[k] == '/') && os2path[k + 1])
			cut = k + 1;
	bool found;
	if (cut > 1 && plain(os2path)) {
		char *dir = wd_xstrndup(os2path, cut);
		found = on_volume(v, seen, dir) && volume_has(v, os2path);
		free(dir);
	} else {
		found = volume_has(v, os2path);
	}
	if (!(seen->n & (seen->n - 1)))
		seen->paths = wd_xrealloc(seen->paths, (seen->n ? seen->n * 2 : 1) * sizeof *seen->paths);
	char *p = seen->paths[seen->n++] = wd_xstrdup(os2path);
	ni_put(&seen->ix, wd_sv_cstr(p), found, NULL);
	return found;
}

/* A bare name ("ACPI.PSD", "TESTCFG.SYS") is looked up where OS/2 looks for
 * a PSD or a BASEDEV: the root, \OS2 and \OS2\BOOT. */
static bool bare_on_volume(const struct volume *v, struct seen *seen, struct wd_sv name)
{
	static const char *const dirs[] = {"", "OS2\\", "OS2\\BOOT\\"};
	for (int k = 0; k < 3; k++) {
		char *p = wd_xasprintf("\\%s%.*s", dirs[k], SV(name));
		bool ok = on_volume(v, seen, p);
		free(p);
		if (ok)
			return true;
	}
	return false;
}

static void check_files(const struct volume *v, struct seen *seen, size_t i,
			const struct cs_stmt *st, struct check_report *rep)
{
	if (!st->name.n)
		return;
	bool psd = wd_sv_ieq(st->keyword, "PSD");
	if (psd && (st->drive || st->dir.n)) {
		report_add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "psd-path", "",
		    "PSD= must name a file without a drive or path: write PSD=%.*s%s%.*s "
		    "(OS/2 finds it in \\OS2\\BOOT)",
		    SV(st->name), st->args.n ? " " : "", SV(st->args));
		return;
	}
	/* Another drive's files are not on this volume; nothing to say. */
	if (st->drive && st->drive != v->boot_drive)
		return;
	bool found;
	if (!st->dir.n) {
		found = bare_on_volume(v, seen, st->name);
	} else {
		char *p = wd_xasprintf("%.*s%.*s", SV(st->dir), SV(st->name));
		found = on_volume(v, seen, p);
		free(p);
	}
	/* An error: the guest stops at boot (DEVICE=, BASEDEV=, PSD=, IFS=) or
	 * loses what the line starts (RUN=, CALL=) looking for it. */
	if (!found)
		report_add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "file-missing", "",
		    "%.*s= loads %.*s, which is not on the volume%s: install the file or "
		    "REM the line",
		    SV(st->keyword), SV(st->path),
		    st->dir.n ? "" : " (looked in \\, \\OS2 and \\OS2\\BOOT)");
}

static bool loads_name(const struct cs_stmt *st, const char *keyword, const char *name)
{
	return st->loads && (!keyword || wd_sv_ieq(st->keyword, keyword)) &&
	       wd_sv_ieq(st->name, name);
}

static void check_acpi(const struct config_sys *cs, struct check_report *rep)
{
	long acpi = -1;
	struct cs_stmt st;
	for (size_t i = 0; i < config_sys_lines(cs) && acpi < 0; i++)
		if (config_sys_stmt(cs, i, &st) && loads_name(&st, "PSD", "ACPI.PSD"))
			acpi = (long)i;
	if (acpi < 0)
		return;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		if (!config_sys_stmt(cs, i, &st))
			continue;
		if (loads_name(&st, "PSD", "OS2APIC.PSD") || loads_name(&st, NULL, "APM.SYS") ||
		    loads_name(&st, NULL, "VAPM.SYS"))
			report_add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "acpi-conflict", "",
			    "%.*s cannot be loaded together with PSD=ACPI.PSD (line %ld): the ACPI "
			    "PSD replaces it; REM or remove this line",
			    SV(st.name), acpi + 1);
	}
}

void check_config_sys(const struct volume *v, const struct config_sys *cs,
		      struct check_report *rep)
{
	check_line_endings(cs, rep);
	struct seen seen = {0};
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		if (config_sys_stmt(cs, i, &st) && st.loads)
			check_files(v, &seen, i, &st, rep);
	}
	for (size_t k = 0; k < seen.n; k++)
		free(seen.paths[k]);
	free(seen.paths);
	ni_free(&seen.ix);
	check_acpi(cs, rep);
	boot_critical_check(v, cs, rep);
}

/* ---- networking: the boot model's findings ---- */

void check_network(const struct boot_input *in, struct check_report *rep)
{
	struct boot_model m;
	boot_model_build(&m, in);
	for (size_t i = 0; i < m.rep.n; i++) {
		const struct finding *f = &m.rep.v[i];
		report_add(rep, f->file, f->line, f->severity, f->code, f->key, "%s", f->message);
	}
	boot_model_free(&m);
}

/* ---- reading the volume ---- */

/* Is NETBIND.EXE in PROTMAN's folder\PROTOCOL on this volume (1), not (-1),
 * or is that folder on another drive (0)? */
int check_netbind_file(const struct volume *v, const struct pi_location *loc)
{
	if (!loc->dir || loc->where == PI_OTHER_DRIVE)
		return 0;
	char *p = wd_xasprintf("%s\\PROTOCOL\\NETBIND.EXE", loc->dir);
	bool there = volume_has(v, p);
	free(p);
	return there ? 1 : -1;
}

int check_volume(const struct volume *v, const struct pkg_manifest *const *pkgs, size_t npkgs,
		 struct check_report *rep, struct wd_err *err)
{
	memset(rep, 0, sizeof *rep);
	struct boot_files f;
	int r = boot_files_read(v, &f, err);
	if (r) {
		boot_files_free(&f);
		return r;
	}
	for (size_t k = 0; k < f.nnifs; k++)
		if (f.nifs[k].error)
			report_add(rep, f.nifs[k].label, 0, CHECK_WARNING, "nif-unreadable", f.nifs[k].label,
				   "%s; the driver it describes is judged by its file name instead",
				   f.nifs[k].error);
	check_config_sys(v, &f.cs, rep);
	struct boot_input in = {
		.cs = &f.cs,
		.pi = f.have_pi ? &f.pi : NULL,
		.loc = &f.loc,
		.pi_label = f.loc.path,
		.stale_ibmcom = f.stale_ibmcom,
		.nifs = f.nifs,
		.nnifs = f.nnifs,
		.pkgs = pkgs,
		.npkgs = npkgs,
		.netbind_file = check_netbind_file(v, &f.loc),
	};
	check_network(&in, rep);
	if (f.have_pi && f.loc.path)
		rep->pi_file = wd_xstrdup(f.loc.path);
	check_sort(rep);
	boot_files_free(&f);
	return 0;
}
