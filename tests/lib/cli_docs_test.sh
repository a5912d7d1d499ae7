#!/bin/sh
# cli_docs_test.sh SMPATCH CLI.md smpatch.1
# Every command of `smpatch --help`, and every flag and every listed value
# (json|yaml, view|set, ...) of `smpatch --help` and `smpatch CMD --help`,
# appears in docs/CLI.md and in the man page; and every smpatch flag the docs
# mention exists in some help text (no stale docs).
smpatch=$1 cli=$2 man=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for f in "$cli" "$man"; do [ -f "$f" ] || { bad "$f missing"; exit 1; }; done

# The man page as plain text: \- is a dash, font escapes go.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\&//g' \
	-e 's/\\(em/--/g' -e 's/\\e/\\/g' "$man" >"$tmp/man.txt"
cp "$cli" "$tmp/cli.txt"

"$smpatch" --help >"$tmp/help.main" 2>"$tmp/err" || { cat "$tmp/err"; bad "smpatch --help exited $?"; exit 1; }
cmds=$(awk '/^Commands:/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^  [a-z]/ { print $1 }' "$tmp/help.main")
[ -n "$cmds" ] || { bad "no commands found in smpatch --help"; exit 1; }

# flags FILE: the -x and --xyz options a help text names.
flags() {
	{
		grep -oE -- '--[a-z][a-z0-9-]*' "$1"
		grep -oE -- '(^|[][ ,|(])-[a-zA-Z]([] ,=|)]|$)' "$1" | grep -oE -- '-[a-zA-Z]'
	} | sort -u
}
# values FILE: the words of alternatives lists such as json|yaml or view|set.
values() {
	grep -oE '(^|[^A-Za-z0-9_-])[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+' "$1" |
		sed 's/^[^a-z]//' | tr '|' '\n' | sort -u
}
has_flag() { grep -qE -- "(^|[^-[:alnum:]])$2([^[:alnum:]-]|$)" "$1"; }
has_word() { grep -qw -- "$2" "$1"; }

nflags=0 nvalues=0
check_text() { # WHAT HELPFILE
	for f in $(flags "$2"); do
		nflags=$((nflags + 1))
		has_flag "$tmp/cli.txt" "$f" || bad "$1: flag $f not in docs/CLI.md"
		has_flag "$tmp/man.txt" "$f" || bad "$1: flag $f not in the man page"
	done
	for v in $(values "$2"); do
		nvalues=$((nvalues + 1))
		has_word "$tmp/cli.txt" "$v" || bad "$1: value '$v' not in docs/CLI.md"
		has_word "$tmp/man.txt" "$v" || bad "$1: value '$v' not in the man page"
	done
}

check_text "smpatch --help" "$tmp/help.main"
: >"$tmp/help.all"
cat "$tmp/help.main" >>"$tmp/help.all"
for c in $cmds; do
	grep -qF "smpatch $c" "$tmp/cli.txt" || bad "command '$c' not in docs/CLI.md"
	grep -qF "smpatch $c" "$tmp/man.txt" || bad "command '$c' not in the man page"
	if ! "$smpatch" "$c" --help >"$tmp/help.$c" 2>"$tmp/err"; then
		cat "$tmp/err"
		bad "smpatch $c --help failed"
		continue
	fi
	[ -s "$tmp/help.$c" ] || bad "smpatch $c --help printed nothing on stdout"
	check_text "smpatch $c --help" "$tmp/help.$c"
	cat "$tmp/help.$c" >>"$tmp/help.all"
done

# The other way round: a flag of smpatch named in the docs must exist. The
# docs also quote kubectl's own flags; those are listed here.
kubectl_flags="--local --dry-run --patch-file --patch --raw --server-side --force-conflicts --field-manager --prefix --validate --selector --kubeconfig"
for doc in cli man; do
	for f in $(grep -oE -- '(^|[^-[:alnum:]])--[a-z][a-z0-9-]*' "$tmp/$doc.txt" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		case " $kubectl_flags " in *" $f "*) continue ;; esac
		has_flag "$tmp/help.all" "$f" ||
			bad "$doc: documents $f, which no smpatch --help text names"
	done
done

[ $fail = 0 ] && echo "ok: $(echo $cmds | wc -w) commands, $nflags flags and $nvalues values of the help texts are in CLI.md and smpatch.1"
exit $fail
