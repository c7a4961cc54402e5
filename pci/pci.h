/* PCI devices as the guest sees them, from one of four sources:
 *   sysfs          /sys/bus/pci/devices
 *   sysfs:DIR      the same layout under DIR
 *   lspci:FILE     the output of `lspci -n` or `lspci -nn` (- for stdin)
 *   vbox:FILE      `VBoxManage showvminfo VM --machinereadable`, or the
 *                  machine file NAME.vbox (XML), told apart by content: each
 *                  enabled adapter becomes a device with its model's PCI IDs
 * and the VirtualBox virtual NIC model each network controller is. */
#ifndef WD_PCI_H
#define WD_PCI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

#define PCI_NONE (-1) /* a field the source does not give */

struct pci_dev {
	char *slot;        /* "0000:00:03.0"; "nic2" for VBoxManage adapters */
	int vendor, device, subvendor, subdevice; /* 16 bits, or PCI_NONE */
	long class_code;   /* 24 bits (class, subclass, prog-if), or PCI_NONE */
	int revision;      /* 8 bits, or PCI_NONE */
	char *name;        /* from the PCI ID database or built in; may be NULL */
	const char *vbox_model; /* VBoxManage nictype name, or NULL */
	int adapter;       /* VBoxManage adapter number (1..), or 0 */
	char *attachment;  /* VBoxManage nicN value (nat, bridged, ...), or NULL */
};

struct pci_list {
	struct pci_dev *devs;
	size_t n;
	char *source;    /* "sysfs:/sys/bus/pci/devices", "lspci:FILE", ... */
	bool virtualbox; /* a VirtualBox guest (80EE:CAFE present, or vbox source) */
};

/* Reads devices from SOURCE (NULL: sysfs). Messages name the path and line. */
int pci_read(const char *source, struct pci_list *out, struct wd_err *err);
int pci_read_sysfs(const char *dir, struct pci_list *out, struct wd_err *err);
/* Parsers of text already read; name is used in messages. */
int pci_parse_lspci(const char *text, size_t len, const char *name, struct pci_list *out,
		    struct wd_err *err);
/* Either VirtualBox form: text starting with '<' (after a BOM and blanks)
 * is a .vbox file, text with KEY="VALUE" lines machine-readable output;
 * anything else is refused (WD_EFAIL), naming the file. */
int pci_parse_vbox(const char *text, size_t len, const char *name, struct pci_list *out,
		   struct wd_err *err);
void pci_list_free(struct pci_list *l);

bool pci_is_network(const struct pci_dev *d);
/* Names each device from the PCI ID database at path (NULL: the usual places);
 * devices it does not know keep the built-in names of VirtualBox's devices.
 * A missing database is no error. */
int pci_name_devices(struct pci_list *l, const char *ids_path, struct wd_err *err);

/* VirtualBox's virtual NICs: VBoxManage's nictype names and their PCI identity. */
struct vbox_nic_model {
	const char *nictype; /* "82540EM" */
	const char *title;   /* "Intel PRO/1000 MT Desktop" */
	int vendor, device, subvendor, subdevice, revision; /* PCI_NONE: not PCI / any */
};
const struct vbox_nic_model *vbox_model_by_nictype(const char *nictype);
/* Every model (*n of them), the PCI ones first, in VirtualBox's order. */
const struct vbox_nic_model *vbox_model_table(size_t *n);
/* The model of a network controller, by its IDs (and revision for PCnet). */
const struct vbox_nic_model *vbox_model_of(const struct pci_dev *d);

#endif
