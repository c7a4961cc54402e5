#!/usr/bin/env bash
# make demo's script, on the build being tested: it must run through and end
# with a volume that `warpdrv check` passes and that boots MMLEM.
. "$(dirname "$0")/lib.sh"

t_demo_runs_again_and_again() {
	for round in 1 2; do
		run sh "$SRC/scripts/demo.sh" "$WARPDRV_BUILD" "$T/demo"
		assert_rc 0
		assert_out "Done: generation 1."
		assert_out "No problems found"
		grep -q 'DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2' "$T/demo/volume/CONFIG.SYS" ||
			fail "round $round: the demo volume does not load MMLEM"
	done
}

run_tests
