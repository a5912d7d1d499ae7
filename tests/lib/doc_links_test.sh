#!/bin/sh
# doc_links_test.sh SOURCE_DIR
# Every relative link in README.md and docs/*.md points at a file or
# directory that exists, and every #anchor into a Markdown file names one of
# its headings (GitHub's slug rules: lower case, punctuation dropped, spaces
# to dashes).
src=$1
fail=0 n=0
slugs() { # FILE: the anchors its headings produce
	grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ //' | tr 'A-Z' 'a-z' |
		sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for doc in "$src/README.md" "$src"/docs/*.md; do
	dir=$(dirname "$doc")
	# [text](target) outside code spans; drop http(s) and mailto links.
	for target in $(grep -oE '\]\([^) ]+\)' "$doc" | sed -E 's/^\]\(//; s/\)$//' |
		grep -vE '^(https?:|mailto:)'); do
		n=$((n + 1))
		file=${target%%#*}
		anchor=
		case $target in *#*) anchor=${target#*#} ;; esac
		[ -z "$file" ] && path=$doc || path=$dir/$file
		if [ ! -e "$path" ]; then
			echo "FAIL: $(basename "$doc"): link to missing $target"
			fail=1
			continue
		fi
		if [ -n "$anchor" ] && [ -f "$path" ] && ! slugs "$path" | grep -qx -- "$anchor"; then
			echo "FAIL: $(basename "$doc"): no heading for #$anchor in $file"
			fail=1
		fi
	done
done
[ $fail = 0 ] && echo "ok: $n relative links in README.md and docs/*.md resolve"
exit $fail
