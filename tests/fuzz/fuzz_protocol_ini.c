/* PROTOCOL.INI: parse then write gives the input back; setting a keyword,
 * adding a section or a binding leaves every other line's bytes alone; the
 * other edits run to catch crashes and leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "os2/protocol_ini.h"
#include "tests/fuzz/fuzz_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void kept_after_set(struct protocol_ini *pi, size_t s)
{
	struct textlines before;
	fz_copy(&pi->t, &before);
	long line = pi_key_line(pi, s, "FUZZKEY");
	if (pi_set(pi, s, "FUZZKEY", "1"))
		abort();
	if (!fz_kept(&before, &pi->t, line))
		abort();
	struct wd_sv v;
	/* A keyword adds no header: section s is still section s. */
	if (!pi_get(pi, s, "FUZZKEY", &v) || !wd_sv_eq(v, "1"))
		abort();
	tl_free(&before);
}

static void kept_after_bind(struct protocol_ini *pi, size_t s)
{
	struct pi_bindings b0, b1;
	bool had = pi_bindings_get(pi, s, &b0);
	struct textlines before;
	fz_copy(&pi->t, &before);
	long line = pi_key_line(pi, s, "Bindings");
	if (pi_bind_add(pi, s, "NEW_nif"))
		abort();
	if (!fz_kept(&before, &pi->t, line))
		abort();
	/* Positions are kept: every old slot is where it was. */
	if (had && pi_bindings_get(pi, s, &b1)) {
		for (size_t k = 0; k < b0.n && k < b1.n; k++)
			if (b0.slot[k][0] && strcmp(b0.slot[k], b1.slot[k]))
				abort();
		pi_bindings_free(&b1);
	}
	pi_bindings_free(&b0);
	tl_free(&before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct protocol_ini pi;
	protocol_ini_parse(&pi, (const char *)data, size);
	struct wd_buf out = {0};
	protocol_ini_write(&pi, &out);
	if (out.len != size || (size && memcmp(out.p, data, size)))
		abort();
	wd_buf_free(&out);

	if (pi.nsec) {
		size_t s = size ? data[size - 1] % pi.nsec : 0;
		kept_after_set(&pi, s);
		kept_after_bind(&pi, s);
		struct textlines before;
		fz_copy(&pi.t, &before);
		if (pi_add_section(&pi, "ADDED_nif", -1) < 0)
			abort();
		if (!fz_kept(&before, &pi.t, -1))
			abort();
		tl_free(&before);
		(void)pi_rebind(&pi, "NEW_nif", "OTHER_nif");
		(void)pi_bind_remove(&pi, s, "OTHER_nif");
		(void)pi_rename_section(&pi, s, "RENAMED");
		(void)pi_lxcfg_set(&pi, "ADDED_nif", "ADDED.NIF");
		(void)pi_lxcfg_remove(&pi, "ADDED_nif");
		(void)pi_remove_section(&pi, 0);
	}
	protocol_ini_free(&pi);
	return 0;
}
