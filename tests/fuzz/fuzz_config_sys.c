/* CONFIG.SYS: parse then write gives the input back; an edit leaves every
 * other line's bytes alone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "os2/boot_drive.h"
#include "os2/config_sys.h"
#include "tests/fuzz/fuzz_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_sys cs;
	config_sys_parse(&cs, (const char *)data, size);
	struct wd_buf out = {0};
	config_sys_write(&cs, &out);
	if (out.len != size || (size && memcmp(out.p, data, size)))
		abort();
	wd_buf_free(&out);

	(void)boot_drive_detect(&cs);
	for (size_t i = 0; i < config_sys_lines(&cs); i++) {
		struct cs_stmt st;
		if (config_sys_stmt(&cs, i, &st) && st.loads && st.name.n > st.path.n)
			abort();
	}
	(void)config_sys_find(&cs, 0, "DEVICE", "E1000.OS2");

	size_t n = config_sys_lines(&cs);
	if (n) {
		size_t at = size ? data[0] % n : 0;
		struct textlines before;
		fz_copy(&cs.t, &before);
		if (config_sys_replace(&cs, at, "DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2"))
			abort();
		if (!fz_kept(&before, &cs.t, (long)at) || cs.t.n != before.n)
			abort();
		tl_free(&before);
		fz_copy(&cs.t, &before);
		if (config_sys_insert_after(&cs, at, "REM warpdrv"))
			abort();
		if (!fz_kept(&before, &cs.t, -1) || cs.t.n != before.n + 1)
			abort();
		tl_free(&before);
		fz_copy(&cs.t, &before);
		if (config_sys_delete(&cs, at))
			abort();
		if (cs.t.n != before.n - 1)
			abort();
		tl_free(&before);
	}
	config_sys_free(&cs);
	return 0;
}
