/* The CONFIG.SYS model: real files round-trip byte for byte and read as the
 * statements they hold; edits change only their lines; the boot drive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "os2/boot_drive.h"
#include "os2/config_sys.h"
#include "tests/unit/testutil.h"

static void assert_round_trip(const char *data, size_t n)
{
	struct config_sys cs;
	config_sys_parse(&cs, data, n);
	struct wd_buf out = {0};
	config_sys_write(&cs, &out);
	assert_int_equal(out.len, n);
	if (n)
		assert_memory_equal(out.p, data, n);
	wd_buf_free(&out);
	config_sys_free(&cs);
}

static void load(struct config_sys *cs, const char *path)
{
	struct wd_buf b = {0};
	slurp(path, &b);
	config_sys_parse(cs, b.p ? b.p : "", b.len);
	wd_buf_free(&b);
}

static char *text_of(const struct config_sys *cs)
{
	struct wd_buf b = {0};
	config_sys_write(cs, &b);
	wd_buf_cstr(&b);
	return b.p;
}

static void test_samples_round_trip(void **state)
{
	(void)state;
	static const char *const files[] = {"os2yum/CONFIG.SYS", "updcd/CONFIG.SYS",
					    "updcd/CONFIG.CP", "updcd/TCPIP.RSP",
					    "vbox-unattended/CONFIG.SYS", NULL};
	char *probe = sample_path("os2yum/CONFIG.SYS");
	SKIP_WITHOUT_SAMPLES(probe);
	free(probe);
	for (int i = 0; files[i]; i++) {
		char *p = sample_path(files[i]);
		struct wd_buf b = {0};
		slurp(p, &b);
		assert_true(b.len > 100);
		assert_round_trip(b.p, b.len);
		wd_buf_free(&b);
		free(p);
	}
}

static void test_fixtures_round_trip(void **state)
{
	(void)state;
	for (int i = 0; fixture_volumes[i]; i++) {
		char *rel = wd_path_join(fixture_volumes[i], "CONFIG.SYS");
		char *p = fixture_path(rel);
		struct wd_buf b = {0};
		slurp(p, &b);
		assert_round_trip(b.p, b.len);
		/* Fixtures are what OS/2 needs: CR LF on every line. */
		struct config_sys cs;
		config_sys_parse(&cs, b.p, b.len);
		assert_int_equal(tl_count_lf_only(&cs.t, NULL), 0);
		config_sys_free(&cs);
		wd_buf_free(&b);
		free(p);
		free(rel);
	}
}

static void test_os2yum_statements(void **state)
{
	(void)state;
	char *p = sample_path("os2yum/CONFIG.SYS");
	SKIP_WITHOUT_SAMPLES(p);
	struct config_sys cs;
	load(&cs, p);
	free(p);
	/* GenMac is loaded twice (two adapters), on lines 46 and 47. */
	long a = config_sys_find(&cs, 0, "DEVICE", "genm32w.os2");
	assert_int_equal(a, 45);
	assert_int_equal(config_sys_find(&cs, (size_t)a + 1, "device", "GENM32W.OS2"), 46);
	assert_int_equal(config_sys_find(&cs, 47, "DEVICE", "GENM32W.OS2"), -1);
	struct cs_stmt st;
	assert_true(config_sys_stmt(&cs, 45, &st));
	assert_true(st.loads);
	assert_int_equal(st.drive, 'C');
	assert_true(wd_sv_eq(st.dir, "\\IBMCOM\\MACS\\"));
	assert_true(wd_sv_eq(st.name, "GENM32W.OS2"));
	/* PROTMAN with its switch. */
	long pm = config_sys_find(&cs, 0, "DEVICE", "PROTMAN.OS2");
	assert_int_equal(pm, 13);
	assert_true(config_sys_stmt(&cs, (size_t)pm, &st));
	assert_true(wd_sv_eq(st.args, "/I:C:\\IBMCOM"));
	/* A REMmed statement is no statement: TESTCFG.SYS is only in a REM. */
	assert_true(config_sys_is_rem(&cs, 14));
	assert_false(config_sys_stmt(&cs, 14, &st));
	assert_int_equal(config_sys_find(&cs, 0, NULL, "TESTCFG.SYS"), -1);
	/* BASEDEV=USBUHCD.SYS four times. */
	int n = 0;
	for (long i = -1; (i = config_sys_find(&cs, (size_t)(i + 1), "BASEDEV", "USBUHCD.SYS")) >= 0;)
		n++;
	assert_int_equal(n, 4);
	/* MPTSTART: once REMmed, once active; find gives the active one. */
	long call = config_sys_find(&cs, 0, "CALL", "CMD.EXE");
	assert_true(call > 0);
	assert_true(config_sys_stmt(&cs, (size_t)call, &st));
	assert_true(wd_sv_eq(st.args, "/Q /C C:\\MPTN\\BIN\\MPTSTART.CMD >NUL"));
	assert_true(config_sys_is_rem(&cs, (size_t)call - 2));
	/* SET statements. */
	long set = config_sys_find(&cs, 0, "SET", NULL);
	assert_true(config_sys_stmt(&cs, (size_t)set, &st));
	assert_true(wd_sv_eq(st.setvar, "PATH"));
	assert_true(wd_sv_istarts(st.value, "PATH=C:\\MPTN\\BIN;"));
	assert_int_equal(boot_drive_detect(&cs), 'C');
	config_sys_free(&cs);
}

static void test_updcd_lowercase_no_drive(void **state)
{
	(void)state;
	char *p = sample_path("updcd/CONFIG.SYS");
	SKIP_WITHOUT_SAMPLES(p);
	struct config_sys cs;
	load(&cs, p);
	free(p);
	long d = config_sys_find(&cs, 0, "DEVICE", "DOS.SYS");
	assert_true(d >= 0);
	struct cs_stmt st;
	assert_true(config_sys_stmt(&cs, (size_t)d, &st));
	assert_true(wd_sv_eq(st.keyword, "device"));
	assert_int_equal(st.drive, 0);
	assert_true(wd_sv_eq(st.dir, "\\"));
	assert_true(wd_sv_eq(st.name, "dos.sys"));
	long ifs = config_sys_find(&cs, 0, "IFS", "HPFS.IFS");
	assert_true(config_sys_stmt(&cs, (size_t)ifs, &st));
	assert_int_equal(st.dir.n, 0);
	assert_true(wd_sv_eq(st.args, "/c:2048"));
	/* The last line has no line ending and still reads. */
	size_t last = config_sys_lines(&cs) - 1;
	assert_int_equal(cs.t.v[last].eol, 0);
	assert_true(config_sys_stmt(&cs, last, &st));
	assert_true(wd_sv_eq(st.name, "CMD.EXE"));
	assert_true(wd_sv_eq(st.args, "/K WELCOME.CMD"));
	/* "rem CALL=CACHEF32.EXE" is a remark. */
	assert_int_equal(config_sys_find(&cs, 0, "CALL", "CACHEF32.EXE"), -1);
	/* No drive in any \OS2 path: nothing detected, C: by default. */
	assert_int_equal(boot_drive_detect(&cs), 0);
	struct volume v = {0};
	boot_drive_set(&v, 0, &cs);
	assert_int_equal(v.boot_drive, 'C');
	config_sys_free(&cs);
}

static void test_vbox_unattended_spacing(void **state)
{
	(void)state;
	char *p = sample_path("vbox-unattended/CONFIG.SYS");
	SKIP_WITHOUT_SAMPLES(p);
	struct config_sys cs;
	load(&cs, p);
	free(p);
	long lp = config_sys_find(&cs, 0, "LIBPATH", NULL);
	assert_true(lp > 0);
	struct cs_stmt st;
	assert_true(config_sys_stmt(&cs, (size_t)lp, &st));
	assert_true(wd_sv_eq(st.keyword, "LIBPATH"));
	long set = config_sys_find(&cs, 0, "SET", NULL);
	assert_true(config_sys_stmt(&cs, (size_t)set, &st));
	assert_true(wd_sv_eq(st.keyword, "SET"));
	assert_true(wd_sv_eq(st.setvar, "PATH"));
	/* LIBPATH's C:\OS2\DLL wins over OS2_SHELL's S:\OS2IMAGE. */
	assert_int_equal(boot_drive_detect(&cs), 'C');
	config_sys_free(&cs);
}

static void test_odd_bytes_round_trip(void **state)
{
	(void)state;
	static const char mixed[] = "REM mixed\r\nDEVICE=C:\\A.SYS\nBASEDEV=B.ADD\r\n\r\n\n"
				    "\tRUN=C:\\OS2\\X.EXE\t\r\nREM \x82\x8a\xa0 code page 850\r\n"
				    "CALL=C:\\OS2\\CMD.EXE /C";
	assert_round_trip(mixed, sizeof mixed - 1);
	static const char ctrlz[] = "DEVICE=C:\\A.SYS\r\nREM end\r\n\x1a";
	assert_round_trip(ctrlz, sizeof ctrlz - 1);
	static const char ctrlz_nonl[] = "DEVICE=C:\\A.SYS\r\nREM end\x1a";
	assert_round_trip(ctrlz_nonl, sizeof ctrlz_nonl - 1);
	assert_round_trip("", 0);
	assert_round_trip("\r\n", 2);
	assert_round_trip("\x1a", 1);
	assert_round_trip("\r", 1);
	struct wd_buf big = {0};
	wd_buf_adds(&big, "LIBPATH=.;");
	for (int i = 0; i < 20000; i++)
		wd_buf_adds(&big, "C:\\OS2\\DLL;");
	wd_buf_adds(&big, "\r\nSET X=\xff\xfe\r\n");
	assert_round_trip(big.p, big.len);
	wd_buf_free(&big);
}

static void test_edits_touch_only_their_lines(void **state)
{
	(void)state;
	static const char in[] = "REM top\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
				 "DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n"
				 "device=c:\\mptn\\protocol\\sockets.sys \t\r\n\x1a";
	struct config_sys cs;
	config_sys_parse(&cs, in, sizeof in - 1);
	long mac = config_sys_find(&cs, 0, "DEVICE", "e1000.os2");
	assert_int_equal(mac, 2);
	assert_int_equal(config_sys_replace(&cs, (size_t)mac, "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2"), 0);
	char *t = text_of(&cs);
	assert_string_equal(t, "REM top\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
			       "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\n"
			       "device=c:\\mptn\\protocol\\sockets.sys \t\r\n\x1a");
	free(t);
	long pm = config_sys_find(&cs, 0, "DEVICE", "PROTMAN.OS2");
	assert_int_equal(config_sys_insert_after(&cs, (size_t)pm, "DEVICE=C:\\IBMCOM\\MACS\\X.OS2"), 0);
	assert_int_equal(config_sys_insert_before(&cs, 0, "REM first"), 0);
	assert_int_equal(config_sys_append(&cs, "REM last"), 0);
	assert_int_equal(config_sys_delete(&cs, 4), 0); /* the MMLEM line */
	t = text_of(&cs);
	assert_string_equal(t, "REM first\r\nREM top\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
			       "DEVICE=C:\\IBMCOM\\MACS\\X.OS2\r\n"
			       "device=c:\\mptn\\protocol\\sockets.sys \t\r\nREM last\r\n\x1a");
	free(t);
	/* Refused: out of range, or a line break inside the text. */
	assert_int_equal(config_sys_replace(&cs, 99, "X=1"), -1);
	assert_int_equal(config_sys_insert_after(&cs, 0, "A=1\r\nB=2"), -1);
	assert_int_equal(config_sys_replace(&cs, 0, "A=1\r"), -1);
	assert_int_equal(config_sys_delete(&cs, 99), -1);
	config_sys_free(&cs);
}

static void test_new_lines_take_the_files_ending(void **state)
{
	(void)state;
	struct config_sys cs;
	/* An LF-only file gets LF; one CR LF anywhere means CR LF. */
	config_sys_parse(&cs, "A=1\nB=2\n", 8);
	config_sys_append(&cs, "C=3");
	char *t = text_of(&cs);
	assert_string_equal(t, "A=1\nB=2\nC=3\n");
	free(t);
	config_sys_free(&cs);
	config_sys_parse(&cs, "A=1\nB=2\r\nD=4", 12);
	config_sys_append(&cs, "C=3");
	t = text_of(&cs);
	/* The last line had no ending: it gains the file's, then the new line. */
	assert_string_equal(t, "A=1\nB=2\r\nD=4\r\nC=3\r\n");
	free(t);
	config_sys_free(&cs);
	/* A new file is written the way OS/2 needs it. */
	config_sys_parse(&cs, "", 0);
	config_sys_append(&cs, "REM new");
	t = text_of(&cs);
	assert_string_equal(t, "REM new\r\n");
	free(t);
	config_sys_free(&cs);
	/* Replacing keeps the line's own ending, even a lone LF in a CR LF file. */
	config_sys_parse(&cs, "A=1\r\nB=2\nC=3\r\n", 14);
	config_sys_replace(&cs, 1, "B=9");
	t = text_of(&cs);
	assert_string_equal(t, "A=1\r\nB=9\nC=3\r\n");
	free(t);
	config_sys_free(&cs);
}

static void test_boot_drive(void **state)
{
	(void)state;
	struct config_sys cs;
	static const char d[] = "PROTSHELL=E:\\OS2\\PMSHELL.EXE\r\nSET OS2_SHELL=F:\\OS2\\CMD.EXE\r\n"
				"LIBPATH=.;X:\\OS2LIB;D:\\OS2\\DLL;\r\n";
	config_sys_parse(&cs, d, sizeof d - 1);
	assert_int_equal(boot_drive_detect(&cs), 'D'); /* LIBPATH first; X:\OS2LIB is no \OS2 */
	struct volume v = {0};
	boot_drive_set(&v, 'G', &cs);
	assert_int_equal(v.boot_drive, 'G');
	config_sys_free(&cs);
	static const char e[] = "PROTSHELL=e:\\os2\\pmshell.exe\r\nSET OS2_SHELL=F:\\OS2\\CMD.EXE\r\n";
	config_sys_parse(&cs, e, sizeof e - 1);
	assert_int_equal(boot_drive_detect(&cs), 'F'); /* OS2_SHELL before PROTSHELL */
	config_sys_free(&cs);
	static const char f[] = "protshell=e:\\os2\\pmshell.exe\r\n";
	config_sys_parse(&cs, f, sizeof f - 1);
	assert_int_equal(boot_drive_detect(&cs), 'E');
	config_sys_free(&cs);
}

static void test_fixture_volumes_open(void **state)
{
	(void)state;
	static const char drives[] = "CDCC";
	for (int i = 0; fixture_volumes[i]; i++) {
		char *root = fixture_path(fixture_volumes[i]);
		struct volume v;
		struct config_sys cs;
		struct wd_err e;
		assert_int_equal(boot_volume_open(&v, &cs, root, 0, &e), 0);
		assert_int_equal(v.boot_drive, drives[i]);
		assert_true(config_sys_find(&cs, 0, "DEVICE", "PROTMAN.OS2") > 0);
		/* Any spelling finds the file, whatever the folders are on disk. */
		char *host;
		bool found;
		assert_int_equal(volume_resolve(&v, "C:\\ibmcom\\Macs\\..\\x", &host, &found, &e),
				 -WD_ETRUST);
		assert_int_equal(volume_resolve(&v, "d:\\IBMCOM\\PROTOCOL.INI", &host, &found, &e), 0);
		assert_true(found);
		free(host);
		config_sys_free(&cs);
		volume_close(&v);
		free(root);
	}
	/* No root: usage error. A folder without CONFIG.SYS: refused. */
	struct volume v;
	struct config_sys cs;
	struct wd_err e;
	assert_int_equal(boot_volume_open(&v, &cs, NULL, 0, &e), -WD_EUSAGE);
	assert_non_null(strstr(e.msg, "--root DIR or set WARPDRV_ROOT"));
	char *notvol = fixture_path("ecs21-e1000/IBMCOM");
	assert_int_equal(boot_volume_open(&v, &cs, notvol, 0, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "not an OS/2 boot volume"));
	free(notvol);
	/* --boot-drive wins over CONFIG.SYS. */
	char *root = fixture_path("arcaos-d-pcnet");
	assert_int_equal(boot_volume_open(&v, &cs, root, 'E', &e), 0);
	assert_int_equal(v.boot_drive, 'E');
	config_sys_free(&cs);
	volume_close(&v);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_round_trip),
		cmocka_unit_test(test_fixtures_round_trip),
		cmocka_unit_test(test_os2yum_statements),
		cmocka_unit_test(test_updcd_lowercase_no_drive),
		cmocka_unit_test(test_vbox_unattended_spacing),
		cmocka_unit_test(test_odd_bytes_round_trip),
		cmocka_unit_test(test_edits_touch_only_their_lines),
		cmocka_unit_test(test_new_lines_take_the_files_ending),
		cmocka_unit_test(test_boot_drive),
		cmocka_unit_test(test_fixture_volumes_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
