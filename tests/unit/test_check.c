/* The networking rules of warpdrv check on models built from text: each rule
 * fires where it should, and a healthy MPTS set-up gives nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "installer/check.h"
#include "tests/unit/testutil.h"

static const char cs_ok[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
			    "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
			    "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2 /A1\r\n"
			    "CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
static const char pi_ok[] = "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n"
			    "[IBMLXCFG]\r\n   tcpip_nif = tcpip.nif\r\n   MMLEM_nif = MMLEM.NIF\r\n"
			    "   MMLEM_nif2 = MMLEM.NIF\r\n"
			    "[NETBIOS]\r\n   DriverName = netbios$\r\n"
			    "[tcpip_nif]\r\n   DriverName = TCPIP$\r\n   Bindings = MMLEM_nif,MMLEM_nif2\r\n"
			    "[MMLEM_nif]\r\n   DriverName = MMLEM$\r\n"
			    "[MMLEM_nif2]\r\n   DriverName = MMLEM2$\r\n";

/* The MMLEM package's manifest, as the bundled one gives its instances. */
static const char mmlem_manifest[] =
	"format 1\nname mmlem\nversion 1\nreleased 2023-05-01\nsummary s\nkind nic\n"
	"pci 8086:100e rank 1\ndriver MMLEM.OS2\nnif MMLEM.NIF\ndrivername MMLEM$\n"
	"instance-drivername MMLEM%d$\ninstance-switch /A%d\n"
	"file MMLEM.OS2 \\IBMCOM\\MACS\\MMLEM.OS2\nfile MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n";

/* Runs check_network and returns "code@line code@line ..." */
static char *run(const char *cs_text, const char *pi_text, const char *nif_text)
{
	struct config_sys cs;
	config_sys_parse(&cs, cs_text, strlen(cs_text));
	struct protocol_ini pi;
	if (pi_text)
		protocol_ini_parse(&pi, pi_text, strlen(pi_text));
	struct vol_nif nif = {0};
	struct wd_err e;
	if (nif_text)
		assert_int_equal(nif_parse(&nif.nif, nif_text, strlen(nif_text), &e), 0);
	struct pkg_manifest m;
	assert_int_equal(manifest_parse(mmlem_manifest, strlen(mmlem_manifest), true, "t", &m, &e), 0);
	const struct pkg_manifest *pkgs[] = {&m};
	struct pi_location loc;
	pi_locate(&cs, 'C', &loc);
	struct boot_input in = {&cs, pi_text ? &pi : NULL, &loc, CHECK_PROTOCOL_INI, false,
				&nif, nif_text ? 1 : 0, pkgs, 1};
	struct check_report rep = {0};
	check_network(&in, &rep);
	check_sort(&rep);
	struct wd_buf b = {0};
	for (size_t i = 0; i < rep.n; i++)
		wd_buf_addf(&b, "%s%s@%zu", i ? " " : "", rep.v[i].code, rep.v[i].line);
	wd_buf_cstr(&b);
	check_report_free(&rep);
	pi_location_free(&loc);
	manifest_free(&m);
	if (nif_text)
		nif_free(&nif.nif);
	if (pi_text)
		protocol_ini_free(&pi);
	config_sys_free(&cs);
	return b.p;
}

static void expect(const char *cs, const char *pi, const char *nif, const char *want)
{
	char *got = run(cs, pi, nif);
	assert_string_equal(got, want);
	free(got);
}

static void test_healthy_two_instances(void **state)
{
	(void)state;
	expect(cs_ok, pi_ok, NULL, "");
}

static void test_each_rule(void **state)
{
	(void)state;
	/* NETBIND before the MAC, PROTMAN after it. */
	expect("CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
	       "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\n",
	       pi_ok, NULL, "netbind-order@1 protman-order@4");
	/* The second instance has no section. */
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
	       "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n",
	       pi_ok, NULL, "no-netbind@4 mac-no-section@4");
	/* Only one instance loaded: the second section has no driver. */
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nREM DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
	       "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n",
	       pi_ok, NULL, "no-netbind@3 section-no-driver@14");
	/* A binding and an [IBMLXCFG] entry naming nothing; one DriverName twice. */
	char *pi = wd_xasprintf("%s[X_nif]\r\n   DriverName = mmlem$\r\n[p]\r\n   Bindings = ,NOPE_nif\r\n",
				pi_ok);
	char *at = strstr(pi, "   MMLEM_nif2 = MMLEM.NIF\r\n");
	char *pi2 = wd_xasprintf("%.*s   GONE_nif = GONE.NIF\r\n%s", (int)(at - pi), pi, at);
	expect(cs_ok, pi2, NULL, "lxcfg-unknown@6 drivername-twice@18 binding-unknown@20");
	free(pi2);
	free(pi);
	/* No PROTOCOL.INI. */
	expect(cs_ok, NULL, NULL, "protocol-ini-missing@1");
	expect("REM nothing networked\r\n", NULL, NULL, "");
}

static void test_nif_names_the_driver(void **state)
{
	(void)state;
	/* The driver lives outside \IBMCOM\MACS and is called X.OS2, but its NIF
	 * says DriverName = ODD$: the section is matched through it. */
	static const char nif[] = "[ODD]\r\nType = NDIS\r\nDriverName = ODD$\r\n[FILE]\r\nName = X.OS2\r\n";
	static const char cs[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\DRV\\X.OS2\r\n";
	expect(cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[ODD_nif]\r\n   DriverName = ODD$\r\n", nif, "");
	expect(cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n", nif, "mac-no-section@2");
	/* A section of the NIF's driver is a MAC section though nothing binds it. */
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\n",
	       "[ODD_nif]\r\n   DriverName = ODD$\r\n[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n", nif,
	       "section-no-driver@1");
	/* [NETBIOS]-like sections are neither bound nor a NIF's: not judged. */
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\n",
	       "[NETBIOS]\r\n   DriverName = netbios$\r\n[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n",
	       nif, "");
}

static void test_mpts_rsp_body_is_healthy(void **state)
{
	(void)state;
	char *p = sample_path("vbox-unattended/MPTS.RSP");
	SKIP_WITHOUT_SAMPLES(p);
	struct wd_buf b = {0};
	slurp(p, &b);
	free(p);
	char *start = strstr(b.p, "PROTOCOL = (\n") + strlen("PROTOCOL = (\n");
	char *end = strstr(start, "\n)");
	char *body = wd_xstrndup(start, (size_t)(end + 1 - start));
	/* The IBM Ethernet driver the response file configures, loaded MPTS's way. */
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\nDEVICE=C:\\IBMCOM\\MACS\\IBMEAN.OS2\r\n"
	       "DEVICE=C:\\IBMCOM\\PROTOCOL\\NETBEUI.OS2\r\nCALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n",
	       body, NULL, "");
	free(body);
	wd_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_two_instances),
		cmocka_unit_test(test_each_rule),
		cmocka_unit_test(test_nif_names_the_driver),
		cmocka_unit_test(test_mpts_rsp_body_is_healthy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
