/* Boot-critical statements: the matcher over the table
 * (boot_critical_table.c), the guard of every planner's CONFIG.SYS edits,
 * a manifest's own directives, and check's rules. */
#include "installer/boot_critical.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/vfs.h>

#include "common/buf.h"
#include "os2/volfiles.h"

#define SV(v) (int)(v).n, (v).p

/* Linux's statfs f_type of the file systems an OS/2 volume is mounted as
 * (linux/magic.h and the file systems' sources). */
#define FS_MAGIC_MSDOS 0x4d44 /* msdos and vfat */
#define FS_MAGIC_HPFS 0xf995e849
#define FS_MAGIC_JFS 0x3153464a

static bool file_matches(struct wd_sv file, const char *pattern)
{
	if (pattern[0] != '*')
		return wd_sv_ieq(file, pattern);
	size_t n = strlen(pattern + 1);
	return file.n > n && !strncasecmp(file.p + file.n - n, pattern + 1, n);
}

const struct bc_entry *boot_critical_match(struct wd_sv keyword, struct wd_sv file)
{
	for (size_t i = 0; i < boot_critical_count; i++) {
		const struct bc_entry *e = &boot_critical_table[i];
		if (wd_sv_ieq(keyword, e->keyword) && file_matches(file, e->file))
			return e;
	}
	return NULL;
}

const struct bc_entry *boot_critical_line(const struct config_sys *cs, size_t i)
{
	struct cs_stmt st;
	if (!config_sys_stmt(cs, i, &st) || !st.loads || !st.name.n)
		return NULL;
	const struct bc_entry *e = boot_critical_match(st.keyword, st.name);
	return e && e->cls != BC_NONE ? e : NULL;
}

static int cmp_text(struct wd_sv a, struct wd_sv b)
{
	size_t m = a.n < b.n ? a.n : b.n;
	int c = m ? memcmp(a.p, b.p, m) : 0;
	return c ? c : (a.n > b.n) - (a.n < b.n);
}

static int cmp_line(const void *x, const void *y)
{
	return cmp_text(*(const struct wd_sv *)x, *(const struct wd_sv *)y);
}

int boot_critical_guard(const struct config_sys *orig, const struct config_sys *now,
			const char *who, struct wd_err *err)
{
	/* Each boot-critical line of the old file must be in the new one, a
	 * line of the new one standing for one old line only: the new lines are
	 * sorted by text once (not searched for each old line, which a file of
	 * 4 MiB made take seconds), and each text's equal lines are taken in
	 * turn (which of them stands for which old line does not matter). */
	size_t n = config_sys_lines(now);
	struct wd_sv *ord = wd_xcalloc(n + 1, sizeof *ord);
	size_t *taken = wd_xcalloc(n + 1, sizeof *taken); /* at a text's first place */
	for (size_t k = 0; k < n; k++)
		ord[k] = tl_text(&now->t, k);
	qsort(ord, n, sizeof *ord, cmp_line);
	long lost = -1;
	size_t nlost = 0;
	for (size_t i = 0; i < config_sys_lines(orig); i++) {
		if (!boot_critical_line(orig, i))
			continue;
		struct wd_sv t = tl_text(&orig->t, i);
		size_t lo = 0, hi = n; /* the first place of text t */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_text(ord[mid], t) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t at = lo + (lo < n ? taken[lo] : 0);
		if (at < n && !cmp_text(ord[at], t)) {
			taken[lo]++;
			continue;
		}
		if (lost < 0)
			lost = (long)i;
		nlost++;
	}
	free(ord);
	free(taken);
	if (lost < 0)
		return 0;
	struct wd_sv t = tl_text(&orig->t, (size_t)lost);
	const struct bc_entry *e = boot_critical_line(orig, (size_t)lost);
	char more[64] = "";
	if (nlost > 1)
		snprintf(more, sizeof more, " (and %zu more such line%s)", nlost - 1,
			 nlost > 2 ? "s" : "");
	return wd_err_set(err, WD_ETRUST, "%s would remove or rewrite CONFIG.SYS line %ld, "
			  "'%.*s'%s: that is %s, and no package may take away a statement the "
			  "guest needs to boot; the package asks for what no package may do, "
			  "so nothing was written (docs/config-files.md, \"Boot-critical "
			  "statements\")", who, lost + 1, SV(t), more, e->what);
}

static const char *base_name(const char *v)
{
	const char *b = strrchr(v, '\\');
	return b ? b + 1 : v;
}

int boot_critical_manifest(const struct pkg_manifest *m, const struct config_sys *cs,
			   struct wd_err *err)
{
	for (size_t k = 0; k < m->nconfig_displace; k++) {
		const struct pkg_config *d = &m->config_displace[k];
		struct wd_sv file = wd_sv_cstr(base_name(d->value));
		const struct bc_entry *e = boot_critical_match(wd_sv_cstr(d->keyword), file);
		if (!e || e->cls == BC_NONE)
			continue;
		long line = -1;
		for (size_t i = 0; cs && line < 0 && i < config_sys_lines(cs); i++) {
			struct cs_stmt st;
			if (boot_critical_line(cs, i) && config_sys_stmt(cs, i, &st) &&
			    wd_sv_ieq(st.keyword, d->keyword) && wd_sv_ieq(st.name, file.p))
				line = (long)i;
		}
		struct wd_buf where = {0};
		if (line >= 0) {
			struct wd_sv t = tl_text(&cs->t, (size_t)line);
			wd_buf_addf(&where, "CONFIG.SYS line %ld, '%.*s'", line + 1, SV(t));
		} else {
			wd_buf_addf(&where, "any %s=%s line (CONFIG.SYS has none now)", d->keyword,
				    d->value);
		}
		int r = wd_err_set(err, WD_ETRUST, "%s %s: its manifest says 'config-displace %s %s', "
				   "which would remove %s: that is %s, and no package may take away a "
				   "statement the guest needs to boot; the package asks for what no "
				   "package may do, so nothing was written (docs/config-files.md, "
				   "\"Boot-critical statements\")", m->name, m->version, d->keyword,
				   d->value, where.p, e->what);
		wd_buf_free(&where);
		return r;
	}
	return 0;
}

int boot_critical_manifest_on(const struct volume *v, const struct pkg_manifest *m,
			      struct wd_err *err)
{
	/* CONFIG.SYS is read only for the message: a manifest that displaces
	 * nothing critical needs no readable CONFIG.SYS here. */
	struct wd_err none = {0};
	if (!boot_critical_manifest(m, NULL, &none))
		return 0;
	struct wd_buf b = {0};
	int r;
	if (volfile_config_sys(v, &b, &none)) {
		r = boot_critical_manifest(m, NULL, err); /* refused all the same */
	} else {
		struct config_sys cs;
		config_sys_parse(&cs, b.p ? b.p : "", b.len);
		r = boot_critical_manifest(m, &cs, err);
		config_sys_free(&cs);
	}
	wd_buf_free(&b);
	return r;
}

/* ---- check ---- */

void boot_critical_check(const struct volume *v, const struct config_sys *cs,
			 struct check_report *rep)
{
	struct bc_volume_facts f = {BC_FS_UNKNOWN, false, false, v->boot_drive ? v->boot_drive : 'C'};
	struct statfs sf;
	if (!statfs(v->root, &sf)) {
		unsigned long t = (unsigned long)sf.f_type & 0xffffffffUL;
		f.fs = t == FS_MAGIC_MSDOS ? BC_FS_FAT : t == FS_MAGIC_HPFS ? BC_FS_HPFS
		     : t == FS_MAGIC_JFS ? BC_FS_JFS : BC_FS_UNKNOWN;
	}
	static const char *const where[] = {"\\", "\\OS2\\", "\\OS2\\BOOT\\"};
	static const char *const ifs[] = {"JFS.IFS", "HPFS.IFS"};
	for (int d = 0; d < 3 && !f.holds_ifs; d++)
		for (int k = 0; k < 2 && !f.holds_ifs; k++) {
			char *p = wd_xasprintf("%s%s", where[d], ifs[k]);
			f.holds_ifs = volume_has(v, p);
			free(p);
		}
	f.holds_wps = volume_has(v, "\\OS2\\DLL\\PMWP.DLL");
	boot_critical_rules(cs, &f, rep);
}

bool boot_os2_v2(const struct config_sys *cs, const struct bc_volume_facts *f)
{
	if (f->holds_wps)
		return true;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct wd_sv t = wd_sv_trim(tl_text(&cs->t, i));
		/* a remark's statement counts: REM BASEDEV= is a 2.0 CONFIG.SYS */
		if (t.n > 4 && wd_sv_istarts(t, "REM") && (t.p[3] == ' ' || t.p[3] == '\t'))
			t = wd_sv_trim(wd_sv_make(t.p + 4, t.n - 4));
		if (wd_sv_istarts(t, "BASEDEV") || wd_sv_istarts(t, "PSD") ||
		    wd_sv_istarts(t, "SET RUNWORKPLACE")) {
			size_t k = 0;
			while (k < t.n && t.p[k] != '=')
				k++;
			struct wd_sv kw = wd_sv_trim(wd_sv_make(t.p, k));
			if (k < t.n && (wd_sv_ieq(kw, "BASEDEV") || wd_sv_ieq(kw, "PSD") ||
					wd_sv_istarts(kw, "SET RUNWORKPLACE")))
				return true;
		}
	}
	return false;
}

void boot_critical_rules(const struct config_sys *cs, const struct bc_volume_facts *f,
			 struct check_report *rep)
{
	bool manager = false, adapter = false, ifs = false;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		const struct bc_entry *e = boot_critical_line(cs, i);
		manager |= e && e->cls == BC_DISK_MANAGER;
		adapter |= e && e->cls == BC_DISK_ADAPTER;
		ifs |= e && e->cls == BC_BOOT_IFS;
	}
	bool v2 = boot_os2_v2(cs, f);
	if (!manager && v2)
		report_add(rep, "CONFIG.SYS", 0, CHECK_ERROR, "no-disk-driver", "OS2DASD.DMD",
			   "no BASEDEV= line loads OS2DASD.DMD, the disk device manager: OS/2 "
			   "cannot read its boot volume and stops at boot; add BASEDEV=OS2DASD.DMD "
			   "after the adapter drivers (*.ADD)");
	if (!adapter && v2)
		report_add(rep, "CONFIG.SYS", 0, CHECK_ERROR, "no-disk-driver", "*.ADD",
			   "no BASEDEV= line loads a disk adapter driver (*.ADD, APM.ADD not "
			   "counted): nothing drives the boot disk's controller and the guest "
			   "stops at boot; add the one of this controller (BASEDEV=IBM1S506.ADD "
			   "or DANIS506.ADD for IDE, OS2AHCI.ADD for SATA)");
	if (ifs || f->fs == BC_FS_FAT)
		return;
	char drive = f->boot_drive ? f->boot_drive : 'C';
	if (f->fs == BC_FS_HPFS || f->fs == BC_FS_JFS) {
		const char *name = f->fs == BC_FS_JFS ? "JFS" : "HPFS";
		report_add(rep, "CONFIG.SYS", 0, CHECK_ERROR, "no-boot-ifs", name,
			   "the volume is %s, but no IFS= line loads %s.IFS: OS/2 cannot mount "
			   "its boot volume and stops at boot; add IFS=%c:\\OS2\\%s.IFS", name,
			   name, drive, name);
		return;
	}
	if (f->holds_ifs)
		report_add(rep, "CONFIG.SYS", 0, CHECK_ERROR, "no-boot-ifs", "",
			   "no IFS= line loads JFS.IFS or HPFS.IFS, though the volume holds their "
			   "driver: a JFS or HPFS boot volume cannot be mounted and the guest "
			   "stops at boot; add the IFS= line of the boot volume's file system "
			   "(IFS=%c:\\OS2\\JFS.IFS or IFS=%c:\\OS2\\HPFS.IFS). Only a FAT boot "
			   "volume needs none (docs/config-files.md, \"Boot-critical statements\")",
			   drive, drive);
}
