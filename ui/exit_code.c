#include "ui/exit_code.h"

int ui_exit_code(const struct wd_err *err, int r)
{
	switch (err ? err->kind : WD_K_NONE) {
	case WD_K_FAIL:
		return WD_EFAIL;
	case WD_K_USAGE:
		return WD_EUSAGE;
	case WD_K_TRUST:
	case WD_K_FILES_DIFFER: /* verify: exit 3 on any difference */
		return WD_ETRUST;
	case WD_K_LICENSE:
		return WD_ELICENSE;
	case WD_K_NODEV:
		return WD_ENODEV;
	case WD_K_NONE:
		break;
	}
	if (err && err->code)
		return err->code;
	return r < 0 ? -r : r ? r : WD_EFAIL;
}
