/* What the bench subcommands share (ui/cmd_bench.c, ui/cmd_bench_report.c). */
#ifndef WD_CMD_BENCH_H
#define WD_CMD_BENCH_H

#include <stdbool.h>

#include "netbench/bench_db.h"
#include "ui/commands.h"

#define BENCH_MIB (1024.0 * 1024.0)
#define BENCH_MAX_ROUNDS 100      /* bench client --rounds, bench report --runs */

struct bench_opts {
	const char *db, *label, *bind, *labels, *svg, *host, *file;
	int port, block;
	int rounds;   /* client: runs of the whole test (default 1) */
	int runs;     /* report: the latest runs of each label (default BENCH_MAX_ROUNDS) */
	double seconds;
	enum netio_proto proto;
};

/* The options the subcommands share (--db, --label, --port, ...), from
 * those given (UI_ARGS): 0, or 2 after a usage error (already reported). */
int bench_read_opts(struct wd_ctx *ctx, struct bench_opts *o);
/* --db, else the default results file. */
int bench_open_db(struct wd_ctx *ctx, const struct bench_opts *o, bool create, bool *exists,
		  struct db *db);
int bench_report(struct wd_ctx *ctx, int argc, char **argv);

#endif
