#include "installer/generation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs.h"
#include "common/file.h"
#include "common/hash.h"

char *generation_dir(long n)
{
	return wd_xasprintf("%s/%ld", WD_GENERATIONS_DIR, n);
}

int generation_plan(const struct volume *v, struct txn_plan *plan, struct generation_note *note,
		    const char *const *files, const struct wd_buf *old, const struct wd_buf *new_,
		    size_t nfiles, struct wd_err *err)
{
	char *dir = generation_dir(note->n);
	int r = 0;
	size_t changed = 0;
	for (size_t i = 0; !r && i < nfiles; i++) {
		if (old[i].len == new_[i].len && !memcmp(old[i].p, new_[i].p, old[i].len))
			continue;
		/* The plan was made from bytes read before the lock was taken:
		 * refuse to write over a file that changed since. */
		char *abs = wd_path_join(v->root, files[i]);
		char now[WD_SHA256_HEX], then[WD_SHA256_HEX];
		r = fs_sha256(&v->fs, abs, now, err);
		wd_sha256_hex(old[i].p, old[i].len, then);
		if (!r && strcmp(now, then))
			r = wd_err_set(err, WD_EFAIL, "%s changed while warpdrv was planning; "
				       "nothing was written: run the command again", abs);
		free(abs);
		if (!r)
			r = txn_plan_config(v, plan, files[i], dir, new_[i].p, new_[i].len, err);
		changed++;
	}
	free(dir);
	if (changed) {
		free(plan->done_extra);
		free(plan->gen_command);
		free(plan->gen_summary);
		plan->gen_n = note->n;
		plan->gen_command = wd_xstrdup(note->command);
		plan->gen_summary = wd_xstrdup(note->summary ? note->summary : "");
		plan->done_extra = wd_xasprintf("generation %ld", note->n);
	}
	return r;
}

