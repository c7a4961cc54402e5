/* The one-pass edits (pi_drop_sections, pi_drop_keys, pi_add_keys,
 * tl_insert_many, config_sys_delete_marked) give the same bytes as the
 * edits one at a time they stand for, on files with the awkward cases:
 * names given twice, sections of one name twice, the last sections going,
 * quoted and spaced Bindings, keys added to a section without any. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "os2/config_sys.h"
#include "os2/protocol_ini.h"

static char *text_of(const struct protocol_ini *pi)
{
	struct wd_buf b = {0};
	protocol_ini_write(pi, &b);
	wd_buf_cstr(&b);
	return b.p;
}

static const char *const inis[] = {
	"[PROT_MAN]\r\n\r\n   DriverName = PROTMAN$\r\n\r\n[IBMLXCFG]\r\n\r\n"
	"   A_nif = A.NIF\r\n   B_nif = B.NIF\r\n   a_nif = A2.NIF\r\n   C_nif = C.NIF\r\n\r\n"
	"[NETBEUI_nif]\r\n\r\n   DriverName = netbeui$\r\n   Bindings = A_nif,B_nif, C_nif,D_nif\r\n\r\n"
	"[TCPIP_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = \"B_nif\",\"A_nif\"\r\n\r\n"
	"[A_nif]\r\n\r\n   DriverName = A$\r\n\r\n[D_nif]\r\n   DriverName = D$\r\n\r\n"
	"[B_nif]\r\n\r\n   DriverName = B$\r\n\r\n\r\n[a_nif]\r\n\r\n   DriverName = A2$\r\n\r\n"
	"[C_nif]\r\n\r\n   DriverName = C$\r\n\r\n",
	"[PROT_MAN]\n   DriverName = PROTMAN$\n[P]\n   Bindings = X,,Y\n[X]\n   DriverName = X$\n"
	"[Y]\n   DriverName = Y$\n",
};

static const char *const name_sets[][5] = {
	{"C_nif", NULL},
	{"B_nif", "C_nif", NULL},
	{"C_nif", "B_nif", "a_nif", NULL},
	{"A_nif", "A_nif", NULL},
	{"a_nif", "D_nif", "C_nif", "B_nif", NULL},
	{"Y", NULL},
	{"X", "Y", NULL},
	{"Y", "X", "P", NULL},
	{"NOSUCH", "c_NIF", NULL},
};

static void test_drop_sections(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof inis / sizeof *inis; f++)
		for (size_t k = 0; k < sizeof name_sets / sizeof *name_sets; k++) {
			struct protocol_ini one, all;
			protocol_ini_parse(&one, inis[f], strlen(inis[f]));
			protocol_ini_parse(&all, inis[f], strlen(inis[f]));
			size_t n = 0;
			while (name_sets[k][n])
				n++;
			for (size_t i = 0; i < n; i++) {
				for (size_t s = 0; s < one.nsec; s++)
					pi_bind_remove(&one, s, name_sets[k][i]);
				pi_lxcfg_remove(&one, name_sets[k][i]);
				long s = pi_section(&one, name_sets[k][i]);
				if (s >= 0)
					pi_remove_section(&one, (size_t)s);
			}
			pi_drop_sections(&all, (char *const *)name_sets[k], n);
			char *a = text_of(&one), *b = text_of(&all);
			assert_string_equal(b, a);
			assert_int_equal(all.nsec, one.nsec);
			for (size_t s = 0; s < one.nsec; s++) {
				assert_string_equal(all.sec[s].name, one.sec[s].name);
				assert_int_equal(all.sec[s].header, one.sec[s].header);
				assert_int_equal(all.sec[s].end, one.sec[s].end);
			}
			free(a);
			free(b);
			protocol_ini_free(&one);
			protocol_ini_free(&all);
		}
}

static bool drop_odd(void *ud, struct wd_sv key, struct wd_sv value)
{
	(void)ud;
	(void)value;
	return key.n % 2 == 1;
}

static void test_drop_and_add_keys(void **state)
{
	(void)state;
	static const char *const keys[] = {"ZZ", "DriverName", "Y", "ZZ", "NETADDRESS"};
	static const char *const values[] = {"1", "Q$", "\"two\"", "3", "\"0A\""};
	for (size_t f = 0; f < sizeof inis / sizeof *inis; f++) {
		struct protocol_ini probe;
		protocol_ini_parse(&probe, inis[f], strlen(inis[f]));
		size_t nsec = probe.nsec;
		protocol_ini_free(&probe);
		for (size_t s = 0; s < nsec; s++) {
			struct protocol_ini one, all;
			protocol_ini_parse(&one, inis[f], strlen(inis[f]));
			protocol_ini_parse(&all, inis[f], strlen(inis[f]));
			/* One at a time: each odd-length key goes, in file order. */
			for (size_t i = one.sec[s].header + 1; i < one.sec[s].end;) {
				struct wd_sv k, v;
				if (!pi_line_key(&one, i, &k, &v) || k.n % 2 == 0) {
					i++;
					continue;
				}
				char *key = wd_sv_dup(k);
				assert_int_equal(pi_unset(&one, s, key), 0);
				free(key);
			}
			for (size_t i = 0; i < 5; i++)
				if (pi_key_line(&one, s, keys[i]) < 0)
					assert_int_equal(pi_set(&one, s, keys[i], values[i]), 0);
			pi_drop_keys(&all, s, drop_odd, NULL);
			assert_int_equal(pi_add_keys(&all, s, keys, values, 5), 0);
			char *a = text_of(&one), *b = text_of(&all);
			assert_string_equal(b, a);
			for (size_t x = 0; x < one.nsec; x++) {
				assert_int_equal(all.sec[x].header, one.sec[x].header);
				assert_int_equal(all.sec[x].end, one.sec[x].end);
			}
			assert_int_equal(pi_section_by_driver(&all, 0, "Q$"),
					 pi_section_by_driver(&one, 0, "Q$"));
			free(a);
			free(b);
			protocol_ini_free(&one);
			protocol_ini_free(&all);
		}
	}
}

static void test_config_sys_marked(void **state)
{
	(void)state;
	static const char text[] = "REM a\r\nPSD=X.PSD\r\nDEVICE=A.SYS\r\nPSD=X.PSD\r\nREM b";
	struct config_sys one, all;
	config_sys_parse(&one, text, strlen(text));
	config_sys_parse(&all, text, strlen(text));
	bool gone[5] = {false, true, false, true, false};
	for (size_t i = 5; i-- > 0;)
		if (gone[i])
			config_sys_delete(&one, i);
	assert_int_equal(config_sys_delete_marked(&all, gone), 2);
	config_sys_append(&one, "RUN=Y.EXE");
	config_sys_append(&all, "RUN=Y.EXE");
	struct wd_buf a = {0}, b = {0};
	config_sys_write(&one, &a);
	config_sys_write(&all, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.p, b.p, a.len);
	wd_buf_free(&a);
	wd_buf_free(&b);
	config_sys_free(&one);
	config_sys_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_sections),
		cmocka_unit_test(test_drop_and_add_keys),
		cmocka_unit_test(test_config_sys_marked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
