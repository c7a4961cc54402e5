/* installer/acpi_plan and nic_plan helpers on small texts. */
/* nftw, for the copy of a case volume the planners after setup run on */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

#include "common/file.h"
#include "installer/acpi_plan.h"
#include "installer/config_off.h"
#include "installer/nic_plan.h"
#include "installer/setup_internal.h"
#include "os2/boot_drive.h"
#include "tests/unit/testutil.h"

static const char acpi_manifest[] =
	"format 1\nname acpi-psd\nversion 1\nreleased 2023-09-01\nsummary s\nkind psd\n"
	"file ACPI.PSD \\OS2\\BOOT\\ACPI.PSD\n"
	"config-need PSD ACPI.PSD\nconfig-need BASEDEV APM.ADD\n"
	"config-need RUN \\OS2\\ACPIDAEMON.EXE\n"
	"config-displace PSD OS2APIC.PSD\nconfig-displace DEVICE APM.SYS\n"
	"config-displace BASEDEV APM.SYS\nconfig-displace DEVICE VAPM.SYS\n";

/* A recipe of the source tree, parsed. */
static void read_recipe(const char *rel, struct pkg_manifest *m)
{
	const char *src = getenv("WARPDRV_SRC");
	char *p = wd_path_join(src && *src ? src : ".", rel);
	struct wd_buf b = {0};
	slurp(p, &b);
	struct wd_err e;
	assert_int_equal(manifest_parse(b.p, b.len, true, rel, m, &e), 0);
	wd_buf_free(&b);
	free(p);
}

/* Runs the ACPI planner over text; returns the new text (malloc'd). */
static char *acpi(const char *text, char drive, int *changed)
{
	struct pkg_manifest m;
	struct wd_err e;
	assert_int_equal(manifest_parse(acpi_manifest, strlen(acpi_manifest), true, "t", &m, &e), 0);
	struct config_sys cs;
	config_sys_parse(&cs, text, strlen(text));
	*changed = acpi_plan(&m, drive, &cs);
	struct wd_buf out = {0};
	config_sys_write(&cs, &out);
	config_sys_free(&cs);
	manifest_free(&m);
	wd_buf_cstr(&out);
	return out.p;
}

static void test_acpi_goes_before_basedev_without_psd(void **state)
{
	(void)state;
	int n;
	char *s = acpi("IFS=C:\\OS2\\HPFS.IFS\r\nBASEDEV=IBMKBD.SYS\r\n", 'D', &n);
	assert_string_equal(s, "IFS=C:\\OS2\\HPFS.IFS\r\nPSD=ACPI.PSD\r\nBASEDEV=IBMKBD.SYS\r\n"
			       "BASEDEV=APM.ADD\r\nRUN=D:\\OS2\\ACPIDAEMON.EXE\r\n");
	assert_int_equal(n, 3);
	free(s);
}

static void test_acpi_keeps_switches_and_fixes_a_path(void **state)
{
	(void)state;
	int n;
	char *s = acpi("psd=c:\\os2\\boot\\acpi.psd /VW\r\nBASEDEV=APM.ADD\r\n"
		       "RUN=C:\\OS2\\ACPIDAEMON.EXE\r\n", 'C', &n);
	assert_string_equal(s, "PSD=ACPI.PSD /VW\r\nBASEDEV=APM.ADD\r\nRUN=C:\\OS2\\ACPIDAEMON.EXE\r\n");
	assert_int_equal(n, 1);
	free(s);
	s = acpi("PSD=ACPI.PSD /VW\r\nBASEDEV=APM.ADD\r\nRUN=C:\\OS2\\ACPIDAEMON.EXE\r\n", 'C', &n);
	assert_int_equal(n, 0);
	free(s);
}

static void test_acpi_after_last_psd_and_displaced_go(void **state)
{
	(void)state;
	int n;
	char *s = acpi("PSD=OS2APIC.PSD\nPSD=OTHER.PSD\nDEVICE=C:\\OS2\\BOOT\\APM.SYS\n"
		       "DEVICE=C:\\OS2\\MDOS\\VAPM.SYS\nREM DEVICE=C:\\OS2\\MDOS\\VAPM.SYS\n", 'C', &n);
	/* LF file: new lines take LF; a REM line is no statement and stays. */
	assert_string_equal(s, "PSD=ACPI.PSD\nPSD=OTHER.PSD\nBASEDEV=APM.ADD\n"
			       "REM DEVICE=C:\\OS2\\MDOS\\VAPM.SYS\nRUN=C:\\OS2\\ACPIDAEMON.EXE\n");
	free(s);
}

/* The bundled manifests name further instances their drivers' way:
 * MultiMac's MMLEM2$ (chosen by /A1), Intel's E1002$ (no switch). */
static void test_instance_drivernames(void **state)
{
	(void)state;
	struct pkg_manifest mm, e1;
	read_recipe("drivers/mmlem/MANIFEST", &mm);
	read_recipe("drivers/e1000/MANIFEST", &e1);
	char *a = manifest_instance_drivername(&mm, 1), *b = manifest_instance_drivername(&mm, 2),
	     *c = manifest_instance_drivername(&e1, 2), *d = manifest_instance_drivername(&e1, 1);
	assert_string_equal(a, "MMLEM$");
	assert_string_equal(b, "MMLEM2$");
	assert_string_equal(c, "E1002$");
	assert_string_equal(d, "E1000$");
	free(a);
	free(b);
	free(c);
	free(d);
	char *sw = manifest_instance_switch(&mm, 2), *none = manifest_instance_switch(&e1, 2);
	assert_string_equal(sw, "/A1");
	assert_null(none);
	assert_null(manifest_instance_switch(&mm, 1));
	free(sw);
	manifest_free(&mm);
	manifest_free(&e1);
}

static void test_acpi_moves_the_daemon_line_to_the_package_daemon(void **state)
{
	(void)state;
	int n;
	/* eCS starts its own daemon from \ECS\BIN: the guest would run an old
	 * daemon with the new PSD. The line now starts the package's. */
	char *s = acpi("PSD=ACPI.PSD\r\nBASEDEV=APM.ADD\r\nRUN=C:\\ECS\\BIN\\ACPIDAEMON.EXE /Q\r\n", 'C',
		       &n);
	assert_string_equal(s, "PSD=ACPI.PSD\r\nBASEDEV=APM.ADD\r\nRUN=C:\\OS2\\ACPIDAEMON.EXE /Q\r\n");
	assert_int_equal(n, 1);
	free(s);
}

static const char nic_manifest[] =
	"format 1\nname odd\nversion 1\nreleased 2023-05-01\nsummary s\nkind nic\n"
	"pci 8086:100e rank 1\ndriver ODD.OS2\nnif ODD.NIF\ndrivername ODD$\n"
	"file ODD.OS2 \\IBMCOM\\MACS\\ODD.OS2\nfile ODD.NIF \\IBMCOM\\MACS\\ODD.NIF\n";
static const char odd_nif[] = "[ODD]\r\nType = NDIS\r\nDriverName = ODD$\r\n[FILE]\r\nName = ODD.OS2\r\n";

/* A package whose driver name cannot be a section label ("A[B.OS2": the
 * manifest parser refuses it, but a package is only data): the planner's
 * refused edit stops the plan with a message, it reads nothing out of range. */
static void test_a_section_name_the_file_cannot_hold_stops_the_plan(void **state)
{
	(void)state;
	struct wd_err e;
	struct package p = {0};
	assert_int_equal(manifest_parse(nic_manifest, strlen(nic_manifest), true, "t", &p.m, &e), 0);
	free(p.m.driver);
	p.m.driver = wd_xstrdup("A[B.OS2");
	p.data = wd_xcalloc(2, sizeof *p.data);
	wd_buf_adds(&p.data[1], odd_nif);
	const struct package *pkgs[] = {&p};
	static const char lspci[] = "00:03.0 0200: 8086:100e (rev 02)\n";
	struct pci_list l;
	assert_int_equal(pci_parse_lspci(lspci, strlen(lspci), "t", &l, &e), 0);
	static const char cs_text[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n";
	static const char pi_text[] = "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n"
				      "[tcpip_nif]\r\n   DriverName = TCPIP$\r\n";
	struct config_sys cs;
	struct protocol_ini pi;
	config_sys_parse(&cs, cs_text, strlen(cs_text));
	protocol_ini_parse(&pi, pi_text, strlen(pi_text));
	struct pi_location loc;
	pi_locate(&cs, 'C', &loc);
	struct volume v = {.boot_drive = 'C'};
	struct nic_plan_in in = {.v = &v, .pci = &l, .pkgs = pkgs, .npkgs = 1, .loc = &loc};
	struct nic_plan out;
	assert_int_equal(nic_plan(&in, &cs, &pi, &out, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "PROTOCOL.INI: could not add [A[B_nif]"));
	/* The manifest parser refuses such a driver name in the first place. */
	char *bad = wd_xstrdup(nic_manifest);
	memcpy(strstr(bad, "driver ODD.OS2") + 7, "A[B", 3);
	struct pkg_manifest m;
	assert_int_equal(manifest_parse(bad, strlen(bad), true, "t", &m, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "driver: one 8.3 file name"));
	free(bad);
	pi_location_free(&loc);
	protocol_ini_free(&pi);
	config_sys_free(&cs);
	pci_list_free(&l);
	wd_buf_free(&p.data[1]);
	free(p.data);
	manifest_free(&p.m);
}

/* slot-keyword: a keyword and the number of the first card, once. */
static void test_slot_keyword_field(void **state)
{
	(void)state;
	static const char *bad[] = {"slot-keyword SLOT", "slot-keyword SL-OT 0",
				    "slot-keyword SLOT 100", "slot-keyword SLOT 0\nslot-keyword SLOT 1"};
	struct wd_err e;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *t = wd_xasprintf("%s%s\n", nic_manifest, bad[i]);
		struct pkg_manifest m;
		assert_int_equal(manifest_parse(t, strlen(t), true, "t", &m, &e), -WD_ETRUST);
		assert_non_null(strstr(e.msg, "slot-keyword"));
		free(t);
	}
	char *t = wd_xasprintf("%sslot-keyword SLOT 1\n", nic_manifest);
	struct pkg_manifest m;
	assert_int_equal(manifest_parse(t, strlen(t), true, "t", &m, &e), 0);
	assert_string_equal(m.slot_keyword, "SLOT");
	assert_int_equal(m.slot_first, 1);
	struct wd_buf out = {0};
	manifest_write(&m, &out);
	wd_buf_cstr(&out);
	assert_non_null(strstr(out.p, "\nslot-keyword SLOT 1\n"));
	wd_buf_free(&out);
	manifest_free(&m);
	free(t);
}

/* ---- the data-driven cases of tests/planner (tests/planner/README) ---- */

struct case_pkgs {
	struct package *p;
	size_t n;
	char ent[200]; /* the entitlements of the case's subscription, ",a,b," */
};

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The recipe in dir (MANIFEST and its files) as a package. */
static void load_recipe(const char *dir, struct package *p)
{
	memset(p, 0, sizeof *p);
	char *mf = wd_path_join(dir, "MANIFEST");
	struct wd_buf b = {0};
	slurp(mf, &b);
	struct wd_err e;
	if (manifest_parse(b.p, b.len, true, mf, &p->m, &e))
		fail_msg("%s", e.msg);
	wd_buf_free(&b);
	free(mf);
	p->data = wd_xcalloc(p->m.nfiles + 1, sizeof *p->data);
	for (size_t i = 0; i < p->m.nfiles; i++) {
		char *f = wd_path_join(dir, p->m.files[i].src);
		slurp(f, &p->data[i]);
		free(f);
	}
}

static void load_recipes(const char *dir, struct case_pkgs *cp)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = wd_path_join(dir, de->d_name), *mf = wd_path_join(sub, "MANIFEST");
		if (exists(mf)) {
			struct package tmp;
			load_recipe(sub, &tmp);
			if (tmp.m.kind == PKG_KIND_NIC) {
				cp->p = wd_xrealloc(cp->p, (cp->n + 1) * sizeof *cp->p);
				cp->p[cp->n++] = tmp;
			} else {
				for (size_t i = 0; i < tmp.m.nfiles; i++)
					wd_buf_free(&tmp.data[i]);
				free(tmp.data);
				manifest_free(&tmp.m);
			}
		}
		free(mf);
		free(sub);
	}
	closedir(d);
}

/* The subscription of a case: its file `subscription` lists entitlements. */
static int case_may(void *arg, const struct package *p, struct wd_err *why)
{
	const struct case_pkgs *cp = arg;
	if (!p->m.entitlement)
		return 0;
	char want[80];
	snprintf(want, sizeof want, ",%s,", p->m.entitlement);
	if (strstr(cp->ent, want))
		return 0;
	return wd_err_set(why, WD_ELICENSE, "needs a subscription with %s", p->m.entitlement);
}

/* The planners a case runs through, one after another on the result of
 * the one before: setup, setup again, configure nic --off. */
enum planner { P_SETUP, P_AGAIN, P_OFF };

/* A copy of a case's volume for the planners after setup (nftw's
 * callback has no argument: the folders are here). */
static const char *copy_from, *copy_to;

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	char *to = wd_xasprintf("%s%s", copy_to, path + strlen(copy_from));
	int r = 0;
	if (type == FTW_D) {
		r = mkdir(to, 0755) && strcmp(path, copy_from) ? -1 : 0;
	} else if (type == FTW_F && S_ISREG(st->st_mode)) {
		struct wd_buf b = {0};
		slurp(path, &b);
		FILE *f = fopen(to, "wb");
		r = f && fwrite(b.p ? b.p : "", 1, b.len, f) == b.len ? 0 : -1;
		if (f)
			fclose(f);
		wd_buf_free(&b);
	}
	free(to);
	return r;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* One planner on the volume at root: its outcome in the form of the expect
 * file; write: the files it plans written there; *changed: it plans a
 * change. */
static int plan_once(const char *root, const char *pcif, struct case_pkgs *cp,
		     const struct package **pp, enum planner which, struct wd_buf *out,
		     bool write, bool *changed)
{
	struct volume vol = {0};
	struct db db = {0};
	struct setup s = {.command = which == P_OFF ? "configure nic --off" : "setup", .v = &vol,
			  .db = &db};
	struct wd_err e = {0};
	struct config_sys cs0;
	int r = boot_volume_open(&vol, &cs0, root, 0, &e);
	if (!r)
		config_sys_free(&cs0);
	if (!r)
		r = setup_open(&s, &e);
	struct wd_buf lspci = {0};
	slurp(pcif, &lspci);
	if (!r)
		r = pci_parse_lspci(lspci.p, lspci.len, "pci", &s.pci, &e);
	struct nic_plan_in in = {.pkgs = pp, .npkgs = cp->n, .may = case_may, .may_arg = cp,
				 .off = which == P_OFF};
	if (!r && which == P_OFF) {
		/* no generation tells the driver before: the free default */
		const struct package *cur, *prev;
		long gen;
		r = config_off_nic(&s, cp->p, cp->n, &cur, &prev, &gen, &e);
		in.driver = !r && prev ? prev->m.name : NULL;
	}
	if (!r)
		r = setup_plan_nic(&s, &in, &e);
	if (!r) {
		setup_render(&s);
		r = setup_verify(&s, pp, cp->n, &e);
	}
	wd_buf_addf(out, "exit %d\n", r < 0 ? -r : r);
	if (r)
		wd_buf_addf(out, "error: %s\n", e.msg);
	for (size_t i = 0; !r && i < s.nic.nwarnings; i++)
		wd_buf_addf(out, "warning: %s\n", s.nic.warnings[i]);
	for (size_t i = 0; !r && i < s.nic.n; i++)
		for (size_t k = 0; k < s.nic.items[i].nnotes; k++)
			wd_buf_addf(out, "note: [%s] %s\n", s.nic.items[i].section,
				    s.nic.items[i].notes[k]);
	for (size_t i = 0; !r && i < s.nnotes; i++)
		wd_buf_addf(out, "note: %s\n", s.notes[i]);
	*changed = !r && (setup_file_changed(&s, F_CONFIG) || setup_file_changed(&s, F_PROTOCOL));
	if (!r) {
		struct wd_buf diff = {0};
		setup_diff(&s, &diff);
		if (diff.len)
			wd_buf_add(out, diff.p, diff.len);
		else
			wd_buf_addf(out, "nothing to do\n");
		wd_buf_free(&diff);
	}
	/* setup's result written to a copy, for the planners after it */
	for (int f = 0; !r && write && f < NFILES; f++)
		if (s.host[f] && setup_file_changed(&s, f)) {
			char *path = wd_path_join(root, s.host[f]);
			for (char *c = path + strlen(root); *c; c++)
				*c = *c == '\\' ? '/' : *c;
			FILE *fp = fopen(path, "wb");
			assert_non_null(fp);
			assert_int_equal(fwrite(s.new_[f].p, 1, s.new_[f].len, fp), s.new_[f].len);
			fclose(fp);
			free(path);
		}
	wd_buf_free(&lspci);
	setup_clear(&s);
	volume_close(&vol);
	return r;
}

/* One case: what setup's NIC plan says of its volume and PCI listing, in
 * the form of its expect file; where setup plans a change, what a second
 * setup and configure nic --off then say of its result (a volume copied to
 * a temporary folder with setup's files written). */
static void run_case(const char *dir, const struct case_pkgs *base, struct wd_buf *out)
{
	struct case_pkgs cp = *base;
	char *extra = wd_path_join(dir, "packages");
	struct case_pkgs local = {0};
	load_recipes(extra, &local);
	free(extra);
	cp.p = wd_xcalloc(base->n + local.n + 1, sizeof *cp.p);
	memcpy(cp.p, base->p, base->n * sizeof *cp.p);
	if (local.n)
		memcpy(cp.p + base->n, local.p, local.n * sizeof *cp.p);
	cp.n = base->n + local.n;
	char *subf = wd_path_join(dir, "subscription");
	strcpy(cp.ent, ",");
	if (exists(subf)) {
		struct wd_buf b = {0};
		slurp(subf, &b);
		for (size_t i = 0; i < b.len && strlen(cp.ent) < sizeof cp.ent - 2; i++)
			if (b.p[i] != '\n' && b.p[i] != ' ')
				strncat(cp.ent, &b.p[i], 1);
		strcat(cp.ent, ",");
		wd_buf_free(&b);
	}
	free(subf);
	const struct package **pp = wd_xcalloc(cp.n + 1, sizeof *pp);
	for (size_t i = 0; i < cp.n; i++)
		pp[i] = &cp.p[i];

	char *root = wd_path_join(dir, "volume"), *pcif = wd_path_join(dir, "pci");
	const char *tmp = getenv("TMPDIR");
	char *copy = wd_xasprintf("%s/wd-planner-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(copy));
	copy_from = root;
	copy_to = copy;
	assert_int_equal(nftw(root, copy_one, 16, FTW_PHYS), 0);
	bool changed = false, again = false;
	int r = plan_once(copy, pcif, &cp, pp, P_SETUP, out, true, &changed);
	if (!r && changed) {
		/* a second setup on the result changes nothing */
		wd_buf_addf(out, "== setup again\n");
		assert_int_equal(plan_once(copy, pcif, &cp, pp, P_AGAIN, out, false, &again), 0);
		if (again)
			fail_msg("planner case %s: a second setup changes its result:\n%s", dir, out->p);
		wd_buf_addf(out, "== configure nic --off\n");
		plan_once(copy, pcif, &cp, pp, P_OFF, out, false, &again);
	}
	assert_int_equal(nftw(copy, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(copy);
	free(root);
	free(pcif);
	free(pp);
	for (size_t i = 0; i < local.n; i++) {
		for (size_t f = 0; f < local.p[i].m.nfiles; f++)
			wd_buf_free(&local.p[i].data[f]);
		free(local.p[i].data);
		manifest_free(&local.p[i].m);
	}
	free(local.p);
	free(cp.p);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every folder of tests/planner: a volume, a PCI listing and the expected
 * plan or refusal. WARPDRV_PLANNER_WRITE=1 writes each expect file from the
 * planner (for a new case; read what it wrote before committing it). */
static void test_planner_cases(void **state)
{
	(void)state;
	const char *src = getenv("WARPDRV_SRC");
	char *top = wd_path_join(src && *src ? src : ".", "tests/planner");
	struct case_pkgs base = {0};
	const char *names[] = {"e1000", "mmlem", "pcntnd"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *rel = wd_xasprintf("%s/drivers/%s", src && *src ? src : ".", names[i]);
		base.p = wd_xrealloc(base.p, (base.n + 1) * sizeof *base.p);
		load_recipe(rel, &base.p[base.n++]);
		free(rel);
	}
	DIR *d = opendir(top);
	assert_non_null(d);
	char **cases = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			char *c = wd_path_join(top, de->d_name), *v = wd_path_join(c, "volume");
			if (exists(v)) {
				cases = wd_xrealloc(cases, (n + 1) * sizeof *cases);
				cases[n++] = c;
			} else {
				free(c);
			}
			free(v);
		}
	closedir(d);
	qsort(cases, n, sizeof *cases, by_name);
	assert_true(n > 0);
	int failed = 0;
	bool write = getenv("WARPDRV_PLANNER_WRITE") && *getenv("WARPDRV_PLANNER_WRITE") == '1';
	for (size_t i = 0; i < n; i++) {
		struct wd_buf got = {0}, want = {0};
		run_case(cases[i], &base, &got);
		char *ef = wd_path_join(cases[i], "expect");
		if (write) {
			FILE *f = fopen(ef, "wb");
			assert_non_null(f);
			fwrite(got.p, 1, got.len, f);
			fclose(f);
		} else if (exists(ef)) {
			slurp(ef, &want);
		}
		if (!write && (got.len != want.len || memcmp(got.p, want.p, got.len))) {
			printf("planner case %s: the plan differs from its expect file; the plan:\n"
			       "%.*s\n", cases[i], (int)got.len, got.p ? got.p : "");
			failed++;
		} else {
			printf("planner case %s: ok\n", strrchr(cases[i], '/') + 1);
		}
		wd_buf_free(&got);
		wd_buf_free(&want);
		free(ef);
		free(cases[i]);
	}
	free(cases);
	for (size_t i = 0; i < base.n; i++) {
		for (size_t f = 0; f < base.p[i].m.nfiles; f++)
			wd_buf_free(&base.p[i].data[f]);
		free(base.p[i].data);
		manifest_free(&base.p[i].m);
	}
	free(base.p);
	free(top);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acpi_goes_before_basedev_without_psd),
		cmocka_unit_test(test_acpi_keeps_switches_and_fixes_a_path),
		cmocka_unit_test(test_acpi_after_last_psd_and_displaced_go),
		cmocka_unit_test(test_instance_drivernames),
		cmocka_unit_test(test_acpi_moves_the_daemon_line_to_the_package_daemon),
		cmocka_unit_test(test_a_section_name_the_file_cannot_hold_stops_the_plan),
		cmocka_unit_test(test_slot_keyword_field),
		cmocka_unit_test(test_planner_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
