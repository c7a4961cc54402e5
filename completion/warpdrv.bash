# bash completion for warpdrv and warpdrv-admin: commands, options (global and
# each command's), package names, and files or folders for the options that
# take them. The commands and options are read from the program's own --help,
# so the completion follows the program installed; package names come from
# `warpdrv --json list` (with the --root given on the line, if any).
# Installed as share/bash-completion/completions/warpdrv (and warpdrv-admin).

# Global options that take a value.
_warpdrv_valued='--root --pci --pci-ids --repo --keys --boot-drive --cacert --connect-timeout --speed-limit --speed-time --max-time'

# The command names of PROG's --help ("Commands:" lines).
_warpdrv_cmds() {
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p'
}

# The options in a help text on stdin.
_warpdrv_grep_opts() {
	grep -o -- '\(^\|[ ,[|]\)--\?[a-z][a-z-]*' | sed 's/^[ ,[|]//' | grep -- '^-' | sort -u
}

# The global options (the "Global options:" part of PROG --help), or with CMD
# the options of PROG CMD --help.
_warpdrv_opts() {
	if [ $# -eq 1 ]; then
		"$1" --help 2>/dev/null | sed -n '/^Global options:/,/^$/p' | _warpdrv_grep_opts
	else
		"$1" "$2" --help 2>/dev/null | sed '/^Global options: see/d' | _warpdrv_grep_opts
	fi
}

# Package names: PROG [--root DIR] --json list [ARGS] (on offer, or --installed).
_warpdrv_pkgs() {
	local prog=$1
	shift
	"$prog" "${_warpdrv_root[@]}" --json list "$@" 2>/dev/null | grep -o '"name": "[^"]*"' |
		sed 's/.*: "\(.*\)"/\1/'
}

_warpdrv() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]} cmd= i w
	_warpdrv_root=()
	COMPREPLY=()
	# The command: the first word that is neither a global option nor its value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case " $_warpdrv_valued " in
		*" $w "*)
			[ "$w" = --root ] && _warpdrv_root=(--root "${COMP_WORDS[i + 1]}")
			i=$((i + 1))
			continue
			;;
		esac
		case $w in
		--root=*) _warpdrv_root=("$w") ;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=$w ;;
		esac
	done
	case $prev in
	--root | --keys | --out | --vendor-files)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--pci)
		mapfile -t COMPREPLY < <(compgen -W 'sysfs sysfs: lspci: vbox:' -- "$cur")
		case $cur in
		sysfs:* | lspci:* | vbox:*)
			local kind=${cur%%:*}
			mapfile -t COMPREPLY < <(compgen -f -- "${cur#*:}" | sed "s|^|$kind:|")
			;;
		esac
		return
		;;
	--pci-ids | --cacert | --file | --key | --db)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--repo | --boot-drive | --connect-timeout | --speed-limit | --speed-time | --max-time | \
		--serial | --expires | --issued | --customer | --entitlements | --seats | --mirror)
		return
		;;
	esac
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_warpdrv_opts "$prog")" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_warpdrv_cmds "$prog")" -- "$cur")
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_warpdrv_opts "$prog" "$cmd") $(_warpdrv_opts "$prog")" -- "$cur")
		return
	fi
	# install|info NAME=VERSION: the versions `warpdrv info NAME` lists ('=' may
	# be a word of its own, as COMP_WORDBREAKS has it by default)
	local name=
	if [ "$prev" = = ] && [ "$COMP_CWORD" -ge 2 ]; then
		name=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == *=* ]]; then
		name=${cur%%=*}
	fi
	if [ -n "$name" ] && [ "${prog##*/}" = warpdrv ] && [[ $cmd == install || $cmd == info ]]; then
		local v vers
		vers=$("$prog" "${_warpdrv_root[@]}" --json info "$name" 2>/dev/null |
			grep -o '"version": "[^"]*"' | sed 's/.*: "\(.*\)"/\1/' | sort -u)
		[[ $cur == *=* ]] && vers=$(for v in $vers; do echo "$name=$v"; done)
		mapfile -t COMPREPLY < <(compgen -W "$vers" -- "$cur")
		return
	fi
	case ${prog##*/}:$cmd in
	warpdrv:install | warpdrv:info | warpdrv:upgrade)
		mapfile -t COMPREPLY < <(compgen -W "$(_warpdrv_pkgs "$prog")" -- "$cur")
		if [ "$cmd" != upgrade ]; then
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.wdp' -- "$cur"; compgen -d -- "$cur")
		fi
		;;
	warpdrv:remove | warpdrv:reinstall | warpdrv:hold | warpdrv:unhold | warpdrv:verify)
		# those installed on the volume named, else those on offer
		local pkgs
		pkgs=$([ ${#_warpdrv_root[@]} -gt 0 ] && _warpdrv_pkgs "$prog" --installed)
		[ -n "$pkgs" ] || pkgs=$(_warpdrv_pkgs "$prog")
		mapfile -t COMPREPLY < <(compgen -W "$pkgs" -- "$cur")
		;;
	warpdrv:configure) mapfile -t COMPREPLY < <(compgen -W 'nic acpi' -- "$cur") ;;
	warpdrv:bench) mapfile -t COMPREPLY < <(compgen -W 'server client import report' -- "$cur") ;;
	warpdrv:repo) mapfile -t COMPREPLY < <(compgen -W 'add list remove' -- "$cur") ;;
	warpdrv-admin:pack | warpdrv-admin:index | warpdrv-admin:verify)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	esac
}
complete -F _warpdrv warpdrv warpdrv-admin
