#!/bin/sh
# check_catalogue.sh DIR - the shape every case of the bad-input catalogue
# must have, whatever its expected files say: an exit code among those
# docs/CLI.md documents for errors (2 usage, 3 invalid input, 4 conflict or
# precondition, 5 internal), nothing on stdout (no partial output) but, for
# apply's -o patch, the line of each failed object with the Status the
# server would answer ({..."action":"error"|"conflict","status":{...}}), and on
# stderr one line starting "smpatch" (usage errors: the message and the
# "Try ... --help" hint; selector errors: the message, the selector and a
# caret under the column). At least 60 cases.
set -u
dir=$1
n=0
bad=0
for c in "$dir"/*/; do
	name=$(basename "$c")
	n=$((n + 1))
	code=$(cat "$c/expected/code" 2>/dev/null)
	lines=$(wc -l <"$c/expected/stderr" 2>/dev/null || echo 0)
	first=$(head -n 1 "$c/expected/stderr" 2>/dev/null)
	why=""
	case $code in
	2) [ "$lines" -le 3 ] || why="usage error of $lines lines" ;;
	3 | 4 | 5) [ "$lines" = 1 ] || why="$lines stderr lines, want 1" ;;
	*) why="exit code '$code' is not an error code" ;;
	esac
	if [ -s "$c/expected/stdout" ] &&
		grep -v -E '^\{.*"action":"(error|conflict)","status":\{.*\}\}$' "$c/expected/stdout" |
		grep -q .; then
		why="$why; output on stdout"
	fi
	case $first in smpatch*) ;; *) why="$why; stderr does not start with smpatch" ;; esac
	if [ -n "$why" ]; then
		echo "FAIL $name: $why"
		bad=$((bad + 1))
	fi
done
echo "$n cases, $bad malformed"
[ "$n" -ge 60 ] && [ "$bad" = 0 ]
