/* detect's advice: the driver package each network controller would get,
 * and why not a better one or none (installer/nic_plan.h). */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "installer/nic_plan.h"

/* The VirtualBox model every OS/2 driver set drives (the Intel PRO/1000 MT
 * Desktop): the one to switch an unsupported adapter to. */
#define NIC_SWITCH_TO "82540EM"

char *nic_switch_command(int adapter)
{
	if (adapter > 0)
		return wd_xasprintf("VBoxManage modifyvm VM --nictype%d " NIC_SWITCH_TO, adapter);
	return wd_xstrdup("VBoxManage modifyvm VM --nictypeN " NIC_SWITCH_TO);
}

char *nic_unsupported_why(const struct pci_dev *d, int adapter)
{
	if (d->vbox_model && strcmp(d->vbox_model, NIC_SWITCH_TO)) {
		char *cmd = nic_switch_command(adapter);
		char *why = wd_xasprintf("no package drives the VirtualBox %s at %s; switch the "
					 "adapter to a supported Intel model on the host: %s",
					 d->vbox_model, d->slot, cmd);
		free(cmd);
		return why;
	}
	if (d->vbox_model)
		return wd_xasprintf("no package drives the VirtualBox %s at %s: the repositories "
				    "hold no driver for it ('warpdrv list' shows what they offer)",
				    d->vbox_model, d->slot);
	return wd_xasprintf("no package drives the network controller at %s (%04x:%04x)", d->slot,
			    d->vendor & 0xffff, d->device & 0xffff);
}

int nic_advise(const struct nic_plan_in *in, const struct pci_list *l, char **driver,
	       char **why, struct wd_err *err)
{
	(void)err;
	size_t nic_no = 0;
	for (size_t i = 0; i < l->n; i++) {
		driver[i] = why[i] = NULL;
		if (!pci_is_network(&l->devs[i]))
			continue;
		nic_no++;
		struct nic_item it = {.dev = &l->devs[i]};
		struct wd_err e = {0};
		int c = nic_choose(in, &l->devs[i], &it, &e);
		if (c > 0)
			driver[i] = wd_xstrdup(it.pkg->m.name);
		if (c < 0)
			why[i] = wd_xstrdup(e.msg);
		else if (c == 0 && l->devs[i].vbox_model)
			why[i] = nic_unsupported_why(&l->devs[i], l->devs[i].adapter ? l->devs[i].adapter
										   : (int)nic_no);
		else if (it.nnotes)
			why[i] = wd_xstrdup(it.notes[0]);
		for (size_t k = 0; k < it.nnotes; k++)
			free(it.notes[k]);
		free(it.notes);
	}
	return 0;
}
