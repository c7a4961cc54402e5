/* The NIF model: a dozen real NIFs parse, round-trip byte for byte and read
 * as the fields MPTS uses; the MAC section a driver needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "os2/nif.h"
#include "tests/unit/testutil.h"

struct expect {
	const char *file, *section, *drivername, *name, *path, *a_keyword;
	size_t nkw;
};

static const struct expect real[] = {
	{"os2world-alta/ALTA.NIF", "ALTA", "ALTA$", "alta.os2", "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-b44a/B44A.NIF", "B44A", "B44A$", NULL, "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-rpn2a/RPN2A.NIF", "RPN2A", "RPN2A$", NULL, "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-rtgnda/RTGNDA.NIF", "RTGNDA", "RTGNDA$", "RTGNDA.OS2", "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-sis90a/SIS90A.NIF", "SIS90A", "SIS90A$", NULL, "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-tc902x/TC902X.NIF", "TC902X", "TC902X$", "TC902X.OS2", "IBMCOM\\MACS", "MAXFRAME", 0},
	{"os2world-vfet3a04/VFET3A.NIF", "VFET3A", "VFET3A$", NULL, "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-vgend05/VGEND2.NIF", "VGEND2", "VGEND2$", "VGEND2.OS2", "IBMCOM\\MACS", "SLOT", 0},
	{"os2world-multimac/e1000e.nif-in", "E1000E", "E1000E$", "E1000E.OS2", "\\IBMCOM\\MACS", "NETADDRESS", 3},
	{"os2world-multimac/nveth.nif-in", "NVETH", "NVETH$", "NVETH.OS2", "\\IBMCOM\\MACS", "NETADDRESS", 0},
	{"os2world-multimac/r8169.nif-in", "R8169", "R8169$", NULL, "\\IBMCOM\\MACS", "NETADDRESS", 0},
	{"os2world-multimac/wrnd32.nif-in", "IWL", "WRND32$", "IWL.OS2", "\\IBMCOM\\MACS", NULL, 0},
	{NULL, NULL, NULL, NULL, NULL, NULL, 0},
};

static void load(struct nif *nif, const char *path, int want)
{
	struct wd_buf b = {0};
	slurp(path, &b);
	struct wd_err e;
	int r = nif_parse(nif, b.p, b.len, &e);
	if (r != want)
		fprintf(stderr, "%s: %s\n", path, e.msg);
	assert_int_equal(r, want);
	struct wd_buf out = {0};
	nif_write(nif, &out);
	assert_int_equal(out.len, b.len);
	assert_memory_equal(out.p, b.p, b.len);
	wd_buf_free(&out);
	wd_buf_free(&b);
}

static void test_real_nifs(void **state)
{
	(void)state;
	char *probe = sample_path("os2world-alta/ALTA.NIF");
	SKIP_WITHOUT_SAMPLES(probe);
	free(probe);
	for (const struct expect *x = real; x->file; x++) {
		char *p = sample_path(x->file);
		struct nif nif;
		load(&nif, p, 0);
		assert_string_equal(nif.section, x->section);
		assert_string_equal(nif.type, "NDIS");
		assert_non_null(nif.title);
		assert_string_equal(nif.drivername, x->drivername);
		assert_non_null(nif.xports);
		if (x->name)
			assert_string_equal(nif.file_name, x->name);
		assert_non_null(nif.file_name);
		assert_string_equal(nif.file_path, x->path);
		if (x->a_keyword)
			assert_non_null(nif_keyword(&nif, x->a_keyword));
		if (x->nkw)
			assert_int_equal(nif.nkw, x->nkw);
		/* Every keyword of these drivers is optional: DriverName alone. */
		struct nif_kv *kv;
		size_t n = nif_mac_section(&nif, &kv);
		assert_int_equal(n, 1);
		assert_string_equal(kv[0].key, "DriverName");
		assert_string_equal(kv[0].value, x->drivername);
		nif_kv_free(kv, n);
		nif_free(&nif);
		free(p);
	}
}

static void test_multimac_help_spans_lines(void **state)
{
	(void)state;
	char *p = sample_path("os2world-multimac/e1000e.nif-in");
	SKIP_WITHOUT_SAMPLES(p);
	struct nif nif;
	load(&nif, p, 0);
	free(p);
	assert_string_equal(nif.title, "Intel PRO/1000 PCIe Driver from Mensys BV");
	assert_string_equal(nif.xports, "NETBEUI, LANDD");
	const struct nif_keyword *mode = nif_keyword(&nif, "mode");
	assert_string_equal(mode->display, "Medium Type");
	assert_string_equal(mode->type, "String");
	assert_string_equal(mode->strlength, "10");
	assert_string_equal(mode->set, "\"10HALF\", \"10FULL\", \"100HALF\", \"100FULL\", \"1000FULL\"");
	assert_true(nif_keyword_optional(mode));
	assert_string_equal(mode->editable, "Yes");
	assert_string_equal(mode->help, "This parameter specifies the link speed and connection type.\n"
					"If not specified, it will default to autodetection.");
	const struct nif_keyword *na = nif_keyword(&nif, "NETADDRESS");
	assert_string_equal(na->type, "hexstring");
	/* Three lines, a TAB inside. */
	assert_non_null(strstr(na->help, "network\n adapter card.\tThe value"));
	assert_non_null(strstr(na->help, "\n 12 digits."));
	/* RXCHAIN comes after MODE's two-line Help: nothing was swallowed. */
	assert_non_null(nif_keyword(&nif, "RXCHAIN"));
	nif_free(&nif);
}

static void test_old_nifs_comments_and_ranges(void **state)
{
	(void)state;
	char *p = sample_path("os2world-alta/ALTA.NIF");
	SKIP_WITHOUT_SAMPLES(p);
	struct nif nif;
	load(&nif, p, 0);
	free(p);
	const struct nif_keyword *slot = nif_keyword(&nif, "SLOT");
	assert_string_equal(slot->range, "0-7");
	assert_string_equal(slot->type, "decimal");
	/* ";default = "0"" is a comment, not a Default. */
	assert_null(slot->deflt);
	assert_non_null(strstr(slot->help, "multiple adapters."));
	const struct nif_keyword *ob = nif_keyword(&nif, "OPENBIND");
	assert_string_equal(ob->set, "YES,NO");
	nif_free(&nif);
}

static void test_fixture_nifs(void **state)
{
	(void)state;
	char *p = fixture_path("ecs21-e1000/IBMCOM/MACS/E1000.NIF");
	struct nif nif;
	load(&nif, p, 0);
	free(p);
	assert_string_equal(nif.drivername, "E1000$");
	assert_string_equal(nif.file_name, "E1000.OS2");
	assert_string_equal(nif.file_path, "\\IBMCOM\\MACS");
	assert_string_equal(nif_keyword(&nif, "SPEEDDUPLEX")->deflt, "AUTO");
	nif_free(&nif);
	p = fixture_path("arcaos-d-pcnet/ibmcom/macs/pcntnd.nif");
	load(&nif, p, 0);
	free(p);
	assert_string_equal(nif.drivername, "PCNTND$");
	nif_free(&nif);
}

static void test_required_keywords_at_default(void **state)
{
	(void)state;
	static const char in[] = "[MMLEM]\r\nType = NDIS\r\nDriverName = MMLEM$\r\n\r\n[FILE]\r\n"
				 "Name = MMLEM.OS2\r\nPath = \\IBMCOM\\MACS\r\n\r\n"
				 "[MODE]\r\nType = String\r\nDefault = \"AUTO\"\r\nOptional = No\r\n\r\n"
				 "[RXCHAIN]\r\nType = String\r\nDefault = YES\r\n\r\n"
				 "[TXQUEUE]\r\nType = Decimal\r\nDefault = 16\r\n\r\n"
				 "[SLOT]\r\nType = Decimal\r\nOptional = no\r\n\r\n"
				 "[NETADDRESS]\r\nType = hexstring\r\nDefault = 0\r\nOptional = YES\r\n";
	struct nif nif;
	struct wd_err e;
	assert_int_equal(nif_parse(&nif, in, sizeof in - 1, &e), 0);
	struct nif_kv *kv;
	size_t n = nif_mac_section(&nif, &kv);
	/* SLOT has no default to write; NETADDRESS is optional. */
	assert_int_equal(n, 4);
	assert_string_equal(kv[0].key, "DriverName");
	assert_string_equal(kv[0].value, "MMLEM$");
	assert_string_equal(kv[1].key, "MODE");
	assert_string_equal(kv[1].value, "\"AUTO\"");
	assert_string_equal(kv[2].key, "RXCHAIN");
	assert_string_equal(kv[2].value, "\"YES\"");
	assert_string_equal(kv[3].key, "TXQUEUE");
	assert_string_equal(kv[3].value, "16");
	nif_kv_free(kv, n);
	nif_free(&nif);
}

static void test_not_a_nif(void **state)
{
	(void)state;
	struct nif nif;
	struct wd_err e;
	assert_int_equal(nif_parse(&nif, "", 0, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "no [driver] section"));
	nif_free(&nif);
	static const char nodn[] = "[X]\nType = NDIS\n[FILE]\nName = X.OS2\n";
	assert_int_equal(nif_parse(&nif, nodn, sizeof nodn - 1, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "[X] section names no DriverName"));
	struct wd_buf out = {0};
	nif_write(&nif, &out);
	assert_int_equal(out.len, sizeof nodn - 1);
	wd_buf_free(&out);
	nif_free(&nif);
	/* An unclosed quote runs to the end and still round-trips. */
	static const char open[] = "[X]\nDriverName = X$\n[K]\nHelp = \"never\nclosed\n";
	assert_int_equal(nif_parse(&nif, open, sizeof open - 1, &e), 0);
	assert_string_equal(nif_keyword(&nif, "K")->help, "never\nclosed");
	nif_free(&nif);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_nifs),
		cmocka_unit_test(test_multimac_help_spans_lines),
		cmocka_unit_test(test_old_nifs_comments_and_ranges),
		cmocka_unit_test(test_fixture_nifs),
		cmocka_unit_test(test_required_keywords_at_default),
		cmocka_unit_test(test_not_a_nif),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
