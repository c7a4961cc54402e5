/* What the parsers of pci/ share; not for other folders. */
#ifndef WD_PCI_PARSE_H
#define WD_PCI_PARSE_H

#include "pci/pci.h"

/* A new device with every field PCI_NONE. */
struct pci_dev *pci_add_dev(struct pci_list *l);
/* After parsing: the VirtualBox flag and each network controller's model. */
void pci_finish(struct pci_list *l);
/* VirtualBox adapter n (1-based, as VBoxManage numbers them) attached as
 * attach ("nat", "bridged", ...) of nictype type: a device with the
 * model's PCI identity, or a named one driven by nothing when the type is
 * newer than the model table. */
void vbox_add_adapter(struct pci_list *l, int n, const char *attach, const char *type);
/* A VirtualBox machine file (.vbox, XML): the <Adapter> elements of
 * <Network>; pci_parse_vbox hands it over when the text starts with '<'. */
int pci_parse_vbox_xml(const char *text, size_t len, const char *name, struct pci_list *out,
		       struct wd_err *err);
/* A VirtualBox settings file parsed with libxml2 from memory, with no
 * network, no DTD and no entity expansion (an xmlDoc *, freed with
 * xmlFreeDoc); its first fault is the message: "NAME line N: ...". */
int vbox_xml_read(const char *text, size_t len, const char *name, void **doc,
		  struct wd_err *err);

#endif
