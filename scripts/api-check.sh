#!/usr/bin/env bash
# The public API of every library module, checked in under API/<Module>.json, compared with the current build, so
# that the API changes only on purpose and every change is reviewed.
#
#   scripts/api-check.sh           exit 1, printing the added, removed and changed declarations, when the build's
#                                  API differs from API/; exit 0 when it is the same
#   scripts/api-check.sh --update  writes the build's API into API/; commit it with the change that made it
#
# API/<Module>.constants.txt holds the values of the module's public constants declared in one line (a documented
# default such as StreamedBody.defaultHighWater is API; neither tool below records values).
#
# The files are swift-api-digester's -dump-sdk output (from the toolchain), without `package` declarations, imports,
# file locations, tool arguments and whether a member is written in an extension, and sorted, so that only a change
# of the public API changes them; each declaration also carries its text from swift-symbolgraph-extract, which has
# what the digester leaves out (default values, global actors, attribute arguments). Raw values of enums are in
# neither: Tests/NALLoggingTests/RawValueAPITests.swift pins the public ones. They are made on Linux (CurlTransport is in them) with the toolchain named in API/TOOLCHAIN: another
# toolchain may spell types differently, and the check then says so.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every library product's module: a new product is checked without editing this list.
mapfile -t MODULES < <(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
for product in package["products"]:
    if "library" in product["type"]:
        print(*product["targets"], sep="\n")' | sort -u)

mode=check
case "${1:-}" in
    "") ;;
    --update) mode=update ;;
    *) echo "usage: scripts/api-check.sh [--update]" >&2; exit 2 ;;
esac

swift build > "${TMPDIR:-/tmp}/nal-api-check-build.log" 2>&1 \
    || { tail -30 "${TMPDIR:-/tmp}/nal-api-check-build.log"; echo "Error: the package did not build" >&2; exit 2; }
BIN=$(swift build --show-bin-path)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p API

failed=0
toolchain=$(swift --version 2>&1 | head -1)
if [[ "$mode" == update ]]; then
    echo "$toolchain" > API/TOOLCHAIN
elif [[ -f API/TOOLCHAIN && "$(cat API/TOOLCHAIN)" != "$toolchain" ]]; then
    echo "Note: API/ was made with '$(cat API/TOOLCHAIN)'; this is '$toolchain'. Differences may be the toolchain's."
fi
for module in "${MODULES[@]}"; do
    swift-api-digester -dump-sdk -module "$module" -I "$BIN/Modules" \
        -Xcc -fmodule-map-file="$BIN/CCurl.build/module.modulemap" \
        -avoid-location -avoid-tool-args -abort-on-module-fail -o "$WORK/$module.raw.json"
    # The declarations as the compiler prints them: default values and attribute arguments are only there.
    mkdir -p "$WORK/graphs/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$BIN/Modules" \
        -Xcc -fmodule-map-file="$BIN/CCurl.build/module.modulemap" \
        -minimum-access-level public -output-dir "$WORK/graphs/$module"
    python3 scripts/lib/api_dump.py prune "$WORK/$module.raw.json" "$WORK/$module.json" "$WORK/graphs/$module"
    # The values of documented constants (StreamedBody.defaultHighWater, 1 MiB): API too, and in no dump.
    python3 scripts/lib/api_dump.py constants "Sources/$module" > "$WORK/$module.constants.txt"
    if [[ "$mode" == update ]]; then
        cp "$WORK/$module.json" "API/$module.json"
        cp "$WORK/$module.constants.txt" "API/$module.constants.txt"
        echo "API/$module.json and API/$module.constants.txt written"
        continue
    fi
    if [[ ! -f "API/$module.constants.txt" ]]; then
        echo "$module: no API/$module.constants.txt; run scripts/api-check.sh --update and commit it" >&2
        failed=1
    elif ! diff -q "API/$module.constants.txt" "$WORK/$module.constants.txt" > /dev/null; then
        echo "$module: the values of public constants differ from API/$module.constants.txt:"
        diff "API/$module.constants.txt" "$WORK/$module.constants.txt" | sed -n 's/^</  was:/p; s/^>/  now:/p'
        failed=1
    fi
    if false; then
        :
    elif [[ ! -f "API/$module.json" ]]; then
        echo "$module: no API/$module.json; run scripts/api-check.sh --update and commit it" >&2
        failed=1
    elif ! diff -q "API/$module.json" "$WORK/$module.json" > /dev/null; then
        echo "$module: the public API differs from API/$module.json:"
        if python3 scripts/lib/api_dump.py compare "API/$module.json" "$WORK/$module.json"; then
            # Nothing the comparison names changed, yet the files differ: show where, rather than an empty list.
            echo "  (a detail the summary does not name; the first lines of the difference:)"
            diff -u "API/$module.json" "$WORK/$module.json" | head -40 | sed 's/^/    /'
        fi
        failed=1
    else
        echo "$module: API unchanged"
    fi
done
# The comparison itself must be able to fail: a declaration taken out of a copy of the NALLogging file is reported.
if [[ "$mode" == check && -f API/NALLogging.json ]]; then
    python3 - API/NALLogging.json "$WORK/without-one.json" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
types = [c for c in root["ABIRoot"]["children"] if c.get("kind") == "TypeDecl"]
types[0]["children"] = types[0]["children"][1:]
json.dump(root, open(sys.argv[2], "w"))
PY
    if python3 scripts/lib/api_dump.py compare API/NALLogging.json "$WORK/without-one.json" > /dev/null; then
        echo "Error: the comparison did not notice a removed declaration" >&2
        failed=1
    fi
fi
if (( failed )); then
    echo "If the change is meant, run scripts/api-check.sh --update and commit API/ with it (and note it in CHANGELOG.md)."
fi
exit $failed
