#!/bin/sh
# The confinement rule of the source tree: every file operation on an OS/2
# volume goes through the confined layer (fs/), by the root's handle. Outside
# fs/ and common/ (common/file.c and common/hash.c are the host-file
# functions: the program's own data, files named on the command line), no
# source of a folder that can touch a volume calls a path-taking file
# function of the C library, a host-path helper of common/file.h, or
# sqlite3_open_v2 (but on ":memory:"). A call on a host file that is not on
# a volume says so on its line with a comment starting "host:" (why it is
# not a volume's file), and stands out in review; so does "confined:" on the
# one SQLite open by folder handle (state/db_vfs.c).
# Usage: scripts/confine.sh [TOP]   (prints each violation; exit 1 if any)
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"
# The folders whose code can see a volume (pci/ reads sysfs and guest
# listings, netbench/ its results file: neither is given a volume).
DIRS='trust os2 state license catalog txn installer session ui'
CALLS='open|openat|openat2|creat|fopen|freopen|opendir|rename|renameat|renameat2|unlink|unlinkat|remove|rmdir|mkdir|mkdirat|mkfifo|mknod|chmod|fchmodat|chown|lchown|fchownat|link|linkat|symlink|symlinkat|truncate|stat|lstat|fstatat|access|faccessat|utime|utimes|utimensat|realpath|sqlite3_open|sqlite3_open_v2|wd_read_file|wd_write_atomic|wd_open_plain|wd_copy_file|wd_copy_mode_owner|wd_check_plain|wd_mkdirs|wd_exists|wd_is_dir|wd_fsync_dir|wd_fsync_parent|wd_sync_fs|wd_sha256_file'
find $DIRS -name '*.c' 2>/dev/null | sort | xargs grep -HnE "(^|[^A-Za-z0-9_.>])($CALLS)[[:space:]]*\(" |
	awk -v calls="$CALLS" '
	{
		split($0, p, ":"); file = p[1]; line = p[2]
		raw = $0; sub(/^[^:]*:[^:]*:/, "", raw)
		if (raw ~ /^[[:space:]]*(\*|\/\*|\/\/)/) next            # a comment line
		if (raw ~ /\/\*[[:space:]]*(host|confined):/) next         # a host file, or by handle, said so
		text = raw
		gsub(/"([^"\\]|\\.)*"/, "\"\"", text)                   # strings say nothing
		gsub(/\/\*([^*]|\*[^\/])*\*\//, "", text)                   # nor comments
		while (match(text, "(^|[^A-Za-z0-9_.>])(" calls ")[[:space:]]*\\(")) {
			call = substr(text, RSTART, RLENGTH); rest = substr(text, RSTART + RLENGTH)
			text = rest
			sub(/^[^A-Za-z_]/, "", call); sub(/[[:space:]]*\($/, "", call)
			# the *at(2) functions on a folder handle are the confined way
			if (call ~ /at$/ && rest !~ /^[[:space:]]*AT_FDCWD/) continue
			if (call ~ /^sqlite3_open/ && raw ~ /sqlite3_open(_v2)?[[:space:]]*\([[:space:]]*":memory:"/) continue
			# a definition of a function of that name (at the start of a line)
			if (raw ~ /^[a-z]/ && raw !~ /;[[:space:]]*$/) continue
			printf "%s:%s: %s() on a path outside fs/: use the confined layer (fs/fs.h) for a volume'"'"'s file, or mark a host file with /* host: why */\n", file, line, call
			bad = 1
		}
	}
	END { exit bad }'
