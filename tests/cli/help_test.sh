#!/bin/sh
# help_test.sh SMPATCH EXAMPLES_DIR
# Every command of `smpatch --help` answers -h, --help and `smpatch help CMD`
# with the same text on stdout, exit 0; an unknown option is "unknown
# option" (exit 2) for every command; kubectl's spellings reach the commands.
smpatch=$1 ex=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=1; }

"$smpatch" --help >"$tmp/main" || bad "smpatch --help exited $?"
"$smpatch" help >"$tmp/main2" || bad "smpatch help exited $?"
cmp -s "$tmp/main" "$tmp/main2" || bad "smpatch help differs from smpatch --help"
cmds=$(awk '/^Commands:/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^  [a-z]/ { print $1 }' "$tmp/main")
[ -n "$cmds" ] || { bad "no commands in smpatch --help"; exit 1; }
for c in $cmds; do
	n=$((n + 1))
	"$smpatch" "$c" --help >"$tmp/long" 2>"$tmp/err" || bad "$c --help exited $?"
	"$smpatch" "$c" -h >"$tmp/short" 2>>"$tmp/err" || bad "$c -h exited $?"
	"$smpatch" help "$c" >"$tmp/help" 2>>"$tmp/err" || bad "help $c exited $?"
	[ -s "$tmp/long" ] || bad "$c --help printed nothing"
	[ -s "$tmp/err" ] && bad "$c: help wrote to stderr: $(cat "$tmp/err")"
	cmp -s "$tmp/long" "$tmp/short" || bad "$c -h differs from $c --help"
	cmp -s "$tmp/long" "$tmp/help" || bad "help $c differs from $c --help"
	head -1 "$tmp/long" | grep -q "^Usage: smpatch $c" ||
		bad "$c --help does not start with 'Usage: smpatch $c'"
	"$smpatch" "$c" --no-such-option >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || bad "$c --no-such-option exited $rc, want 2"
	[ -s "$tmp/out" ] && bad "$c --no-such-option wrote to stdout"
	grep -qx "smpatch $c: unknown option '--no-such-option'" "$tmp/err" ||
		bad "$c --no-such-option said: $(cat "$tmp/err")"
done

"$smpatch" help no-such-command >/dev/null 2>"$tmp/err"
[ $? = 2 ] || bad "help no-such-command: want exit 2"
grep -q "unknown command 'no-such-command'" "$tmp/err" || bad "help no-such-command said: $(cat "$tmp/err")"

# kubectl's spellings, end to end: each gives the same output as the plain one.
same() { # WHAT ARGS... == ARGS...
	what=$1; shift
	a="" ; while [ "$1" != == ]; do a="$a $1"; shift; done; shift
	# shellcheck disable=SC2086
	"$smpatch" $a >"$tmp/a" 2>&1; ra=$?
	"$smpatch" "$@" >"$tmp/b" 2>&1; rb=$?
	[ $ra = $rb ] && cmp -s "$tmp/a" "$tmp/b" || bad "$what: '$a' and '$*' differ"
	[ $ra = 0 ] || bad "$what: exit $ra: $(head -2 "$tmp/a")"
}
web=$ex/apply/web.yaml live=$ex/apply/live.yaml
same "-o=json" convert -o=json "$web" == convert -o json "$web"
same "-ojson" convert -ojson "$web" == convert --output json "$web"
same "--output=json" convert --output=json "$web" == convert -o json "$web"
same "options after files" convert "$web" -o json == convert -o json "$web"
same "-t=merge" diff -t=merge "$live" "$web" == diff --type merge "$live" "$web"
same "--filename=" last-applied view --filename="$live" == last-applied view -f "$live"
same "-Rf" last-applied view -Rf "$live" == last-applied view -R -f "$live"
same "apply -o=name -f=" apply -o=name -f="$web" == apply -o name -f "$web"
same "apply --filename=" apply --filename="$web" --live="$live" == apply -f "$web" --live "$live"
same "apply -Rf" apply -Rf "$ex/site/config" -oname == apply -R -f "$ex/site/config" -o name
same "-f=" last-applied -f="$live" view -o=json == last-applied view -f "$live" -o json
same "--" convert -o json -- "$web" == convert -o json "$web"

[ $fail = 0 ] && echo "ok: $n commands answer -h, --help, help CMD; kubectl spellings"
exit $fail
