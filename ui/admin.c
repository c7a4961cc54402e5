/* warpdrv-admin: the vendor's program (keys, packing, indexes, subscriptions). */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv-admin", commands,
		       "Usage: warpdrv-admin [OPTIONS] COMMAND [ARGS]\n\n"
		       "The vendor's side of warpdrv: signing keys, packages, repository\n"
		       "indexes and subscription keys.");
}
