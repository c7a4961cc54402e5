/* installer/acpi_plan and nic_plan helpers on small texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "installer/acpi_plan.h"
#include "installer/nic_plan.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acpi_goes_before_basedev_without_psd),
		cmocka_unit_test(test_acpi_keeps_switches_and_fixes_a_path),
		cmocka_unit_test(test_acpi_after_last_psd_and_displaced_go),
		cmocka_unit_test(test_instance_drivernames),
		cmocka_unit_test(test_acpi_moves_the_daemon_line_to_the_package_daemon),
		cmocka_unit_test(test_a_section_name_the_file_cannot_hold_stops_the_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
