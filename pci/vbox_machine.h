/* A VirtualBox machine as --vm MACHINE names it: its settings file (NAME.vbox),
 * found directly or by name or UUID in VirtualBox's registry (VirtualBox.xml's
 * MachineRegistry in the user's VirtualBox folder), read with libxml2:
 *   - whether it has a saved state (<Machine stateFile=...>): never written;
 *   - its boot disk: the first hard disk attached to its current state's
 *     storage controllers (by controller, port, device), looked up by UUID in
 *     the media registry (the .vbox's, then VirtualBox.xml's); a location is
 *     relative to the .vbox's folder. With snapshots, the current state
 *     attaches the newest differencing image, which is the one named.
 * The NIC models are read from the same file by pci_read("vbox:FILE"). */
#ifndef WD_PCI_VBOX_MACHINE_H
#define WD_PCI_VBOX_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

struct vbox_machine {
	char *file;        /* the .vbox */
	char *name;        /* <Machine name=...> */
	char *state_file;  /* <Machine stateFile=...>, or NULL: no saved state */
	char *disk;        /* the boot disk image, or NULL: none attached */
	char *disk_format; /* the registry's format (VDI, VMDK, VHD, ...), or NULL */
	bool disk_child;   /* a differencing image (a snapshot's) */
	char *switched;    /* what setup --switch-nic changed (VBOX_SWITCH_KEY), or NULL */
};

/* The machine's ExtraData item in which setup --switch-nic records what it
 * changed, so that rollback can change it back: "GEN:SLOT=TYPE,...", the
 * generation of the setup and each adapter's slot and type before. */
#define VBOX_SWITCH_KEY "warpdrv/SwitchedNic"
#define VBOX_SWITCH_MAX 8

struct vbox_switch {
	long gen;
	int n, slots[VBOX_SWITCH_MAX];
	char types[VBOX_SWITCH_MAX][33];
};

/* The record's fields; -1 when it is not one. */
int vbox_switch_parse(const char *rec, struct vbox_switch *sw);
/* The record's text for sw. */
char *vbox_switch_format(const struct vbox_switch *sw);

/* The VirtualBox folder of the user: VBOX_USER_HOME (vbox_user_home), else
 * HOME's .config/VirtualBox, else HOME's .VirtualBox (older releases).
 * Newly allocated; NULL without HOME. */
char *vbox_config_dir(const char *vbox_user_home, const char *home);

/* MACHINE: a path to a .vbox file (it ends in .vbox or holds a '/'), else
 * a machine's name or UUID in config_dir's VirtualBox.xml. */
int vbox_machine_find(const char *machine, const char *config_dir, struct vbox_machine *m,
		      struct wd_err *err);
void vbox_machine_free(struct vbox_machine *m);

/* The machine file's text with each enabled PCnet adapter of the current
 * state (Am79C970A, Am79C973, or no type: VirtualBox's default) made an
 * Intel PRO/1000 MT Desktop (82540EM) and the record of it (generation
 * sw->gen) in its ExtraData, every other element, attribute and comment
 * kept; what changed in sw (sw->n 0: none to switch, out left empty). */
int vbox_switch_nic_text(const char *file, struct vbox_switch *sw, struct wd_buf *out,
			 struct wd_err *err);
/* The machine file's text with the adapters the record names given back
 * their types and the record removed. */
int vbox_unswitch_nic_text(const char *file, const struct vbox_switch *sw, struct wd_buf *out,
			   struct wd_err *err);

/* The machine's state as VBoxManage tells it (showvminfo --machinereadable's
 * VMState: "poweroff", "running", "saved", ...), where VBoxManage is on
 * PATH; "" where it is not, or does not know the machine. */
void vbox_machine_vmstate(const struct vbox_machine *m, char *state, size_t cap);

#endif
