/* detect's advice: the driver package each network controller would get,
 * and why not a better one or none (installer/nic_plan.h). */
#include <stdlib.h>

#include "common/buf.h"
#include "installer/nic_plan.h"

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
			/* no package drives this VirtualBox model: the one every
			 * OS/2 driver set has, the Intel PRO/1000 MT Desktop */
			why[i] = wd_xasprintf("switch the adapter to a supported Intel model: "
					      "VBoxManage modifyvm VM --nictype%d 82540EM",
					      l->devs[i].adapter ? l->devs[i].adapter : (int)nic_no);
		else if (it.nnotes)
			why[i] = wd_xstrdup(it.notes[0]);
		for (size_t k = 0; k < it.nnotes; k++)
			free(it.notes[k]);
		free(it.notes);
	}
	return 0;
}
