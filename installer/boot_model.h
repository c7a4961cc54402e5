/* The boot model: what the guest's network does at the next boot, derived
 * from CONFIG.SYS and the PROTOCOL.INI that PROTMAN reads. `warpdrv check`
 * reports its findings; every planner builds it before and after a change
 * and refuses a change that fails the postcondition. Each fact knows where
 * it came from, so a rule is an error only where the model is sure and a
 * warning, saying how to make it certain, where a fact was guessed. The model
 * and its rules: docs/config-files.md. */
#ifndef WD_BOOT_MODEL_H
#define WD_BOOT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/manifest.h"
#include "common/err.h"
#include "installer/finding.h"
#include "os2/config_sys.h"
#include "os2/nameidx.h"
#include "os2/protocol_ini.h"
#include "os2/volfiles.h"

/* Where an instance's DriverName came from. */
enum bm_source {
	BM_FROM_NIF,     /* the volume's NIF whose [FILE] Name is the driver */
	BM_FROM_PACKAGE, /* the manifest of the package of that driver */
	BM_GUESSED,      /* a naming convention: not verified */
};

/* One MAC driver instance that loads: a DEVICE= line. */
struct bm_mac {
	size_t line;
	char *file;          /* "E1000.OS2" as written */
	int instance;        /* 1 for the first line loading that file */
	char *drivername;    /* what it answers to in PROTOCOL.INI */
	enum bm_source source;
	long section;        /* the section with that DriverName, or -1 */
	const struct pkg_manifest *pkg; /* the package of that driver, or NULL */
	bool paired;         /* section: the one bound section that could be its */
};

/* A protocol: a PROTOCOL.INI section with Bindings. */
struct bm_proto {
	size_t section;
	char *drivername;    /* "netbeui$", or "" */
	const char *file;    /* the driver that serves it ("NETBEUI.OS2"), NULL: unknown */
	long line;           /* the DEVICE= line loading file, or -1 */
	struct pi_bindings b;
	long bindings_line;
};

/* A NetBIOS adapter: "ADAPTER1 = netbeui$,1" is adapter 1, the protocol
 * netbeui$'s binding at position 1 (from 0). */
struct bm_netbios {
	int n;
	char *drivername;  /* "netbeui$" */
	long slot;         /* -1 when the value gives none */
	size_t line;
};

/* What the model is built from; all borrowed. */
struct boot_input {
	const struct config_sys *cs;
	const struct protocol_ini *pi;   /* NULL: PROTMAN's PROTOCOL.INI was not read */
	const struct pi_location *loc;
	const char *pi_label;            /* "IBMCOM\PROTOCOL.INI" in findings */
	bool stale_ibmcom;               /* \IBMCOM\PROTOCOL.INI there but not read */
	const struct vol_nif *nifs;
	size_t nnifs;
	const struct pkg_manifest *const *pkgs; /* the NIC packages known */
	size_t npkgs;
	/* NETBIND.EXE in PROTMAN's folder\PROTOCOL on this volume: 0 not looked,
	 * 1 there, -1 missing (the no-netbind rule then says to put it there). */
	int netbind_file;
};

/* Who gives a DriverName: the files of the NIFs and packages naming it. */
struct bm_owner {
	const char *file; /* the one file, when one and only one gives it */
	bool many;        /* several files, or a NIF without [FILE] Name: any */
};

/* The model's lookups, so that each rule is one pass over the files
 * (private to boot_model.c and boot_rules.c). */
struct bm_index {
	struct nameidx nif_file;  /* a NIF's [FILE] Name (trimmed) -> first NIF */
	struct nameidx mac_file;  /* a MAC's file -> how many lines load it */
	struct nameidx mac_dn;    /* a MAC's DriverName -> first MAC */
	struct nameidx bound;     /* a name in some Bindings -> its first rank */
	size_t nranks;            /* every slot of every Bindings */
	bool any_binding;         /* some slot not empty */
	struct nameidx owner_of;  /* DriverName -> owners[] */
	struct bm_owner *owners;
	size_t nowners;
	char **owned;             /* the package DriverNames owner_of points into */
	size_t nowned;
	struct nameidx guessed;   /* files of guessed MACs without a section */
	bool any_guessed;
	long proto_line[2];       /* DEVICE= line of each protocol file; -2: not looked */
	struct nameidx proto_of;  /* protocol section name -> first bm_proto */
	/* boot_candidates: per section 0 none, 1 candidate for every MAC, 2 for
	 * the MACs of cand_file[s] only; cand_next links those of one file in
	 * file order from cand_head. */
	struct wd_sv *dn;         /* each section's DriverName, looked up once */
	unsigned char *dn_state;  /* 0 not yet, 1 none, 2 dn[s] */
	bool cand_ok;
	unsigned char *cand;
	const char **cand_file;
	size_t *cand_next;
	struct nameidx cand_head;
	struct nameidx cand_count; /* file -> how many sections are 2 for it */
	size_t *cand_all;         /* the sections that are 1, in file order */
	size_t ncand_all;
	/* a vendor's instance names: a DriverName less its last letter or
	 * digit and `$` ("ELNK16" of ELNK16X$) -> its first section; vendor_next
	 * links the sections of one such stem in file order (SIZE_MAX ends) */
	bool vendor_built;
	struct nameidx vendor;
	size_t *vendor_next;
};

struct boot_model {
	struct boot_input in;
	struct bm_index *ix;
	bool lanman;          /* networking by LAN Manager, not MPTS */
	char *lanman_why;     /* what showed it */
	long lanman_line;
	bool mpts;            /* PROTOCOL.INI has PROTMAN's section (DriverName PROTMAN$) */
	struct bm_mac *mac;
	size_t nmac;
	struct bm_proto *proto;
	size_t nproto;
	long netbind;         /* the CALL=/RUN= line of NETBIND.EXE, or -1 */
	long autonic;         /* the DEVICE= line of AUTONIC.SYS, or -1: at each boot it
			       * copies the card's \IBMCOM\AUTO\VVVV.DDDD files over
			       * PROTOCOL.INI and \IBMCOM\MACS\AUTO.OS2 */
	struct bm_netbios *adapters; /* the [NETBIOS] ADAPTERn lines, in file order */
	size_t nadapters;
	struct check_report rep; /* the networking findings */
};

void boot_model_build(struct boot_model *m, const struct boot_input *in);
void boot_model_free(struct boot_model *m);

/* Is this statement a MAC driver's DEVICE= line (in \IBMCOM\MACS, or a file
 * a NIF on the volume or a package names)? The one rule for it. */
bool boot_is_mac_line(const struct boot_input *in, const struct cs_stmt *st);
/* The MAC instance whose DriverName is section s's, or -1. */
long boot_answering(const struct boot_model *m, size_t s);
/* The sections MAC instance mac may answer to though its DriverName is
 * unknown: bound by a protocol, answered by no loaded driver, with a
 * DriverName no NIF or package gives another driver. Their indexes go to out
 * (room for pi->nsec; NULL: only count), in file order; how many. */
size_t boot_candidates(const struct boot_model *m, size_t mac, size_t *out);
/* The first candidate of mac into out[0] (when it has one). */
void candidates_first(const struct boot_model *m, size_t mac, size_t *out);
/* Where name is first bound: protocols in file order, slots in order, all
 * slots counted; past the last when it is bound nowhere. */
size_t boot_binding_rank(const struct boot_model *m, const char *name);
/* Is dn given by a NIF or package of a driver other than file (NULL: of
 * any driver)? */
bool boot_others_drivername(const struct boot_model *m, struct wd_sv dn, const char *file);
/* The DriverName of instance k of file: source and value (malloc'd). */
char *boot_drivername(const struct boot_input *in, const char *file, int k,
		      enum bm_source *src);

/* One adapter a plan replaces: protocols bound to old_section must be bound
 * to new_section, at the same position. */
struct boot_change {
	const char *old_section;
	const char *new_section;
};

/* The postcondition of a planned change, before anything is written: every
 * protocol that was bound to a replaced adapter is bound to its new section at
 * the same position; no binding names a section that no loaded driver answers
 * to; the new model has no error the old one did not. 0, or WD_EFAIL with the
 * reason. */
int boot_postcondition(const struct boot_model *old, const struct boot_model *new_,
		       const struct boot_change *ch, size_t n, struct wd_err *err);

/* Section s's DriverName, as pi_get gives it, looked up once per model. */
bool boot_section_dn(const struct boot_model *m, size_t s, struct wd_sv *dn);

/* The CALL= line that runs NETBIND.EXE from PROTMAN's folder
 * ("CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE", malloc'd), its path on the
 * volume ("\IBMCOM\PROTOCOL\NETBIND.EXE", malloc'd, NULL: PROTMAN's folder is
 * on another drive) and the line it goes after (the last MAC or protocol
 * DEVICE= line); false when the model has no MAC. The no-netbind rule and
 * setup's repair of it say the same line. */
bool boot_netbind_fix(const struct boot_model *m, char **line, char **os2path, size_t *after);

/* The rules (installer/boot_rules.c), run by boot_model_build. */
void boot_rules(struct boot_model *m);

#endif
