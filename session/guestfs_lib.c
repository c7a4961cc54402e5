/* libguestfs loaded with dlopen when a disk image is first opened
 * (guestfs_lib.h). */
#include "session/guestfs_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/hooks.h"

struct wd_guestfs_fns wd_guestfs;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static char why[600];

static void load_once(void)
{
	const char *name = wd_test_hook("WARPDRV_LIBGUESTFS");
	if (!name || !*name)
		name = WD_LIBGUESTFS;
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, sizeof why, "disk images are opened with libguestfs, and %s cannot be "
			 "loaded (%s); install the package %s (apt-get install %s; a host without "
			 "a kernel in /boot also needs linux-image-amd64 or its architecture's "
			 "kernel package)", name, dlerror(), WD_LIBGUESTFS_PACKAGE,
			 WD_LIBGUESTFS_PACKAGE);
		return;
	}
	struct wd_guestfs_fns t;
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define WD_GUESTFS_SYM(n) {"guestfs_" #n, offsetof(struct wd_guestfs_fns, p_##n)},
		WD_GUESTFS_FNS(WD_GUESTFS_SYM)
#undef WD_GUESTFS_SYM
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(lib, syms[i].name);
		if (!f) {
			snprintf(why, sizeof why, "%s has no %s (libguestfs 1.38 or later is "
				 "needed); install a newer package %s", name, syms[i].name,
				 WD_LIBGUESTFS_PACKAGE);
			dlclose(lib);
			return;
		}
		memcpy((char *)&t + syms[i].off, &f, sizeof f);
	}
	wd_guestfs = t;
	loaded = 0;
}

int wd_guestfs_load(void)
{
	pthread_once(&once, load_once);
	return loaded;
}

const char *wd_guestfs_why(void)
{
	return why[0] ? why : "not loaded";
}
