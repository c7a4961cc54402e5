#!/usr/bin/env bash
# The completion of every option that takes a value, after --opt value and
# --opt=value alike: in bash as an interactive bash splits the line (its
# COMP_WORDBREAKS holds '=' and ':', so --root=/tmp comes to the function as
# three words and only what follows the last '=' or ':' is replaced:
# tests/e2e/complete_bash.py types each line on a terminal and presses TAB),
# and in zsh with its completion builtins standing in.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$WD")

# Each LINE completed in one bash; the replies of line N in $T/c.N.
complete_lines() { # LINE...
	PATH="$BIN:$PATH" python3 "$SRC/tests/e2e/complete_bash.py" "$SRC/completion/warpdrv.bash" \
		"$@" >"$T/c.all" || fail "complete_bash.py failed"
	awk -v d="$T" 'BEGIN { n = 1 } $0 == "--" { close(d "/c." n); n++; next } { print > (d "/c." n) }' \
		"$T/c.all"
	local i
	for ((i = 1; i <= $#; i++)); do touch "$T/c.$i"; done
}
replies() { cat "$T/c.$1"; }
# Line N's replies are exactly WORDS (space-separated; none: "").
expect() { # N WORDS LINE
	local got
	got=$(tr '\n' ' ' <"$T/c.$1" | sed 's/ $//')
	[ "$got" = "$2" ] || fail "'$3<TAB>' offered '$got', wanted '$2'"
}

t_bash_values_after_space_and_equals_sign() {
	mkdir -p "$T/d/sub" && : >"$T/d/file.wdp" && : >"$T/d/k.key"
	local lines=(
		"warpdrv --color "                # 1
		"warpdrv --color="                # 2
		"warpdrv --color=al"              # 3
		"warpdrv -q --color ne"           # 4
		"warpdrv --root $T/d/s"           # 5
		"warpdrv --root=$T/d/s"           # 6
		"warpdrv --keys=$T/d/s"           # 7
		"warpdrv --pci "                  # 8
		"warpdrv --pci=ly"                # 9
		"warpdrv --pci lspci:$T/d/fi"     # 10
		"warpdrv --pci=lspci:$T/d/fi"     # 11
		"warpdrv --pci=sysfs:$T/d/s"      # 12
		"warpdrv --repo "                 # 13
		"warpdrv --repo=ht"               # 14
		"warpdrv --boot-drive "           # 15
		"warpdrv --boot-drive="           # 16
		"warpdrv --cacert=$T/d/k"         # 17
		"warpdrv --root=$T/d -n ins"      # 18
		"warpdrv --color=never --pci=lspci:x lis" # 19
		"warpdrv setup --section "        # 20
		"warpdrv-admin keygen --out=$T/d/s" # 21
		"warpdrv-admin --color="          # 22
		"warpdrv-admin --ro"              # 23
		"warpdrv --connect-timeout "      # 24
	)
	complete_lines "${lines[@]}"
	expect 1 "auto always never" "${lines[0]}"
	expect 2 "auto always never" "${lines[1]}"
	expect 3 "always" "${lines[2]}"
	expect 4 "never" "${lines[3]}"
	expect 5 "$T/d/sub" "${lines[4]}"
	expect 6 "$T/d/sub" "${lines[5]}"
	expect 7 "$T/d/sub" "${lines[6]}"
	expect 8 "sysfs sysfs: lspci: vbox:" "${lines[7]}"
	expect 9 "" "${lines[8]}"
	# after lspci: only the file name is replaced (':' breaks the word)
	expect 10 "$T/d/file.wdp" "${lines[9]}"
	expect 11 "$T/d/file.wdp" "${lines[10]}"
	expect 12 "$T/d/sub" "${lines[11]}"
	expect 13 "" "${lines[12]}"
	expect 14 "" "${lines[13]}"
	expect 15 "" "${lines[14]}"
	expect 16 "" "${lines[15]}"
	expect 17 "$T/d/k.key" "${lines[16]}"
	expect 18 "install" "${lines[17]}"
	expect 19 "list" "${lines[18]}"
	expect 20 "" "${lines[19]}"
	expect 21 "$T/d/sub" "${lines[20]}"
	expect 22 "auto always never" "${lines[21]}"
	expect 23 "" "${lines[22]}" # warpdrv-admin has no --root
	expect 24 "" "${lines[23]}"
}

# Every option of either program's --help that shows a value is completed as
# a value (never as a command), after a space and after '='.
t_bash_no_valued_option_offers_commands() {
	local prog o lines=() names=()
	for prog in warpdrv warpdrv-admin; do
		for o in $("$BIN/$prog" --help | sed -n '/^Global options:/,/^$/s/^  \(-., \)\?\(--[a-z-]*\) [^ ].*/\2/p'); do
			lines+=("$prog $o " "$prog $o=")
			names+=("$prog $o" "$prog $o=")
		done
	done
	[ ${#lines[@]} -ge 20 ] || fail "too few options found: ${names[*]}"
	complete_lines "${lines[@]}"
	local i cmds
	cmds=$("$WD" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p')
	for ((i = 1; i <= ${#lines[@]}; i++)); do
		! grep -qx -e install -e keygen "$T/c.$i" ||
			fail "'${lines[i - 1]}<TAB>' offered commands: $(replies "$i" | tr '\n' ' ')"
	done
	[ -n "$cmds" ]
}

# zsh: the completion function run with compadd, _files, _describe, compset
# and _message standing in; prints what it offers.
zsh_complete() { # WORDS...
	cat >"$T/z.zsh" <<'Z'
compadd() { local arr=0; while (( $# )); do case $1 in -a) arr=1 ;; -S) shift ;; -*) ;;
	*) if (( arr )); then print -rl -- "${(P)1[@]}"; else print -r -- "$1"; fi ;; esac; shift; done }
_describe() { local -a l; l=(${(P)2}); print -rl -- ${l%%:*} }
_files() { if [[ $1 == -/ ]]; then print -r -- "DIRS:$PREFIX"; else print -r -- "FILES:$PREFIX"; fi }
_message() { print -r -- "MESSAGE:$1" }
compset() { [[ $1 == -P ]] || return 1
	[[ $PREFIX == ${~2}* ]] || return 1
	local m=${(M)PREFIX##${~2}}; IPREFIX+=$m; PREFIX=${PREFIX#$m}; return 0 }
PREFIX=${words[CURRENT]}; IPREFIX=
source "$1"
Z
	PATH="$BIN:$PATH" zsh -f -c 'words=("${@:2}"); CURRENT=$#words; . '"$T/z.zsh"' "$1"' _ \
		"$SRC/completion/_warpdrv" "$@"
}

t_zsh_values_after_space_and_equals_sign() {
	command -v zsh >/dev/null || skip "no zsh"
	run zsh -n "$SRC/completion/_warpdrv"
	assert_rc 0
	zexpect() { # WANT WORDS...
		local want=$1 got
		shift
		got=$(zsh_complete "$@" | tr '\n' ' ' | sed 's/ $//')
		[ "$got" = "$want" ] || fail "zsh: '$*<TAB>' offered '$got', wanted '$want'"
	}
	zexpect "auto always never" warpdrv --color ""
	zexpect "auto always never" warpdrv --color=
	zexpect "DIRS:/tm" warpdrv --root /tm
	zexpect "DIRS:/tm" warpdrv --root=/tm
	zexpect "DIRS:/tm" warpdrv --keys=/tm
	zexpect "sysfs: lspci: vbox: sysfs" warpdrv --pci ""
	zexpect "FILES:/tm" warpdrv --pci lspci:/tm
	zexpect "FILES:/tm" warpdrv --pci=lspci:/tm
	zexpect "DIRS:/sys" warpdrv --pci=sysfs:/sys
	zexpect "MESSAGE:URL" warpdrv --repo ""
	zexpect "MESSAGE:URL" warpdrv --repo=ht
	zexpect "MESSAGE:X:" warpdrv --boot-drive ""
	zexpect "MESSAGE:X:" warpdrv --boot-drive=
	zexpect "FILES:/e" warpdrv --cacert=/e
	zexpect "MESSAGE:NAME" warpdrv setup --section ""
	zexpect "FILES:k" warpdrv-admin keygen --out=k
	zsh_complete warpdrv --root=/x -n ins | grep -qx install || fail "zsh: command after --root=/x"
	zsh_complete warpdrv --color never ins | grep -qx install || fail "zsh: command after --color never"
	! zsh_complete warpdrv-admin --ro | grep -q root || fail "zsh: warpdrv-admin offers --root"
}

CASES_AT_ONCE=2
run_tests
