/* What the bench subcommands share (ui/cmd_bench.c, ui/cmd_bench_report.c). */
#ifndef WD_CMD_BENCH_H
#define WD_CMD_BENCH_H

#include <stdbool.h>

#include "netbench/bench_db.h"
#include "ui/commands.h"

#define BENCH_MIB (1024.0 * 1024.0)

struct bench_opts {
	const char *db, *label, *bind, *labels, *svg, *host, *file;
	int port, block;
	double seconds;
	enum netio_proto proto;
};

/* The options every subcommand shares; `allowed` names the valued ones this
 * subcommand takes, e.g. "db label port". 1 when argv[*i] was one, 0 when
 * not, a negative code on a usage error (already reported). */
int bench_common_opt(struct wd_ctx *ctx, int argc, char **argv, int *i, const char *allowed,
		     struct bench_opts *o);
/* --db, else the default results file. */
int bench_open_db(struct wd_ctx *ctx, const struct bench_opts *o, bool create, bool *exists,
		  struct db *db);
int bench_report(struct wd_ctx *ctx, int argc, char **argv);

#endif
