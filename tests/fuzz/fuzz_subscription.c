/* libFuzzer target for the key decoder: any bytes as pasted text. A text that
 * reads must read back the same from its canonical form, and nothing reads
 * as a verified key without a trusted licence key. The whole text (with its
 * "+https://" repositories) decodes, or fails with a subscription error; a
 * decoded key's full text decodes to the same key and repositories. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "license/entitlement.h"
#include "license/subscription.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void whole_text(const uint8_t *data, size_t size)
{
	struct wd_err e = {0};
	struct subscription s, t;
	if (sub_decode((const char *)data, size, &s, &e) != 0) {
		if (e.code != WD_ELICENSE || strnlen(e.msg, sizeof e.msg) == sizeof e.msg)
			abort();
		return;
	}
	if (s.nrepos > SUB_REPOS_MAX)
		abort();
	struct wd_buf full = {0};
	sub_format_full(&s, &full);
	if (sub_decode(full.p, full.len, &t, &e) != 0 || memcmp(s.bytes, t.bytes, SUB_BYTES) ||
	    s.nrepos != t.nrepos)
		abort();
	for (unsigned i = 0; i < s.nrepos; i++)
		if (strcmp(s.repos[i], t.repos[i]) || !sub_names_repo(&s, s.repos[i]))
			abort();
	wd_buf_free(&full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	whole_text(data, size);
	struct wd_err e = {0};
	unsigned char bytes[SUB_BYTES];
	if (sub_read_text((const char *)data, size, bytes, &e) != 0) {
		if (e.code != WD_ELICENSE || strnlen(e.msg, sizeof e.msg) == sizeof e.msg)
			abort();
		return 0;
	}
	struct subscription s = {0}, t = {0};
	memcpy(s.bytes, bytes, SUB_BYTES);
	char text[SUB_TEXT_LEN + 1];
	sub_format(&s, text);
	unsigned char again[SUB_BYTES];
	if (strlen(text) != SUB_TEXT_LEN || sub_read_text(text, strlen(text), again, &e) != 0 ||
	    memcmp(again, bytes, SUB_BYTES) != 0)
		abort();
	if (sub_from_bytes(bytes, &t, &e) != 0)
		return 0;
	struct keyring kr = {0};
	if (sub_verify(&t, &kr, NULL, &e) == 0)
		abort();
	struct entitlement_ctx c = {.sub = &t, .today = t.issued, .last_seen = -1};
	(void)entitlement_state(&c);
	return 0;
}
