/* setup --switch-nic: the machine's PCnet adapters become Intel PRO/1000 MT
 * Desktops (82540EM), which MMLEM and E1000 drive (session/session.h). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/file.h"
#include "session/session.h"

extern char **environ;

/* The switched settings, made once per run. */
static int switched(struct session *s, const struct vbox_machine **m, struct wd_err *err)
{
	int r = session_machine(s, m, err);
	if (r || s->switch_made)
		return r;
	r = vbox_switch_nic_text((*m)->file, &s->switch_text, s->switch_slots, &s->nswitch, err);
	s->switch_made = !r;
	return r;
}

int session_switch_nic_pci(struct session *s, struct pci_list *l, int *n, struct wd_err *err)
{
	const struct vbox_machine *m;
	int r = switched(s, &m, err);
	if (r)
		return r;
	*n = s->nswitch;
	if (s->nswitch)
		return pci_parse_vbox(s->switch_text.p, s->switch_text.len, m->file, l, err);
	char *src = wd_xasprintf("vbox:%s", m->file);
	r = pci_read(src, l, err);
	free(src);
	return r;
}

/* VBoxManage modifyvm NAME --nictypeN 82540EM: 0, 1 when VBoxManage is not
 * on PATH, else the error. */
static int modifyvm(const struct vbox_machine *m, int slot, struct wd_err *err)
{
	char opt[24];
	snprintf(opt, sizeof opt, "--nictype%d", slot + 1);
	char *argv[] = {"VBoxManage", "modifyvm", m->name, opt, "82540EM", NULL};
	pid_t pid;
	int e = posix_spawnp(&pid, "VBoxManage", NULL, NULL, argv, environ);
	if (e == ENOENT)
		return 1;
	int st;
	if (e || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return wd_err_set(err, WD_EFAIL, "--vm %s: VBoxManage modifyvm \"%s\" %s 82540EM "
				  "failed; the guest is configured for the 82540EM already: run that "
				  "command, or 'warpdrv --vm %s rollback'", m->name, m->name, opt,
				  m->name);
	return 0;
}

int session_switch_nic_apply(struct session *s, struct wd_err *err)
{
	const struct vbox_machine *m;
	int r = switched(s, &m, err);
	if (r || !s->nswitch)
		return r;
	/* A registered machine is VirtualBox's to write (VBoxSVC keeps its own
	 * copy of the settings and would write it back over ours). */
	char state[32];
	vbox_machine_vmstate(m, state, sizeof state);
	if (*state) {
		for (int i = 0; i < s->nswitch && !r; i++)
			r = modifyvm(m, s->switch_slots[i], err);
		if (r <= 0)
			return r;
	}
	/* Not registered, or no VBoxManage: the file rewritten as VirtualBox
	 * does, the old one kept beside it as NAME.vbox-prev. */
	char *prev = wd_xasprintf("%s-prev", m->file);
	r = wd_copy_file(m->file, prev, err); /* host: the machine's settings, named by --vm */
	if (!r)
		r = wd_write_atomic(m->file, s->switch_text.p, s->switch_text.len, 0600, err); /* host: the machine's settings, named by --vm */
	if (r)
		wd_err_prefix(err, "--vm %s: the guest is configured for the 82540EM already, and "
			      "the machine's adapter could not be switched", m->name ? m->name : m->file);
	free(prev);
	return r;
}
