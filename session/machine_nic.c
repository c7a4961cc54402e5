/* setup --switch-nic: the machine's PCnet adapters become Intel PRO/1000 MT
 * Desktops (82540EM), which MMLEM and E1000 drive; rollback gives them back
 * their types (session/session.h). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/file.h"
#include "session/session.h"

extern char **environ;

/* The switched settings as the plan sees them, made once per run. */
static int switched(struct session *s, const struct vbox_machine **m, struct wd_err *err)
{
	int r = session_machine(s, m, err);
	if (r || s->switch_made)
		return r;
	r = vbox_switch_nic_text((*m)->file, &s->sw, &s->switch_text, err);
	s->switch_made = !r;
	return r;
}

int session_switch_nic_pci(struct session *s, struct pci_list *l, int *n, struct wd_err *err)
{
	const struct vbox_machine *m;
	int r = switched(s, &m, err);
	if (r)
		return r;
	*n = s->sw.n;
	if (s->sw.n)
		return pci_parse_vbox(s->switch_text.p, s->switch_text.len, m->file, l, err);
	char *src = wd_xasprintf("vbox:%s", m->file);
	r = pci_read(src, l, err);
	free(src);
	return r;
}

/* VBoxManage ARGS...: 0, 1 when VBoxManage is not on PATH, -1 when it failed. */
static int vboxmanage(char *const argv[])
{
	pid_t pid;
	int e = posix_spawnp(&pid, "VBoxManage", NULL, NULL, argv, environ);
	if (e == ENOENT)
		return 1;
	int st;
	if (e || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/* A registered machine is VirtualBox's to write (VBoxSVC keeps its own copy
 * of the settings and would write it back over ours): VBoxManage modifyvm
 * each adapter to its type and setextradata the record (value NULL: removed).
 * 1 when the machine is not registered or VBoxManage is not on PATH. */
static int by_vboxmanage(const struct vbox_machine *m, const struct vbox_switch *sw, bool on,
			 const char *value, struct wd_err *err)
{
	char state[32];
	vbox_machine_vmstate(m, state, sizeof state);
	if (!*state)
		return 1;
	for (int i = 0; i < sw->n; i++) {
		char opt[24];
		snprintf(opt, sizeof opt, "--nictype%d", sw->slots[i] + 1);
		char *type = on ? "82540EM" : (char *)sw->types[i];
		char *argv[] = {"VBoxManage", "modifyvm", m->name, opt, type, NULL};
		if (vboxmanage(argv))
			return wd_err_set(err, WD_EFAIL, "VBoxManage modifyvm \"%s\" %s %s failed",
					  m->name, opt, type);
	}
	char *argv[] = {"VBoxManage", "setextradata", m->name, VBOX_SWITCH_KEY, (char *)value,
			NULL};
	if (vboxmanage(argv))
		return wd_err_set(err, WD_EFAIL, "VBoxManage setextradata \"%s\" %s failed",
				  m->name, VBOX_SWITCH_KEY);
	return 0;
}

/* Not registered, or no VBoxManage: the file rewritten as VirtualBox does,
 * the old one kept beside it as NAME.vbox-prev. */
static int by_file(const struct vbox_machine *m, const struct wd_buf *text, struct wd_err *err)
{
	char *prev = wd_xasprintf("%s-prev", m->file);
	int r = wd_copy_file(m->file, prev, err); /* host: the machine's settings, named by --vm */
	if (!r)
		r = wd_write_atomic(m->file, text->p, text->len, 0600, err); /* host: the machine's settings, named by --vm */
	free(prev);
	return r;
}

int session_switch_nic_apply(struct session *s, long gen, struct wd_err *err)
{
	const struct vbox_machine *m;
	int r = switched(s, &m, err);
	if (r || !s->sw.n)
		return r;
	/* again, now with the generation in the record */
	struct vbox_switch sw = {.gen = gen};
	struct wd_buf text = {0};
	r = vbox_switch_nic_text(m->file, &sw, &text, err);
	char *rec = r ? NULL : vbox_switch_format(&sw);
	if (!r && (r = by_vboxmanage(m, &sw, true, rec, err)) == 1)
		r = by_file(m, &text, err);
	if (r)
		wd_err_prefix(err, "--vm %s: the guest is configured for the 82540EM already, and "
			      "the machine's adapter could not be switched (VBoxManage modifyvm "
			      "NAME --nictype1 82540EM does it)", m->name ? m->name : m->file);
	free(rec);
	wd_buf_free(&text);
	return r;
}

int session_unswitch_nic(struct session *s, long gen, struct vbox_switch *done,
			 struct wd_err *err)
{
	const struct vbox_machine *m;
	memset(done, 0, sizeof *done);
	int r = session_machine(s, &m, err);
	struct vbox_switch sw;
	if (r || !m->switched || vbox_switch_parse(m->switched, &sw) || sw.gen < gen)
		return r;
	struct wd_buf text = {0};
	r = vbox_unswitch_nic_text(m->file, &sw, &text, err);
	if (!r && (r = by_vboxmanage(m, &sw, false, NULL, err)) == 1)
		r = by_file(m, &text, err);
	if (r)
		wd_err_prefix(err, "--vm %s: the guest is configured back, and the machine's "
			      "adapter could not be switched back (VBoxManage modifyvm NAME "
			      "--nictype%d %s does it)", m->name ? m->name : m->file,
			      sw.slots[0] + 1, sw.types[0]);
	else
		*done = sw;
	wd_buf_free(&text);
	return r;
}
