/* installer/config_off: configure acpi --off undoes what the ACPI planner
 * did. Checked as a property over many CONFIG.SYS texts: the planner's
 * result turned off with the text from before gives that text back byte for
 * byte, also when another line changed in the same generation; without a
 * text from before, only the package's statements go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "installer/acpi_plan.h"
#include "installer/config_off.h"

static const char manifest[] =
	"format 1\nname acpi-psd\nversion 1\nreleased 2023-09-01\nsummary s\nkind psd\n"
	"file ACPI.PSD \\OS2\\BOOT\\ACPI.PSD\n"
	"config-need PSD ACPI.PSD\nconfig-need BASEDEV APM.ADD\n"
	"config-need RUN \\OS2\\ACPIDAEMON.EXE\n"
	"config-displace PSD OS2APIC.PSD\nconfig-displace DEVICE APM.SYS\n"
	"config-displace BASEDEV APM.SYS\nconfig-displace DEVICE VAPM.SYS\n"
	"config-displace RUN POWERMAN.EXE\nconfig-displace CALL POWERMAN.EXE\n";

/* The CONFIG.SYS texts: what the ACPI PSD displaces in many arrangements. */
static const char *const texts[] = {
	"",
	"REM nothing of ACPI\r\nBASEDEV=IBMKBD.SYS\r\n",
	"PSD=OS2APIC.PSD\r\nBASEDEV=IBMKBD.SYS\r\n",
	"PSD=OS2APIC.PSD /APIC /VW\r\nBASEDEV=IBMKBD.SYS\r\nDEVICE=C:\\OS2\\BOOT\\APM.SYS\r\n"
	"DEVICE=C:\\OS2\\MDOS\\VAPM.SYS\r\nRUN=C:\\POWERMAN\\POWERMAN.EXE\r\n",
	"BASEDEV=IBMKBD.SYS\r\nBASEDEV=APM.SYS\r\nDEVICE=C:\\OS2\\MDOS\\VAPM.SYS\r\n",
	"DEVICE=C:\\OS2\\BOOT\\APM.SYS\r\nIFS=C:\\OS2\\HPFS.IFS\r\n",
	"IFS=C:\\OS2\\HPFS.IFS\nPSD=OS2APIC.PSD\nBASEDEV=IBMKBD.SYS\nDEVICE=C:\\OS2\\BOOT\\APM.SYS\n",
	"PSD=OS2APIC.PSD\r\nPSD=OTHER.PSD\r\nBASEDEV=IBMKBD.SYS\r\nCALL=C:\\POWERMAN.EXE\r\n\x1a",
	"DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\nDEVICE=C:\\OS2\\MDOS\\VAPM.SYS\r\nREM end\r\n",
};

static void parse_manifest(struct pkg_manifest *m)
{
	struct wd_err e;
	assert_int_equal(manifest_parse(manifest, strlen(manifest), true, "t", m, &e), 0);
}

static char *render(const struct config_sys *cs)
{
	struct wd_buf out = {0};
	config_sys_write(cs, &out);
	wd_buf_cstr(&out);
	return out.p;
}

/* texts[i] -> acpi_plan -> (other: one more edit of the same change) ->
 * config_off_plan with texts[i] as before. */
static char *round_trip(const struct pkg_manifest *m, const char *text, bool other,
			size_t *restored)
{
	struct config_sys cs, before;
	config_sys_parse(&cs, text, strlen(text));
	config_sys_parse(&before, text, strlen(text));
	assert_true(acpi_plan(m, 'C', &cs) > 0);
	assert_true(config_off_has_needs(m, &cs));
	long nic = config_sys_find(&cs, 0, "DEVICE", "E1000.OS2");
	if (other && nic >= 0)
		assert_int_equal(config_sys_replace(&cs, (size_t)nic, "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2"), 0);
	assert_true(config_off_plan(m, &before, &cs, restored) >= 0);
	assert_false(config_off_has_needs(m, &cs));
	char *out = render(&cs);
	config_sys_free(&cs);
	config_sys_free(&before);
	return out;
}

static void test_off_gives_the_text_from_before_back(void **state)
{
	(void)state;
	struct pkg_manifest m;
	parse_manifest(&m);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		size_t restored;
		char *out = round_trip(&m, texts[i], false, &restored);
		if (strcmp(out, texts[i]))
			fail_msg("text %zu: turned off:\n%s\nwanted:\n%s", i, out, texts[i]);
		/* every displaced statement came back */
		struct config_sys b;
		config_sys_parse(&b, texts[i], strlen(texts[i]));
		size_t displaced = 0;
		for (size_t l = 0; l < config_sys_lines(&b); l++) {
			struct cs_stmt st;
			displaced += config_sys_stmt(&b, l, &st) && st.loads &&
				     !wd_sv_ieq(st.name, "IBMKBD.SYS") && !wd_sv_ieq(st.name, "HPFS.IFS") &&
				     !wd_sv_ieq(st.name, "E1000.OS2") && !wd_sv_ieq(st.name, "OTHER.PSD");
		}
		assert_int_equal(restored, displaced);
		config_sys_free(&b);
		free(out);
	}
	manifest_free(&m);
}

/* Another line of the same generation (a NIC's) keeps its new text. */
static void test_off_leaves_the_other_change(void **state)
{
	(void)state;
	struct pkg_manifest m;
	parse_manifest(&m);
	const char *t = texts[8];
	size_t restored;
	char *out = round_trip(&m, t, true, &restored);
	struct wd_buf want = {0};
	const char *at = strstr(t, "E1000.OS2");
	wd_buf_add(&want, t, (size_t)(at - t));
	wd_buf_adds(&want, "MMLEM.OS2");
	wd_buf_adds(&want, at + strlen("E1000.OS2"));
	assert_string_equal(out, wd_buf_cstr(&want));
	wd_buf_free(&want);
	free(out);
	manifest_free(&m);
}

/* No text from before (no generation recorded the change): the package's
 * statements go, every other line stays as it is. */
static void test_off_without_before_only_takes_the_statements_out(void **state)
{
	(void)state;
	struct pkg_manifest m;
	parse_manifest(&m);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct config_sys cs;
		config_sys_parse(&cs, texts[i], strlen(texts[i]));
		acpi_plan(&m, 'C', &cs);
		char *planned = render(&cs);
		size_t restored;
		assert_true(config_off_plan(&m, NULL, &cs, &restored) >= 0);
		assert_int_equal(restored, 0);
		char *out = render(&cs);
		/* out is planned without the lines of the package's statements */
		struct config_sys p;
		config_sys_parse(&p, planned, strlen(planned));
		bool *gone = calloc(config_sys_lines(&p) + 1, sizeof *gone);
		for (size_t l = 0; l < config_sys_lines(&p); l++) {
			struct cs_stmt st;
			gone[l] = config_sys_stmt(&p, l, &st) && st.loads &&
				  (wd_sv_ieq(st.name, "ACPI.PSD") || wd_sv_ieq(st.name, "APM.ADD") ||
				   wd_sv_ieq(st.name, "ACPIDAEMON.EXE"));
		}
		config_sys_delete_marked(&p, gone);
		free(gone);
		char *expect = render(&p);
		assert_string_equal(out, expect);
		free(expect);
		config_sys_free(&p);
		config_sys_free(&cs);
		free(planned);
		free(out);
	}
	manifest_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_gives_the_text_from_before_back),
		cmocka_unit_test(test_off_leaves_the_other_change),
		cmocka_unit_test(test_off_without_before_only_takes_the_statements_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
