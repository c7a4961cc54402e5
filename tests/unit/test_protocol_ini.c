/* The PROTOCOL.INI model: real files round-trip and read as their sections
 * and keywords; each edit the NIC planner needs gives the exact bytes MPTS
 * would have written, keeping binding positions and the file's layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "os2/protocol_ini.h"
#include "tests/unit/testutil.h"

static void parse(struct protocol_ini *pi, const char *s)
{
	protocol_ini_parse(pi, s, strlen(s));
}

static char *text_of(const struct protocol_ini *pi)
{
	struct wd_buf b = {0};
	protocol_ini_write(pi, &b);
	wd_buf_cstr(&b);
	return b.p;
}

static void assert_round_trip(const char *data, size_t n)
{
	struct protocol_ini pi;
	protocol_ini_parse(&pi, data, n);
	struct wd_buf out = {0};
	protocol_ini_write(&pi, &out);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.p, data, n);
	wd_buf_free(&out);
	protocol_ini_free(&pi);
}

/* MPTS.RSP holds a PROTOCOL.INI body between "PROTOCOL = (" and ")". */
static char *mpts_body(size_t *n)
{
	char *p = sample_path("vbox-unattended/MPTS.RSP");
	if (!p)
		return NULL;
	struct wd_buf b = {0};
	slurp(p, &b);
	free(p);
	char *start = strstr(b.p, "PROTOCOL = (\n");
	assert_non_null(start);
	start += strlen("PROTOCOL = (\n");
	char *end = strstr(start, "\n)");
	assert_non_null(end);
	*n = (size_t)(end + 1 - start);
	char *body = wd_xstrndup(start, *n);
	wd_buf_free(&b);
	return body;
}

static void test_samples_round_trip(void **state)
{
	(void)state;
	char *p = sample_path("retronet/PROTOCOL.INI");
	SKIP_WITHOUT_SAMPLES(p);
	struct wd_buf b = {0};
	slurp(p, &b);
	assert_round_trip(b.p, b.len);
	wd_buf_free(&b);
	free(p);
	size_t n;
	char *body = mpts_body(&n);
	assert_round_trip(body, n);
	free(body);
}

static void test_fixtures_round_trip(void **state)
{
	(void)state;
	static const char *const files[] = {"ecs21-e1000/IBMCOM/PROTOCOL.INI",
					    "arcaos-d-pcnet/ibmcom/protocol.ini",
					    "warp452-pcnet/IBMCOM/PROTOCOL.INI",
					    "two-nics/IBMCOM/PROTOCOL.INI", NULL};
	for (int i = 0; files[i]; i++) {
		char *p = fixture_path(files[i]);
		struct wd_buf b = {0};
		slurp(p, &b);
		assert_round_trip(b.p, b.len);
		wd_buf_free(&b);
		free(p);
	}
}

static void test_retronet_sections(void **state)
{
	(void)state;
	char *p = sample_path("retronet/PROTOCOL.INI");
	SKIP_WITHOUT_SAMPLES(p);
	struct wd_buf b = {0};
	slurp(p, &b);
	free(p);
	struct protocol_ini pi;
	protocol_ini_parse(&pi, b.p, b.len);
	wd_buf_free(&b);
	assert_int_equal(pi.nsec, 4);
	assert_string_equal(pi.sec[0].name, "PROT_MAN");
	assert_string_equal(pi.sec[1].name, "IBMLXCFG");
	assert_string_equal(pi.sec[2].name, "TCPIP_nif");
	assert_string_equal(pi.sec[3].name, "PCNTND_nif");
	struct wd_sv v;
	assert_true(pi_get(&pi, 3, "drivername", &v));
	assert_true(wd_sv_eq(v, "PCNTND$"));
	assert_int_equal(pi_section_by_driver(&pi, 0, "pcntnd$"), 3);
	assert_int_equal(pi_section(&pi, "tcpip_NIF"), 2);
	struct pi_bindings bd;
	assert_true(pi_bindings_get(&pi, 2, &bd));
	assert_int_equal(bd.n, 1);
	assert_string_equal(bd.slot[0], "PCNTND_nif");
	assert_false(bd.quoted);
	pi_bindings_free(&bd);
	protocol_ini_free(&pi);
}

static void test_mpts_body_sections(void **state)
{
	(void)state;
	size_t n;
	char *body = mpts_body(&n);
	SKIP_WITHOUT_SAMPLES(body);
	struct protocol_ini pi;
	protocol_ini_parse(&pi, body, n);
	assert_int_equal(pi.nsec, 7);
	struct wd_sv v;
	/* DRIVERNAME in upper case is DriverName. */
	assert_true(pi_get(&pi, 0, "DriverName", &v));
	assert_true(wd_sv_eq(v, "PROTMAN$"));
	long nb = pi_section(&pi, "NETBIOS");
	assert_true(pi_get(&pi, (size_t)nb, "ADAPTER1", &v));
	assert_true(wd_sv_eq(v, "tcpbeui$,1"));
	/* The empty first slot is kept: binding positions are adapter numbers. */
	long tb = pi_section(&pi, "tcpbeui_nif");
	struct pi_bindings bd;
	assert_true(pi_bindings_get(&pi, (size_t)tb, &bd));
	assert_int_equal(bd.n, 2);
	assert_string_equal(bd.slot[0], "");
	assert_string_equal(bd.slot[1], "IBMEAN_nif");
	pi_bindings_free(&bd);
	long lx = pi_section(&pi, "IBMLXCFG");
	assert_true(pi_get(&pi, (size_t)lx, "tcpip_nif", &v));
	assert_true(wd_sv_eq(v, "tcpip.nif"));
	/* Rebinding every protocol to a new adapter keeps the empty slot. */
	assert_int_equal(pi_rebind(&pi, "IBMEAN_nif", "MMLEM_nif"), 3);
	assert_int_equal(pi_rename_section(&pi, (size_t)pi_section(&pi, "IBMEAN_nif"), "MMLEM_nif"), 0);
	assert_int_equal(pi_set(&pi, (size_t)pi_section(&pi, "MMLEM_nif"), "DriverName", "MMLEM$"), 0);
	assert_int_equal(pi_lxcfg_remove(&pi, "IBMEAN_nif"), 0);
	assert_int_equal(pi_lxcfg_set(&pi, "MMLEM_nif", "MMLEM.NIF"), 0);
	char *t = text_of(&pi);
	assert_non_null(strstr(t, "   Bindings = ,MMLEM_nif\n"));
	assert_non_null(strstr(t, "   tcpip_nif   = tcpip.nif\n   MMLEM_nif = MMLEM.NIF\n\n[NETBIOS]"));
	assert_non_null(strstr(t, "[MMLEM_nif]\n\n   DriverName = MMLEM$\n"));
	assert_null(strstr(t, "IBMEAN"));
	free(t);
	protocol_ini_free(&pi);
	free(body);
}

static const char retro[] = "[PROT_MAN]\r\n\r\n   DriverName = PROTMAN$\r\n\r\n"
			    "[IBMLXCFG]\r\n\r\n   TCPIP_nif = TCPIP.NIF\r\n   PCNTND_nif = PCNTND.NIF\r\n\r\n"
			    "[TCPIP_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = PCNTND_nif\r\n\r\n"
			    "[PCNTND_nif]\r\n\r\n   DriverName = PCNTND$\r\n";

/* The NIC planner's job, PCnet to E1000: the exact file MPTS would write. */
static void test_switch_adapter(void **state)
{
	(void)state;
	struct protocol_ini pi;
	parse(&pi, retro);
	long mac = pi_section_by_driver(&pi, 0, "PCNTND$");
	assert_int_equal(pi_remove_section(&pi, (size_t)mac), 0);
	long s = pi_add_section(&pi, "E1000_nif", -1);
	assert_true(s >= 0);
	assert_int_equal(pi_set(&pi, (size_t)s, "DriverName", "E1000$"), 0);
	assert_int_equal(pi_set(&pi, (size_t)s, "SPEEDDUPLEX", "\"AUTO\""), 0);
	assert_int_equal(pi_rebind(&pi, "PCNTND_nif", "E1000_nif"), 1);
	assert_int_equal(pi_lxcfg_remove(&pi, "PCNTND_nif"), 0);
	assert_int_equal(pi_lxcfg_set(&pi, "E1000_nif", "E1000.NIF"), 0);
	char *t = text_of(&pi);
	assert_string_equal(t, "[PROT_MAN]\r\n\r\n   DriverName = PROTMAN$\r\n\r\n"
			       "[IBMLXCFG]\r\n\r\n   TCPIP_nif = TCPIP.NIF\r\n   E1000_nif = E1000.NIF\r\n\r\n"
			       "[TCPIP_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = E1000_nif\r\n\r\n"
			       "[E1000_nif]\r\n\r\n   DriverName = E1000$\r\n   SPEEDDUPLEX = \"AUTO\"\r\n");
	free(t);
	protocol_ini_free(&pi);
}

static void test_section_in_the_middle_and_rename(void **state)
{
	(void)state;
	struct protocol_ini pi;
	parse(&pi, retro);
	long s = pi_add_section(&pi, "NETBEUI_nif", pi_section(&pi, "IBMLXCFG"));
	assert_int_equal(s, 2);
	pi_set(&pi, (size_t)s, "DriverName", "netbeui$");
	pi_bind_add(&pi, (size_t)s, "PCNTND_nif");
	assert_int_equal(pi_rename_section(&pi, 4, "AMD_nif"), 0);
	assert_int_equal(pi_rebind(&pi, "pcntnd_NIF", "AMD_nif"), 2);
	char *t = text_of(&pi);
	assert_string_equal(t, "[PROT_MAN]\r\n\r\n   DriverName = PROTMAN$\r\n\r\n"
			       "[IBMLXCFG]\r\n\r\n   TCPIP_nif = TCPIP.NIF\r\n   PCNTND_nif = PCNTND.NIF\r\n\r\n"
			       "[NETBEUI_nif]\r\n\r\n   DriverName = netbeui$\r\n   Bindings = AMD_nif\r\n\r\n"
			       "[TCPIP_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = AMD_nif\r\n\r\n"
			       "[AMD_nif]\r\n\r\n   DriverName = PCNTND$\r\n");
	free(t);
	protocol_ini_free(&pi);
}

static void test_bindings_positions_and_quotes(void **state)
{
	(void)state;
	struct protocol_ini pi;
	parse(&pi, "[netbeui_nif]\n   DriverName = netbeui$\n   Bindings = \"A_nif\",\"B_nif\",\"C_nif\"\n"
		   "[tcpbeui_nif]\n   DriverName = tcpbeui$\n   Bindings = ,B_nif\n");
	/* Removing the middle one leaves its slot empty: C stays adapter 2. */
	assert_int_equal(pi_bind_remove(&pi, 0, "B_nif"), 1);
	/* Removing the last slot drops it; a Bindings with none left goes. */
	assert_int_equal(pi_bind_remove(&pi, 1, "B_NIF"), 1);
	char *t = text_of(&pi);
	assert_string_equal(t, "[netbeui_nif]\n   DriverName = netbeui$\n   Bindings = \"A_nif\",,\"C_nif\"\n"
			       "[tcpbeui_nif]\n   DriverName = tcpbeui$\n");
	free(t);
	/* Adding fills the first empty slot, in the file's quoting. */
	assert_int_equal(pi_bind_add(&pi, 0, "D_nif"), 0);
	assert_int_equal(pi_bind_add(&pi, 1, "E_nif"), 0);
	assert_int_equal(pi_bind_replace(&pi, 0, "c_nif", "F_nif"), 1);
	assert_int_equal(pi_bind_replace(&pi, 0, "nope", "G_nif"), 0);
	t = text_of(&pi);
	assert_string_equal(t, "[netbeui_nif]\n   DriverName = netbeui$\n   Bindings = \"A_nif\",\"D_nif\",\"F_nif\"\n"
			       "[tcpbeui_nif]\n   DriverName = tcpbeui$\n   Bindings = \"E_nif\"\n");
	free(t);
	/* Names that would break the list are refused. */
	assert_int_equal(pi_bind_add(&pi, 0, "X,Y"), -1);
	assert_int_equal(pi_bind_add(&pi, 0, ""), -1);
	protocol_ini_free(&pi);
}

static void test_keywords_set_and_unset(void **state)
{
	(void)state;
	struct protocol_ini pi;
	/* A layout without indent, blank lines or spaces around '='. */
	parse(&pi, "; written by hand\n[PROT_MAN]\nDriverName=PROTMAN$\n[E1000_nif]\nDriverName=E1000$\n"
		   "NETADDRESS=\"020000000001\"   \n");
	assert_int_equal(pi.nsec, 2);
	assert_int_equal(pi_set(&pi, 1, "netaddress", "\"020000000002\""), 0);
	assert_int_equal(pi_set(&pi, 1, "MAXTXBUFS", "64"), 0);
	long s = pi_add_section(&pi, "tcpip_nif", -1);
	pi_set(&pi, (size_t)s, "DriverName", "TCPIP$");
	pi_bind_add(&pi, (size_t)s, "E1000_nif");
	assert_int_equal(pi_lxcfg_set(&pi, "E1000_nif", "E1000.NIF"), 0);
	char *t = text_of(&pi);
	assert_string_equal(t, "; written by hand\n[PROT_MAN]\nDriverName=PROTMAN$\n[IBMLXCFG]\nE1000_nif=E1000.NIF\n"
			       "[E1000_nif]\nDriverName=E1000$\nNETADDRESS=\"020000000002\"   \nMAXTXBUFS=64\n"
			       "[tcpip_nif]\nDriverName=TCPIP$\nBindings=E1000_nif\n");
	free(t);
	assert_int_equal(pi_unset(&pi, 2, "NetAddress"), 0);
	assert_int_equal(pi_unset(&pi, 2, "NetAddress"), -1);
	assert_int_equal(pi_remove_section(&pi, 1), 0);
	t = text_of(&pi);
	assert_string_equal(t, "; written by hand\n[PROT_MAN]\nDriverName=PROTMAN$\n"
			       "[E1000_nif]\nDriverName=E1000$\nMAXTXBUFS=64\n"
			       "[tcpip_nif]\nDriverName=TCPIP$\nBindings=E1000_nif\n");
	free(t);
	/* Refused: text that would break the file. */
	assert_int_equal(pi_set(&pi, 0, "A", "1\r\nB=2"), -1);
	assert_int_equal(pi_set(&pi, 0, "A=B", "1"), -1);
	assert_int_equal(pi_set(&pi, 9, "A", "1"), -1);
	assert_int_equal(pi_add_section(&pi, "X]Y", -1), -1);
	assert_int_equal(pi_rename_section(&pi, 0, "[X"), -1);
	protocol_ini_free(&pi);
}

static void test_comments_and_odd_lines(void **state)
{
	(void)state;
	static const char in[] = ";[NOT_A_SECTION]\r\n[A]\r\n;DriverName = X$\r\n   DriverName = A$\r\n"
				 "garbage line\r\n\x1a";
	struct protocol_ini pi;
	protocol_ini_parse(&pi, in, sizeof in - 1);
	assert_int_equal(pi.nsec, 1);
	struct wd_sv v;
	assert_true(pi_get(&pi, 0, "DriverName", &v));
	assert_true(wd_sv_eq(v, "A$"));
	pi_set(&pi, 0, "K", "1");
	char *t = text_of(&pi);
	assert_string_equal(t, ";[NOT_A_SECTION]\r\n[A]\r\n;DriverName = X$\r\n   DriverName = A$\r\n"
			       "garbage line\r\n   K = 1\r\n\x1a");
	free(t);
	protocol_ini_free(&pi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_round_trip),
		cmocka_unit_test(test_fixtures_round_trip),
		cmocka_unit_test(test_retronet_sections),
		cmocka_unit_test(test_mpts_body_sections),
		cmocka_unit_test(test_switch_adapter),
		cmocka_unit_test(test_section_in_the_middle_and_rename),
		cmocka_unit_test(test_bindings_positions_and_quotes),
		cmocka_unit_test(test_keywords_set_and_unset),
		cmocka_unit_test(test_comments_and_odd_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
