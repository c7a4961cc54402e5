/* The boot model over any CONFIG.SYS and PROTOCOL.INI: the input is split at
 * its first NUL byte into the two texts. The model builds without a crash or
 * a leak, every finding names a line inside its file, the postcondition of
 * the model against itself holds (no change, no new error), and a model
 * whose every MAC line is removed has no MAC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "installer/boot_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mmlem[] =
	"format 1\nname mmlem\nversion 1\nreleased 2023-05-01\nsummary s\nkind nic\n"
	"pci 8086:100e rank 1\ndriver MMLEM.OS2\nnif MMLEM.NIF\ndrivername MMLEM$\n"
	"instance-drivername MMLEM%d$\ninstance-switch /A%d\n"
	"file MMLEM.OS2 \\IBMCOM\\MACS\\MMLEM.OS2\nfile MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n";

static void lines_in_range(const struct boot_model *m)
{
	for (size_t i = 0; i < m->rep.n; i++) {
		const struct finding *f = &m->rep.v[i];
		size_t n = strcmp(f->file, "CONFIG.SYS") ? (m->in.pi ? m->in.pi->t.n : 0)
							 : config_sys_lines(m->in.cs);
		if (f->line > n + 1 || !f->message[0])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	const char *nul = memchr(p, 0, size);
	size_t ncs = nul ? (size_t)(nul - p) : size;
	struct config_sys cs;
	struct protocol_ini pi;
	config_sys_parse(&cs, p, ncs);
	if (nul)
		protocol_ini_parse(&pi, nul + 1, size - ncs - 1);
	struct pkg_manifest m;
	struct wd_err e;
	if (manifest_parse(mmlem, strlen(mmlem), true, "fuzz", &m, &e))
		abort();
	const struct pkg_manifest *pkgs[] = {&m};
	struct pi_location loc;
	pi_locate(&cs, 'C', &loc);
	struct boot_input in = {.cs = &cs, .pi = nul ? &pi : NULL, .loc = &loc, .pi_label = loc.path,
				.pkgs = pkgs, .npkgs = 1};
	struct boot_model a, b;
	boot_model_build(&a, &in);
	boot_model_build(&b, &in);
	lines_in_range(&a);
	if (nul && boot_postcondition(&a, &b, NULL, 0, &e) && a.nmac && a.mpts) {
		/* A plan that changes nothing adds nothing: only a binding no
		 * loaded driver answers, or an error the files had before (named
		 * as such), may fail it, and the model must have said so first. */
		if ((!strstr(e.msg, "answers to") &&
		     strncmp(e.msg, "already broken before this change: ", 35)) ||
		    !a.rep.n)
			abort();
	}
	for (size_t k = a.nmac; k-- > 0;)
		config_sys_delete(&cs, a.mac[k].line);
	boot_model_free(&a);
	boot_model_build(&a, &in);
	if (a.nmac)
		abort();
	boot_model_free(&a);
	boot_model_free(&b);
	pi_location_free(&loc);
	manifest_free(&m);
	if (nul)
		protocol_ini_free(&pi);
	config_sys_free(&cs);
	return 0;
}
