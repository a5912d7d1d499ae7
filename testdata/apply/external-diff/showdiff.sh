#!/bin/sh
# A stand-in for KUBECTL_EXTERNAL_DIFF: how it was called (the temporary
# directories' random suffixes left out) and what each directory holds.
echo "argv: $(basename "${1%-*}")-* $(basename "${2%-*}")-* ${3-} ${4-} ${5-}"
for d in "$1" "$2"; do
	for f in "$d"/*; do
		[ -e "$f" ] || continue
		echo "== $(basename "${d%-*}")/$(basename "$f")"
		cat "$f"
	done
done
exit 1
