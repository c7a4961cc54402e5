/* VirtualBox's virtual hardware, as VirtualBox presents it (docs/os2-facts.md,
 * "VirtualBox's virtual hardware"). */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "pci/pci.h"

static const struct vbox_nic_model models[] = {
	/* The two PCnet models differ only in the revision: 0x40 is the Am79C973. */
	{"Am79C970A", "AMD PCnet-PCI II", 0x1022, 0x2000, 0x1022, 0x2000, 0x16},
	{"Am79C973", "AMD PCnet-FAST III", 0x1022, 0x2000, 0x1022, 0x2000, 0x40},
	/* Revision 02, as a VirtualBox guest's lspci shows it. */
	{"82540EM", "Intel PRO/1000 MT Desktop", 0x8086, 0x100e, 0x8086, 0x001e, 0x02},
	{"82543GC", "Intel PRO/1000 T Server", 0x8086, 0x1004, 0x8086, 0x1004, PCI_NONE},
	{"82545EM", "Intel PRO/1000 MT Server", 0x8086, 0x100f, 0x15ad, 0x0750, PCI_NONE},
	{"virtio", "virtio-net", 0x1af4, 0x1000, 0x1af4, 0x0001, PCI_NONE},
	/* Adapters that are not PCI devices (newer VirtualBox versions). */
	{"Am79C960", "AMD PCnet-ISA", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"NE1000", "Novell NE1000", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"NE2000", "Novell NE2000", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"WD8003", "WD8003", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"WD8013", "WD8013", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"3C503", "3Com EtherLink II", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
	{"3C501", "3Com EtherLink", PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE, PCI_NONE},
};

const struct vbox_nic_model *vbox_model_table(size_t *n)
{
	*n = sizeof models / sizeof *models;
	return models;
}

const struct vbox_nic_model *vbox_model_by_nictype(const char *nictype)
{
	for (size_t i = 0; i < sizeof models / sizeof *models; i++)
		if (!strcasecmp(models[i].nictype, nictype))
			return &models[i];
	return NULL;
}

const struct vbox_nic_model *vbox_model_of(const struct pci_dev *d)
{
	if (!pci_is_network(d) || d->vendor == PCI_NONE)
		return NULL;
	for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
		const struct vbox_nic_model *m = &models[i];
		if (m->vendor == PCI_NONE || m->vendor != d->vendor || m->device != d->device)
			continue;
		if (m->vendor == 0x1022) {
			bool fast = d->revision == 0x40;
			if (fast != (m->revision == 0x40))
				continue;
		}
		return m;
	}
	return NULL;
}

