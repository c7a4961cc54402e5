/* libFuzzer target: the lspci and VirtualBox parsers (showvminfo
 * --machinereadable and the .vbox XML machine file, told apart by content).
 * The first byte picks lspci or vbox; the rest is the file. Every device they
 * return must be well formed, and every refusal must name the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pci/pci.h"

static void check(const struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		if (!d->slot || d->vendor > 0xffff || d->device > 0xffff || d->revision > 0xff ||
		    d->class_code > 0xffffff)
			abort();
		/* a VirtualBox adapter: numbered from 1 and attached somehow */
		if (d->adapter && (d->adapter > 64 || !d->attachment || !d->name))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct pci_list l;
	struct wd_err err;
	const char *text = (const char *)data + 1;
	int r = data[0] & 1 ? pci_parse_vbox(text, size - 1, "fuzz", &l, &err)
			    : pci_parse_lspci(text, size - 1, "fuzz", &l, &err);
	if (r == 0)
		check(&l);
	else if (!strstr(err.msg, "fuzz"))
		abort(); /* every message names the input */
	pci_list_free(&l);
	return 0;
}
