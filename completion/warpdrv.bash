# bash completion for warpdrv and warpdrv-admin: commands, options (global and
# each command's), the value of every option that takes one, package names.
# The commands, the options and which of them take a value (and what: DIR,
# FILE, SOURCE, WHEN, ...) are read from the program's own --help, so the
# completion follows the program installed; package names come from
# `warpdrv --json list` (with the --root given on the line, if any).
# Installed as share/bash-completion/completions/warpdrv (and warpdrv-admin).

# The command names of PROG's --help ("Commands:" lines).
_warpdrv_cmds() {
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p'
}

# The options in a help text on stdin.
_warpdrv_grep_opts() {
	grep -o -- '\(^\|[ ,[|]\)--\?[a-z][a-z-]*' | sed 's/^[ ,[|]//' | grep -- '^-' | sort -u
}

# The help of PROG (global options) or of PROG CMD.
_warpdrv_help() {
	if [ $# -eq 1 ]; then
		"$1" --help 2>/dev/null | sed -n '/^Global options:/,/^$/p'
	else
		"$1" "$2" --help 2>/dev/null | sed '/^Global options: see/d'
	fi
}

# The options of PROG, or with CMD those of PROG CMD.
_warpdrv_opts() {
	_warpdrv_help "$@" | _warpdrv_grep_opts
}

# The options that take a value, one a line: "--root DIR", and "-p N" for an
# option with a letter ("  -p, --port N" in the help's option lists).
_warpdrv_valued() {
	_warpdrv_help "$@" | sed -n '/^\(Global options\|Options\):/,/^$/{
		s/^  -\(.\), --\([a-z][a-z-]*\) \([^ ][^ ]*\).*/--\2 \3\n-\1 \3/p
		s/^  --\([a-z][a-z-]*\) \([^ ][^ ]*\).*/--\1 \2/p
	}'
}

# The value placeholder OPT takes (DIR, FILE, SOURCE, ...), from the lines of
# _warpdrv_valued in $_warpdrv_vals; empty when OPT takes none.
_warpdrv_arg() {
	local o a
	while read -r o a; do
		[ "$o" = "$1" ] && { echo "$a"; return; }
	done <<<"$_warpdrv_vals"
}

# The values for a placeholder, whole (sysfs:/dev/..., never cut at ':'), that
# start with VAL.
_warpdrv_values() { # ARG VAL
	local arg=$1 val=$2 kind
	case $arg in
	DIR) compopt -o filenames 2>/dev/null; compgen -d -- "$val" ;;
	FILE | FILE.* | KEY | PREFIX | IMAGE | *.key | *.wdp)
		compopt -o filenames 2>/dev/null
		compgen -f -- "$val"
		;;
	SOURCE)
		case $val in
		sysfs:* | lspci:* | vbox:*)
			kind=${val%%:*}
			compopt -o filenames 2>/dev/null
			if [ "$kind" = sysfs ]; then
				compgen -d -- "${val#*:}" | sed "s|^|$kind:|"
			else
				compgen -f -- "${val#*:}" | sed "s|^|$kind:|"
			fi
			;;
		*)
			compopt -o nospace 2>/dev/null
			compgen -W 'sysfs sysfs: lspci: vbox:' -- "$val"
			;;
		esac
		;;
	WHEN) compgen -W 'auto always never' -- "$val" ;;
	MACHINE)
		command -v VBoxManage >/dev/null 2>&1 &&
			VBoxManage list vms 2>/dev/null | sed -n 's/^"\(.*\)" {.*/\1/p' | grep -F -- "$val"
		;;
	esac
	return 0
}

# Package names: PROG [--root DIR] --json list [ARGS] (on offer, or --installed).
_warpdrv_pkgs() {
	local prog=$1
	shift
	"$prog" "${_warpdrv_root[@]}" --json list "$@" 2>/dev/null | grep -o '"name": "[^"]*"' |
		sed 's/.*: "\(.*\)"/\1/'
}

# The words as typed, into _warpdrv_words (the current one last): bash splits
# the line at each character of COMP_WORDBREAKS, '=' and ':' among them, so
# that --root=/tmp comes as --root, =, /tmp and lspci:FILE as lspci, :, FILE;
# the words that touch in COMP_LINE are one again. Without COMP_LINE (the
# function called by hand), COMP_WORDS as they are.
_warpdrv_join() {
	local i w line
	_warpdrv_words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
	[ -n "${COMP_LINE-}" ] || return 0
	line=${COMP_LINE:0:COMP_POINT}
	line=${line#"${line%%[![:space:]]*}"}
	line=${line#"${COMP_WORDS[0]}"}
	_warpdrv_words=("${COMP_WORDS[0]}")
	for ((i = 1; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $line == [[:space:]]* || ! $line ]]; then
			line=${line#"${line%%[![:space:]]*}"}
			_warpdrv_words+=("$w")
		else
			_warpdrv_words[${#_warpdrv_words[@]} - 1]+=$w
		fi
		line=${line#"$w"}
	done
}

_warpdrv() {
	local prog=${COMP_WORDS[0]} cmd= i w arg cur prev
	_warpdrv_root=()
	COMPREPLY=()
	_warpdrv_join
	local n=${#_warpdrv_words[@]}
	cur=${_warpdrv_words[n - 1]}
	prev=
	[ "$n" -ge 2 ] && prev=${_warpdrv_words[n - 2]}
	_warpdrv_vals=$(_warpdrv_valued "$prog")
	# The command: the first word that is neither an option nor an option's value.
	for ((i = 1; i < n - 1; i++)); do
		w=${_warpdrv_words[i]}
		case $w in
		--root=*) _warpdrv_root=("$w") ;;
		--*=*) ;;
		-*)
			if [ -n "$(_warpdrv_arg "$w")" ]; then
				[ "$w" = --root ] && _warpdrv_root=(--root "${_warpdrv_words[i + 1]}")
				i=$((i + 1))
			fi
			;;
		*)
			if [ -z "$cmd" ]; then
				cmd=$w
				_warpdrv_vals+=$'\n'$(_warpdrv_valued "$prog" "$cmd")
			fi
			;;
		esac
	done
	# The value of an option: --opt VALUE or --opt=VALUE.
	local opt= val=
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*} val=${cur#*=}
	elif [[ $prev == -* ]]; then
		opt=$prev val=$cur
	fi
	arg=${opt:+$(_warpdrv_arg "$opt")}
	if [ -n "$arg" ]; then
		mapfile -t COMPREPLY < <(_warpdrv_values "$arg" "$val")
		[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
	elif [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${cmd:+$(_warpdrv_opts "$prog" "$cmd")} $(_warpdrv_opts "$prog")" -- "$cur")
	elif [ -z "$cmd" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_warpdrv_cmds "$prog")" -- "$cur")
	elif [[ $cur == *=* && ${prog##*/} == warpdrv && ($cmd == install || $cmd == info) ]]; then
		# install|info NAME=VERSION: the versions `warpdrv info NAME` lists
		local name=${cur%%=*} v
		for v in $("$prog" "${_warpdrv_root[@]}" --json info "$name" 2>/dev/null |
			grep -o '"version": "[^"]*"' | sed 's/.*: "\(.*\)"/\1/' | sort -u); do
			[[ $name=$v == "$cur"* ]] && COMPREPLY+=("$name=$v")
		done
	else
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
	fi
	# Readline replaces only what follows the last '=' or ':' of the word
	# (COMP_WORDBREAKS): each reply loses what comes before it.
	if [ -n "${COMP_LINE-}" ]; then
		local keep=$cur pat=
		[[ $COMP_WORDBREAKS == *=* ]] && pat+='='
		[[ $COMP_WORDBREAKS == *:* ]] && pat+=':'
		if [ -n "$pat" ] && [[ $keep == *[$pat]* ]]; then
			keep=${keep%"${keep##*[$pat]}"}
			COMPREPLY=("${COMPREPLY[@]#"$keep"}")
		fi
	fi
	return 0
}
complete -F _warpdrv warpdrv warpdrv-admin
