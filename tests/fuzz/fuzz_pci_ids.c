/* The pci.ids scanner. The first byte is how many devices to name (up to 8),
 * then four bytes each (vendor, device, little-endian); the rest is the
 * database, read from a file as `detect --pci-ids FILE` does. No line ending
 * of the database stays in a name. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pci/pci.h"
#include "fuzz_tmp.h"

/* Whether a CR stands anywhere but before a line break: then it is the
 * database's own text, and may be in a name. */
static bool lone_cr(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\r' && i + 1 < n && p[i + 1] != '\n')
			return true;
	return false;
}

static void check_name(const char *name, bool cr_ok)
{
	if (name && (strchr(name, '\n') || (!cr_ok && strchr(name, '\r'))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = data[0] % 9;
	if (size < 1 + 4 * n)
		return 0;
	struct pci_list l = {0};
	l.devs = wd_xcalloc(n ? n : 1, sizeof *l.devs);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = data + 1 + 4 * i;
		struct pci_dev *d = &l.devs[i];
		d->slot = wd_xasprintf("0000:00:%02zx.0", i);
		d->vendor = p[0] | p[1] << 8;
		d->device = p[2] | p[3] << 8;
		d->subvendor = d->subdevice = d->revision = PCI_NONE;
		d->class_code = PCI_NONE;
		l.n++;
	}
	char *path = fz_put("pci.ids", data + 1 + 4 * n, size - 1 - 4 * n);
	struct wd_err err;
	if (pci_name_devices(&l, path, &err))
		abort();
	bool cr_ok = lone_cr(data + 1 + 4 * n, size - 1 - 4 * n);
	for (size_t i = 0; i < l.n; i++)
		check_name(l.devs[i].name, cr_ok);
	free(path);
	pci_list_free(&l);
	return 0;
}
