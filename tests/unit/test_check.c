/* The networking rules of warpdrv check on models built from text: each rule
 * fires where it should, and a healthy MPTS set-up gives nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "installer/acpi_plan.h"
#include "installer/boot_critical.h"
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
	struct boot_input in = {.cs = &cs, .pi = pi_text ? &pi : NULL, .loc = &loc,
				.pi_label = CHECK_PROTOCOL_INI, .nifs = &nif,
				.nnifs = nif_text ? 1 : 0, .pkgs = pkgs, .npkgs = 1};
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

/* A model of texts, with the MMLEM package known. */
struct texts {
	struct config_sys cs;
	struct protocol_ini pi;
	struct pi_location loc;
	struct pkg_manifest m;
	const struct pkg_manifest *pkgs[1];
	struct boot_model model;
};

static void model_of(struct texts *t, const char *cs, const char *pi)
{
	struct wd_err e;
	config_sys_parse(&t->cs, cs, strlen(cs));
	protocol_ini_parse(&t->pi, pi, strlen(pi));
	pi_locate(&t->cs, 'C', &t->loc);
	assert_int_equal(manifest_parse(mmlem_manifest, strlen(mmlem_manifest), true, "t", &t->m, &e), 0);
	t->pkgs[0] = &t->m;
	struct boot_input in = {.cs = &t->cs, .pi = &t->pi, .loc = &t->loc,
				.pi_label = CHECK_PROTOCOL_INI, .pkgs = t->pkgs, .npkgs = 1};
	boot_model_build(&t->model, &in);
}

static void texts_free(struct texts *t)
{
	boot_model_free(&t->model);
	manifest_free(&t->m);
	pi_location_free(&t->loc);
	protocol_ini_free(&t->pi);
	config_sys_free(&t->cs);
}

/* The postcondition against plans made wrong on purpose: each is refused
 * with its reason; the right plan passes. */
static void test_postcondition_refuses_wrong_plans(void **state)
{
	(void)state;
	static const char cs1[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
				  "DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n"
				  "CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
	static const char pi1[] = "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n"
				  "[tcpip_nif]\r\n   DriverName = TCPIP$\r\n   Bindings = ,E1000_nif\r\n"
				  "[E1000_nif]\r\n   DriverName = E1000$\r\n";
	static const char cs2[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
				  "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
				  "CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
	static const char right[] = "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n"
				    "[tcpip_nif]\r\n   DriverName = TCPIP$\r\n   Bindings = ,MMLEM_nif\r\n"
				    "[MMLEM_nif]\r\n   DriverName = MMLEM$\r\n";
	struct {
		const char *cs, *pi, *want;
	} plans[] = {
		/* the right plan */
		{cs2, right, NULL},
		/* TCP/IP left bound to the section of the driver that goes */
		{cs2, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = TCPIP$\r\n"
		      "   Bindings = ,E1000_nif\r\n[MMLEM_nif]\r\n   DriverName = MMLEM$\r\n",
		 "[tcpip_nif] was bound to [E1000_nif] at position 2 and would be bound to "
		 "[E1000_nif] there instead of [MMLEM_nif]"},
		/* bound at another position */
		{cs2, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = TCPIP$\r\n"
		      "   Bindings = MMLEM_nif\r\n[MMLEM_nif]\r\n   DriverName = MMLEM$\r\n",
		 "at position 2 and would be bound to nothing there"},
		/* the section keeps the old DriverName: no loaded driver answers */
		{cs2, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = TCPIP$\r\n"
		      "   Bindings = ,MMLEM_nif\r\n[MMLEM_nif]\r\n   DriverName = E1000$\r\n",
		 "[tcpip_nif] would be bound to MMLEM_nif, which no driver loaded by CONFIG.SYS "
		 "answers to"},
		/* NETBIND lost on the way: an error the old files did not have */
		{"DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n",
		 right, "after it, CONFIG.SYS line 2: no CALL= line runs NETBIND.EXE"},
	};
	struct texts old;
	model_of(&old, cs1, pi1);
	struct boot_change ch = {"E1000_nif", "MMLEM_nif"};
	for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
		struct texts now;
		model_of(&now, plans[i].cs, plans[i].pi);
		struct wd_err e = {0};
		int r = boot_postcondition(&old.model, &now.model, &ch, 1, &e);
		if (!plans[i].want) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, -WD_EFAIL);
			if (!strstr(e.msg, plans[i].want))
				fail_msg("plan %zu: %s", i, e.msg);
			assert_non_null(strstr(e.msg, "nothing was written"));
		}
		texts_free(&now);
	}
	texts_free(&old);
}

/* PROTMAN's /I: names the PROTOCOL.INI: on this volume, on another drive,
 * or PROTMAN's own folder without it. */
static void test_protman_switch_names_the_file(void **state)
{
	(void)state;
	struct {
		const char *line, *path;
		enum pi_where where;
		char drive;
	} cases[] = {
		{"DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n", "IBMCOM\\PROTOCOL.INI", PI_ON_VOLUME, 'C'},
		{"DEVICE=I:\\IBMCOM\\PROTMAN.OS2 /I:I:\\IBMCOM\r\n", "IBMCOM\\PROTOCOL.INI", PI_OTHER_DRIVE, 'I'},
		{"DEVICE=C:\\LANMAN\\DRIVERS\\PROTMAN\\PROTMAN.OS2 /i:C:\\LANMAN\r\n", "LANMAN\\PROTOCOL.INI",
		 PI_ON_VOLUME, 'C'},
		{"DEVICE=C:\\MPTS\\PROTMAN.OS2\r\n", "MPTS\\PROTOCOL.INI", PI_ON_VOLUME, 'C'},
		{"REM DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\n", "IBMCOM\\PROTOCOL.INI", PI_NO_PROTMAN, 'C'},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct config_sys cs;
		config_sys_parse(&cs, cases[i].line, strlen(cases[i].line));
		struct pi_location loc;
		pi_locate(&cs, 'C', &loc);
		assert_string_equal(loc.path, cases[i].path);
		assert_int_equal(loc.where, cases[i].where);
		assert_int_equal(loc.drive, cases[i].drive);
		pi_location_free(&loc);
		config_sys_free(&cs);
	}
}

/* LAN Manager's block: no MPTS rule fires, one warning says why. */
static void test_lan_manager_raises_no_error(void **state)
{
	(void)state;
	expect("REM === DO NOT MODIFY BETWEEN THESE LINES === DO NOT MODIFY BETWEEN THESE LINES ===\r\n"
	       "DEVICE=C:\\LANMAN\\DRIVERS\\PROTMAN\\PROTMAN.OS2 /i:C:\\LANMAN\r\n"
	       "DEVICE=C:\\LANMAN\\DRIVERS\\ETHERNET\\ELNKII\\ELNKII.OS2\r\n",
	       "[PROTOCOL MANAGER]\r\n   DRIVERNAME = PROTMAN$\r\n[NETBEUI_XIF]\r\n   Drivername = "
	       "netbeui$\r\n   BINDINGS = ELNKII_NIF\r\n", NULL, "not-mpts@1");
}

/* The rules the issue found missing, each sure: no NETBIND; NetBEUI bound
 * while its driver is gone; MAC lines without PROTMAN; a PROTOCOL.INI
 * without PROTMAN's section. */
static void test_network_that_cannot_start(void **state)
{
	(void)state;
	static const char pi_nb[] = "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n"
				    "[NETBEUI_nif]\r\n   DriverName = netbeui$\r\n   Bindings = MMLEM_nif\r\n"
				    "[MMLEM_nif]\r\n   DriverName = MMLEM$\r\n";
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n", pi_nb, NULL,
	       "no-netbind@2 protocol-not-loaded@5");
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
	       "DEVICE=C:\\IBMCOM\\PROTOCOL\\NETBEUI.OS2\r\nCALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n",
	       pi_nb, NULL, "");
	expect("DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\nDEVICE=C:\\IBMCOM\\PROTOCOL\\NETBEUI.OS2\r\n"
	       "CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n", pi_nb, NULL, "mac-without-protman@1");
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n", "\x01\x02binary",
	       NULL, "protocol-ini-not-mpts@0");
	expect("DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n", "", NULL,
	       "protocol-ini-not-mpts@0");
}

/* A driver no NIF or package names: its guessed DriverName is a warning
 * while a section could be its, an error when none could. */
static void test_guessed_drivername_is_a_warning(void **state)
{
	(void)state;
	static const char cs[] = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nDEVICE=C:\\IBMCOM\\MACS\\NE2000.OS2\r\n"
				 "CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
	char *got = run(cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = "
			"TCPIP$\r\n   Bindings = NE2000_nif\r\n[NE2000_nif]\r\n   DriverName = MS2000$\r\n",
			NULL);
	/* the one bound section no other driver answers to is taken for the
	 * guessed load's (pair_by_elimination): one warning, saying so */
	assert_string_equal(got, "mac-no-section@2");
	free(got);
	struct texts t;
	model_of(&t, cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = "
		 "TCPIP$\r\n   Bindings = NE2000_nif\r\n[NE2000_nif]\r\n   DriverName = MS2000$\r\n");
	assert_int_equal(t.model.rep.errors, 0);
	assert_non_null(strstr(t.model.rep.v[0].message, "could not be verified"));
	assert_non_null(strstr(t.model.rep.v[0].message, "[NE2000_nif] is the one bound MAC section"));
	assert_int_equal(t.model.mac[0].section, 2);
	assert_string_equal(t.model.mac[0].drivername, "MS2000$");
	texts_free(&t);
	/* two bound sections either could be: no pairing, the warnings as before */
	got = run(cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n[tcpip_nif]\r\n   DriverName = "
		  "TCPIP$\r\n   Bindings = NE2000_nif,B_nif\r\n[NE2000_nif]\r\n   DriverName = "
		  "MS2000$\r\n[B_nif]\r\n   DriverName = B$\r\n", NULL);
	assert_string_equal(got, "mac-no-section@2 section-no-driver@6 section-no-driver@8");
	free(got);
	/* No section it could answer to: sure. */
	model_of(&t, cs, "[PROT_MAN]\r\n   DriverName = PROTMAN$\r\n");
	assert_int_equal(t.model.rep.errors, 1);
	texts_free(&t);
}

/* ---- boot-critical statements (installer/boot_critical.c) ---- */

static int class_of(const char *keyword, const char *file)
{
	const struct bc_entry *e = boot_critical_match(wd_sv_cstr(keyword), wd_sv_cstr(file));
	return e ? (int)e->cls : -1;
}

static void test_boot_critical_table_matches(void **state)
{
	(void)state;
	assert_int_equal(class_of("BASEDEV", "OS2DASD.DMD"), BC_DISK_MANAGER);
	assert_int_equal(class_of("basedev", "os2dasd.dmd"), BC_DISK_MANAGER);
	assert_int_equal(class_of("BASEDEV", "DANIS506.ADD"), BC_DISK_ADAPTER);
	assert_int_equal(class_of("BASEDEV", "ibm1s506.add"), BC_DISK_ADAPTER);
	assert_int_equal(class_of("BASEDEV", "APM.ADD"), BC_NONE);
	assert_int_equal(class_of("IFS", "JFS.IFS"), BC_BOOT_IFS);
	assert_int_equal(class_of("ifs", "hpfs.ifs"), BC_BOOT_IFS);
	assert_int_equal(class_of("DEVICE", "PROTMAN.OS2"), BC_PROTMAN);
	assert_int_equal(class_of("CALL", "NETBIND.EXE"), BC_NETBIND);
	assert_int_equal(class_of("RUN", "NETBIND.EXE"), BC_NETBIND);
	/* Other keywords, files and bare extensions are not critical. */
	assert_int_equal(class_of("DEVICE", "OS2DASD.DMD"), -1);
	assert_int_equal(class_of("BASEDEV", ".ADD"), -1);
	assert_int_equal(class_of("BASEDEV", "OS2LVM.DMD"), -1);
	assert_int_equal(class_of("IFS", "CDFS.IFS"), -1);
	assert_int_equal(class_of("BASEDEV", "DANIS506.ADDX"), -1);
	static const char cs_text[] = "REM BASEDEV=OS2DASD.DMD\r\nBASEDEV=C:\\OS2\\BOOT\\OS2DASD.DMD /V\r\n"
				      "BASEDEV=APM.ADD\r\nIFS=D:\\OS2\\JFS.IFS /AUTOCHECK:D\r\n";
	struct config_sys cs;
	config_sys_parse(&cs, cs_text, strlen(cs_text));
	assert_null(boot_critical_line(&cs, 0));
	assert_int_equal(boot_critical_line(&cs, 1)->cls, BC_DISK_MANAGER);
	assert_null(boot_critical_line(&cs, 2));
	assert_int_equal(boot_critical_line(&cs, 3)->cls, BC_BOOT_IFS);
	config_sys_free(&cs);
}

static const char bc_config[] = "IFS=C:\\OS2\\JFS.IFS /LW:5,20,4\r\n"
				"IFS=C:\\OS2\\HPFS.IFS /CACHE:2048\r\n"
				"DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
				"BASEDEV=IBM1S506.ADD\r\n"
				"BASEDEV=IBM1S506.ADD\r\n"
				"BASEDEV=OS2DASD.DMD\r\n"
				"PSD=OS2APIC.PSD\r\n"
				"CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";

/* The guard on orig and orig edited by f; its result and message. */
static int guarded(void (*f)(struct config_sys *), struct wd_err *e)
{
	struct config_sys orig, now;
	config_sys_parse(&orig, bc_config, strlen(bc_config));
	config_sys_parse(&now, bc_config, strlen(bc_config));
	f(&now);
	memset(e, 0, sizeof *e);
	int r = boot_critical_guard(&orig, &now, "evil 1.0", e);
	config_sys_free(&orig);
	config_sys_free(&now);
	return r;
}
static void edit_none(struct config_sys *cs) { (void)cs; }
static void edit_move_and_add(struct config_sys *cs)
{
	/* PROTMAN moved to the end, a new adapter driver and a PSD change. */
	config_sys_delete(cs, 2);
	config_sys_append(cs, "DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM");
	config_sys_insert_after(cs, 0, "BASEDEV=OS2AHCI.ADD");
	assert_true(config_sys_find(cs, 0, "PSD", "OS2APIC.PSD") == 6);
	config_sys_replace(cs, 6, "PSD=ACPI.PSD");
}
static void edit_delete_dasd(struct config_sys *cs) { config_sys_delete(cs, 5); }
static void edit_rewrite_jfs(struct config_sys *cs) { config_sys_replace(cs, 0, "IFS=C:\\OS2\\JFS.IFS"); }
static void edit_rem_netbind(struct config_sys *cs)
{
	config_sys_replace(cs, 7, "REM CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE");
}
static void edit_one_of_two(struct config_sys *cs) { config_sys_delete(cs, 4); }
static void edit_many(struct config_sys *cs)
{
	config_sys_delete(cs, 5);
	config_sys_delete(cs, 4);
	config_sys_delete(cs, 1);
}

static void test_boot_critical_guard(void **state)
{
	(void)state;
	struct wd_err e;
	assert_int_equal(guarded(edit_none, &e), 0);
	assert_int_equal(guarded(edit_move_and_add, &e), 0);
	assert_int_equal(guarded(edit_delete_dasd, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "evil 1.0 would remove or rewrite CONFIG.SYS line 6, "
				      "'BASEDEV=OS2DASD.DMD'"));
	assert_non_null(strstr(e.msg, "disk device manager"));
	assert_non_null(strstr(e.msg, "nothing was written"));
	assert_int_equal(guarded(edit_rewrite_jfs, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "line 1, 'IFS=C:\\OS2\\JFS.IFS /LW:5,20,4'"));
	assert_int_equal(guarded(edit_rem_netbind, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "line 8"));
	assert_non_null(strstr(e.msg, "NETBIND"));
	/* Two equal lines are two statements: one of them gone is refused. */
	assert_int_equal(guarded(edit_one_of_two, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "line 5, 'BASEDEV=IBM1S506.ADD'"));
	assert_int_equal(guarded(edit_many, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "line 2, 'IFS=C:\\OS2\\HPFS.IFS /CACHE:2048' (and 2 more such lines)"));
}

/* The ACPI planner applies a config-displace of the disk driver: the
 * manifest is refused up front, and the guard refuses the plan's result. */
static void test_boot_critical_displace_refused(void **state)
{
	(void)state;
	static const char manifest[] =
		"format 1\nname evil\nversion 2\nreleased 2024-01-01\nsummary s\nkind psd\n"
		"file ACPI.PSD \\OS2\\BOOT\\ACPI.PSD\nconfig-need PSD ACPI.PSD\n"
		"config-displace PSD OS2APIC.PSD\nconfig-displace BASEDEV OS2DASD.DMD\n";
	struct pkg_manifest m;
	struct wd_err e = {0};
	assert_int_equal(manifest_parse(manifest, strlen(manifest), true, "t", &m, &e), 0);
	struct config_sys orig, now;
	config_sys_parse(&orig, bc_config, strlen(bc_config));
	config_sys_parse(&now, bc_config, strlen(bc_config));
	assert_int_equal(boot_critical_manifest(&m, &orig, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "evil 2: its manifest says 'config-displace BASEDEV "
				      "OS2DASD.DMD', which would remove CONFIG.SYS line 6"));
	assert_int_equal(boot_critical_manifest(&m, NULL, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "any BASEDEV=OS2DASD.DMD line"));
	assert_true(acpi_plan(&m, 'C', &now) > 0);
	assert_int_equal(boot_critical_guard(&orig, &now, "evil 2", &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "line 6, 'BASEDEV=OS2DASD.DMD'"));
	manifest_free(&m);
	/* The real ACPI package's directives pass. */
	static const char acpi[] =
		"format 1\nname acpi-psd\nversion 1\nreleased 2024-01-01\nsummary s\nkind psd\n"
		"file ACPI.PSD \\OS2\\BOOT\\ACPI.PSD\nfile APM.ADD \\OS2\\BOOT\\APM.ADD\n"
		"config-need PSD ACPI.PSD\nconfig-need BASEDEV APM.ADD\n"
		"config-displace PSD OS2APIC.PSD\nconfig-displace BASEDEV APM.SYS\n"
		"config-displace DEVICE APM.SYS\nconfig-displace BASEDEV APM.ADD\n";
	assert_int_equal(manifest_parse(acpi, strlen(acpi), true, "t", &m, &e), 0);
	assert_int_equal(boot_critical_manifest(&m, &orig, &e), 0);
	config_sys_free(&now);
	config_sys_parse(&now, bc_config, strlen(bc_config));
	assert_true(acpi_plan(&m, 'C', &now) > 0);
	assert_int_equal(boot_critical_guard(&orig, &now, "acpi-psd 1", &e), 0);
	manifest_free(&m);
	config_sys_free(&orig);
	config_sys_free(&now);
}

/* check's rules on a CONFIG.SYS and facts: "code:key code:key ...". */
static char *boot_rules_wps(const char *cs_text, enum bc_fs fs, bool holds_ifs, bool wps)
{
	struct config_sys cs;
	config_sys_parse(&cs, cs_text, strlen(cs_text));
	struct bc_volume_facts f = {fs, holds_ifs, wps, 'D'};
	struct check_report rep = {0};
	boot_critical_rules(&cs, &f, &rep);
	struct wd_buf b = {0};
	for (size_t i = 0; i < rep.n; i++) {
		assert_int_equal(rep.v[i].severity, CHECK_ERROR);
		assert_int_equal(rep.v[i].line, 0);
		assert_true(strlen(rep.v[i].message) > 40);
		wd_buf_addf(&b, "%s%s:%s", i ? " " : "", rep.v[i].code, rep.v[i].key);
	}
	wd_buf_cstr(&b);
	assert_int_equal(rep.errors, rep.n);
	check_report_free(&rep);
	config_sys_free(&cs);
	return b.p;
}
static char *boot_rules_of(const char *cs_text, enum bc_fs fs, bool holds_ifs)
{
	return boot_rules_wps(cs_text, fs, holds_ifs, false);
}
static void expect_boot(const char *cs, enum bc_fs fs, bool holds_ifs, const char *want)
{
	char *got = boot_rules_of(cs, fs, holds_ifs);
	assert_string_equal(got, want);
	free(got);
}

static void test_boot_critical_check_rules(void **state)
{
	(void)state;
	static const char disk[] = "BASEDEV=DANIS506.ADD\r\nBASEDEV=OS2DASD.DMD\r\n";
	static const char jfs[] = "IFS=D:\\OS2\\JFS.IFS\r\n";
	char *ok = wd_xasprintf("%s%s", disk, jfs);
	expect_boot(ok, BC_FS_UNKNOWN, true, "");
	expect_boot(ok, BC_FS_HPFS, true, ""); /* JFS loaded: not this rule's to judge */
	free(ok);
	/* No disk manager; no adapter driver (APM.ADD does not count); neither. */
	expect_boot("BASEDEV=DANIS506.ADD\r\nREM BASEDEV=OS2DASD.DMD\r\nIFS=JFS.IFS\r\n",
		    BC_FS_UNKNOWN, true, "no-disk-driver:OS2DASD.DMD");
	expect_boot("BASEDEV=APM.ADD\r\nBASEDEV=OS2DASD.DMD\r\nIFS=JFS.IFS\r\n", BC_FS_UNKNOWN,
		    true, "no-disk-driver:*.ADD");
	expect_boot("PSD=ACPI.PSD\r\nIFS=HPFS.IFS\r\n", BC_FS_UNKNOWN, true,
		    "no-disk-driver:OS2DASD.DMD no-disk-driver:*.ADD");
	expect_boot("REM BASEDEV=OS2DASD.DMD\r\nIFS=HPFS.IFS\r\n", BC_FS_UNKNOWN, true,
		    "no-disk-driver:OS2DASD.DMD no-disk-driver:*.ADD");
	expect_boot("SET RUNWORKPLACE=C:\\OS2\\PMSHELL.EXE\r\nIFS=HPFS.IFS\r\n", BC_FS_UNKNOWN,
		    true, "no-disk-driver:OS2DASD.DMD no-disk-driver:*.ADD");
	/* No sign of OS/2 2.0 (no BASEDEV=, PSD= or RUNWORKPLACE, no Workplace
	 * Shell): OS/2 1.x or a LAN Manager boot disk, whose kernel loads the
	 * disk driver itself: not this rule's. With the Workplace Shell on the
	 * volume it is 2.0 or later again. */
	expect_boot("IFS=HPFS.IFS\r\nDEVICE=C:\\LANMAN\\DRIVERS\\PROTMAN\\PROTMAN.OS2\r\n",
		    BC_FS_UNKNOWN, true, "");
	expect_boot("REM BASEDEVICE=X\r\nIFS=HPFS.IFS\r\n", BC_FS_UNKNOWN, true, "");
	char *got = boot_rules_wps("IFS=HPFS.IFS\r\n", BC_FS_UNKNOWN, true, true);
	assert_string_equal(got, "no-disk-driver:OS2DASD.DMD no-disk-driver:*.ADD");
	free(got);
	/* No JFS or HPFS line: FAT needs none; a mounted HPFS or JFS volume
	 * does; an unknown one does when it holds their driver. */
	expect_boot(disk, BC_FS_FAT, true, "");
	expect_boot(disk, BC_FS_HPFS, false, "no-boot-ifs:HPFS");
	expect_boot(disk, BC_FS_JFS, false, "no-boot-ifs:JFS");
	expect_boot(disk, BC_FS_UNKNOWN, true, "no-boot-ifs:");
	expect_boot(disk, BC_FS_UNKNOWN, false, "");
	char *rem = wd_xasprintf("%sREM IFS=D:\\OS2\\JFS.IFS\r\nIFS=D:\\OS2\\BOOT\\CDFS.IFS\r\n", disk);
	expect_boot(rem, BC_FS_UNKNOWN, true, "no-boot-ifs:");
	free(rem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_two_instances),
		cmocka_unit_test(test_each_rule),
		cmocka_unit_test(test_nif_names_the_driver),
		cmocka_unit_test(test_mpts_rsp_body_is_healthy),
		cmocka_unit_test(test_postcondition_refuses_wrong_plans),
		cmocka_unit_test(test_protman_switch_names_the_file),
		cmocka_unit_test(test_lan_manager_raises_no_error),
		cmocka_unit_test(test_network_that_cannot_start),
		cmocka_unit_test(test_guessed_drivername_is_a_warning),
		cmocka_unit_test(test_boot_critical_table_matches),
		cmocka_unit_test(test_boot_critical_guard),
		cmocka_unit_test(test_boot_critical_displace_refused),
		cmocka_unit_test(test_boot_critical_check_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
