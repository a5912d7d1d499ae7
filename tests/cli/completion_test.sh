#!/bin/sh
# completion_test.sh SMPATCH SOURCE_DIR
# `smpatch completion bash|zsh`: the scripts load, register themselves, and
# complete commands, options, option values and file names. bash runs the
# completion function on COMP_WORDS split as bash splits them; zsh (skipped
# with a message when absent) runs it with compadd/_files stubbed.
smpatch=$1 src=$2
command -v bash >/dev/null || { echo "SKIP: bash not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" && ln -s "$smpatch" "$tmp/bin/smpatch"
"$smpatch" completion bash >"$tmp/smpatch.bash" || { echo "FAIL: completion bash exited $?"; exit 1; }
"$smpatch" completion zsh >"$tmp/_smpatch" || { echo "FAIL: completion zsh exited $?"; exit 1; }
"$smpatch" completion fish >/dev/null 2>"$tmp/err"
[ $? = 2 ] || { echo "FAIL: completion fish: want exit 2"; exit 1; }

# LINE|EXPECTED: the completions of LINE (cursor at its end), sorted,
# space-separated. Run from the source directory (file names).
cat >"$tmp/cases" <<'CASES'
smpatch |apply completion convert create diff explain help last-applied patch replace validate version
smpatch con|convert
smpatch -|--help --version
smpatch convert --out|--output
smpatch convert --output=j|json
smpatch convert --output |json yaml
smpatch convert -o |json yaml
smpatch convert -oy|-oyaml
smpatch apply -o |changes diff json name patch yaml
smpatch apply -R -o n|name
smpatch apply --force|--force-conflicts
smpatch replace -o |diff json name yaml
smpatch replace --field|--field-manager
smpatch diff -t=|merge strategic
smpatch diff -t s|strategic
smpatch patch --type |json merge strategic
smpatch explain -o |json text
smpatch diff --overwrite=f|false
smpatch diff --exit-code |examples/ tests/
smpatch last-applied |set view
smpatch last-applied view |
smpatch last-applied view -f examples/ap|examples/apply.c examples/apply/
smpatch last-applied view --filename=examples/ap|examples/apply.c examples/apply/
smpatch apply --live examples/apply/l|examples/apply/live.yaml
smpatch convert examples/apply/w|examples/apply/web.yaml
smpatch completion |bash zsh
smpatch help la|last-applied
smpatch last-applied --sh|--show-managed-fields
smpatch last-applied -- -|
smpatch nosuch |
CASES
# The file-name cases only see examples/ and tests/ (diff --exit-code).
mkdir "$tmp/tree" && cp -r "$src/examples" "$tmp/tree/" && mkdir "$tmp/tree/tests"

cat >"$tmp/run.bash" <<'EOF2'
source "$1"
complete -p smpatch | grep -q -- '-F _smpatch smpatch' || { echo "FAIL: complete -p smpatch: $(complete -p smpatch)"; exit 1; }
fail=0 n=0
# bash's own split: words at blanks, then at the break characters (= and :)
split() {
	COMP_WORDS=()
	local tok
	for tok in $1; do
		while [[ -n $tok ]]; do
			if [[ $tok =~ ^[=:]+ ]] || [[ $tok =~ ^[^=:]+ ]]; then
				COMP_WORDS+=("${BASH_REMATCH[0]}")
				tok=${tok:${#BASH_REMATCH[0]}}
			fi
		done
	done
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
}
while IFS='|' read -r line want; do
	n=$((n + 1))
	split "$line"
	COMP_LINE=$line COMP_POINT=${#line}
	COMPREPLY=()
	_smpatch
	# directories get a / from readline (-o filenames): added here
	got=$(for w in "${COMPREPLY[@]}"; do [[ -d $w ]] && w=$w/; printf '%s\n' "$w"; done |
		sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
	got=${got% }
	if [[ $got != "$want" ]]; then
		echo "FAIL: bash '$line': got '$got', want '$want'"
		fail=1
	fi
done <"$2"
[[ $fail = 0 ]] && echo "ok: bash, $n lines"
exit $fail
EOF2
cd "$tmp/tree" && PATH="$tmp/bin:$PATH" bash "$tmp/run.bash" "$tmp/smpatch.bash" "$tmp/cases" || exit 1

if ! command -v zsh >/dev/null; then
	echo "SKIP (zsh part): zsh not installed; the bash part passed"
	exit 0
fi
cat >"$tmp/run.zsh" <<'EOF2'
autoload -U compinit && compinit -u -d "$3/zcompdump"
source "$1"
[[ $_comps[smpatch] == _smpatch ]] || { print "FAIL: zsh: compdef did not register _smpatch"; exit 1 }
# Outside a completion widget: compadd, compset and _files are stubbed.
typeset -ga offered
compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; offered+=("$@") }
compset() { [[ $1 == -P && -n $2 ]] && PREFIX=${PREFIX#$~2}; return 0 }
_files() { local f; for f in ${PREFIX}*(N); do [[ -d $f ]] && f=$f/; [[ $1 == -/ && $f != */ ]] && continue; offered+=("$f"); done }
fail=0 n=0
while IFS='|' read -r line want; do
	n=$((n + 1))
	words=(${(z)line}); [[ $line == *' ' ]] && words+=("")
	CURRENT=${#words}
	PREFIX=${words[CURRENT]}
	offered=()
	_smpatch
	# zsh keeps the words that begin with the word typed; compared as bash
	# shows them: without what precedes the last = of the word
	cur=${words[CURRENT]} head=
	[[ $cur == *=* ]] && head=${cur%=*}=
	got=$(for w in ${(M)offered:#${PREFIX}*} ${(M)offered:#${cur}*}; do print -r -- ${w#$head}; done | LC_ALL=C sort -u | tr '\n' ' ')
	got=${got% }
	if [[ $got != $want ]]; then
		print -r -- "FAIL: zsh '$line': got '$got', want '$want'"
		fail=1
	fi
done <"$2"
(( fail == 0 )) && print "ok: zsh, $n lines"
exit $fail
EOF2
cd "$tmp/tree" && PATH="$tmp/bin:$PATH" zsh -f "$tmp/run.zsh" "$tmp/_smpatch" "$tmp/cases" "$tmp"
