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

#include "ui/ui.h"

static void test_control_bytes_are_shown_escaped(void **state)
{
	(void)state;
	/* OSC title, CSI clear screen, DEL, and C1 CSI (0x9b) */
	assert_string_equal(ui_esc("a\033]0;t\007b\033[2Jc\177d\233e"),
			    "a\\x1b]0;t\\x07b\\x1b[2Jc\\x7fd\\x9be");
	/* text with none comes back as it is, the same pointer */
	const char *plain = "C:\\IBMCOM\\MACS\\E1000.OS2 \xa0\xff";
	assert_ptr_equal(ui_esc(plain), plain);
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
	json_int(j, "code", 1);
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
	assert_string_equal(s, "{\"repositories\": [{\"name\": \"dead\"}], \"error\": {\"code\": 1, "
			       "\"message\": \"repository dead: \\u001b[2J\"}}\n");
	free(s);
	s = capture(open_then_error);
	assert_string_equal(s, "{\"history\": [{\"id\": 1}], \"error\": {\"code\": 1, "
			       "\"message\": \"repository dead: \\u001b[2J\"}}\n");
	free(s);
	s = capture(error_only);
	assert_string_equal(s, "{\"error\": {\"code\": 1, \"message\": \"repository dead: "
			       "\\u001b[2J\"}}\n");
	free(s);
	s = capture(finished_only);
	assert_string_equal(s, "{\"ok\": true}\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_bytes_are_shown_escaped),
		cmocka_unit_test(test_one_document_with_the_error_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
