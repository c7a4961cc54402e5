/* ui/out.c and ui/json.c: volume text made safe for a terminal, and one
 * JSON document per run with an error met late inside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os2/codepage.h"
#include "os2/config_sys.h"
#include "ui/ui.h"

static void test_control_bytes_are_shown_escaped(void **state)
{
	(void)state;
	/* OSC title, CSI clear screen, DEL, and C1 CSI (0x9b) */
	assert_string_equal(ui_esc("a\033]0;t\007b\033[2Jc\177d\233e"),
			    "a\\x1b]0;t\\x07b\\x1b[2Jc\\x7fd\\x9be");
	/* text with none comes back as it is, the same pointer */
	const char *plain = "C:\\IBMCOM\\MACS\\E1000.OS2";
	assert_ptr_equal(ui_esc(plain), plain);
	/* valid UTF-8 passes; a byte that is not UTF-8 is shown, and so is a
	 * C1 control written in UTF-8 */
	assert_string_equal(ui_esc("g\xc3\xa4st \xe2\x82\xac"), "g\xc3\xa4st \xe2\x82\xac");
	assert_string_equal(ui_esc("\xa0\xff g\xc3"), "\\xa0\\xff g\\xc3");
	assert_string_equal(ui_esc("a\xc2\x9b" "b"), "a\\u009bb");
	/* a newline in one field is escaped; in a message it is kept */
	assert_string_equal(ui_esc("x\ny\r"), "x\\x0ay\\x0d");
	assert_string_equal(ui_esc_text("x\ny\tz\r\033", 7), "x\ny\tz\\x0d\\x1b");
	/* a NUL inside a diff is shown, not the end of it */
	assert_string_equal(ui_esc_text("a\0b", 3), "a\\x00b");
	assert_string_equal(ui_esc(NULL), "(none)");
	/* sixteen results live at once */
	const char *r[16];
	for (int i = 0; i < 16; i++)
		r[i] = ui_esc("\033");
	for (int i = 0; i < 16; i++)
		assert_string_equal(r[i], "\\x1b");
}

/* Writes through a struct json held as ui_main holds it; returns stdout's text. */
static char *capture(void (*write)(struct json *j))
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	assert_non_null(f);
	struct json j;
	json_init(&j, f);
	json_hold_top(&j);
	write(&j);
	json_end_document(&j);
	fclose(f);
	return p;
}

static void add_error(struct json *j)
{
	if (!json_reopen_top(j)) {
		json_init(j, j->f);
		json_hold_top(j);
		json_obj_begin(j, NULL);
	}
	json_obj_begin(j, "error");
	json_int(j, "exit_code", 1);
	json_str(j, "message", "repository dead: \033[2J");
	json_obj_end(j);
	json_obj_end(j);
	json_finish(j);
}

static void finished_then_error(struct json *j)
{
	json_obj_begin(j, NULL);
	json_arr_begin(j, "repositories");
	json_obj_begin(j, NULL);
	json_str(j, "name", "dead");
	json_obj_end(j);
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
	add_error(j);
}

static void open_then_error(struct json *j)
{
	json_obj_begin(j, NULL);
	json_arr_begin(j, "history");
	json_obj_begin(j, NULL);
	json_int(j, "id", 1);
	add_error(j); /* met inside the list: the open levels are closed */
}

static void error_only(struct json *j)
{
	add_error(j);
}

static void finished_only(struct json *j)
{
	json_obj_begin(j, NULL);
	json_bool(j, "ok", true);
	json_obj_end(j);
	json_finish(j);
}

static void test_one_document_with_the_error_inside(void **state)
{
	(void)state;
	char *s = capture(finished_then_error);
	assert_string_equal(s, "{\"format\": 1, \"repositories\": [{\"name\": \"dead\"}], \"error\": {\"exit_code\": 1, "
			       "\"message\": \"repository dead: \\u001b[2J\"}}\n");
	free(s);
	s = capture(open_then_error);
	assert_string_equal(s, "{\"format\": 1, \"history\": [{\"id\": 1}], \"error\": {\"exit_code\": 1, "
			       "\"message\": \"repository dead: \\u001b[2J\"}}\n");
	free(s);
	s = capture(error_only);
	assert_string_equal(s, "{\"format\": 1, \"error\": {\"exit_code\": 1, \"message\": \"repository dead: "
			       "\\u001b[2J\"}}\n");
	free(s);
	s = capture(finished_only);
	assert_string_equal(s, "{\"format\": 1, \"ok\": true}\n");
	free(s);
}

static void utf8_and_volume_text(struct json *j)
{
	json_obj_begin(j, NULL);
	/* an argument or host path: UTF-8 as it is, other bytes U+FFFD */
	json_str(j, "arg", "g\xc3\xa4st \xff\xc3");
	/* CONFIG.SYS text in code page 850: 0x82 is e-acute, 0x9b o-slash */
	json_vol(j, "line", "REM caf\x82 \x9b");
	/* a message quoting such a line: its UTF-8 kept, the rest decoded */
	json_mixed(j, "message", "\xc3\xa4: REM caf\x82");
	json_time(j, "at", "2026-12-01 18:00:48");
	json_time(j, "none", NULL);
	json_obj_end(j);
	json_finish(j);
}

static void utf8_cp437(struct json *j)
{
	j->cp = codepage_find(437);
	json_obj_begin(j, NULL);
	json_vol(j, "line", "\x9b\xe1"); /* 437: cent sign, sharp s */
	json_obj_end(j);
	json_finish(j);
}

static void test_json_strings_are_valid_utf8(void **state)
{
	(void)state;
	char *s = capture(utf8_and_volume_text);
	assert_string_equal(s, "{\"format\": 1, \"arg\": \"g\xc3\xa4st \\ufffd\\ufffd\", "
			       "\"line\": \"REM caf\xc3\xa9 \xc3\xb8\", "
			       "\"message\": \"\xc3\xa4: REM caf\xc3\xa9\", "
			       "\"at\": \"2026-12-01T18:00:48Z\", \"none\": null}\n");
	free(s);
	s = capture(utf8_cp437);
	assert_string_equal(s, "{\"format\": 1, \"line\": \"\xc2\xa2\xc3\x9f\"}\n");
	free(s);
	assert_null(codepage_find(1252));
	unsigned u;
	assert_int_equal(utf8_seq("\xc0\x80", 2, &u), 0);     /* overlong */
	assert_int_equal(utf8_seq("\xed\xa0\x80", 3, &u), 0); /* a surrogate */
	assert_int_equal(utf8_seq("\xe2\x82", 2, &u), 0);     /* cut short */
	assert_int_equal(utf8_seq("\xf0\x9f\x98\x80", 4, &u), 4);
	assert_int_equal(u, 0x1f600);
}

static void test_cp850_config_sys_codepage(void **state)
{
	(void)state;
	struct config_sys cs;
	const char *text = "REM x\r\nCODEPAGE=437,850\r\n";
	config_sys_parse(&cs, text, strlen(text));
	assert_int_equal(codepage_of_config_sys(&cs), 437);
	config_sys_free(&cs);
	config_sys_parse(&cs, "REM x\r\n", 7);
	assert_int_equal(codepage_of_config_sys(&cs), 0);
	config_sys_free(&cs);
	/* every table maps the whole upper half to a code point */
	const int known[] = {437, 850, 852, 865, 866};
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		const struct codepage *cp = codepage_find(known[k]);
		assert_non_null(cp);
		for (int i = 0; i < 128; i++)
			assert_true(cp->high[i] >= 0xa0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_bytes_are_shown_escaped),
		cmocka_unit_test(test_one_document_with_the_error_inside),
		cmocka_unit_test(test_json_strings_are_valid_utf8),
		cmocka_unit_test(test_cp850_config_sys_codepage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
