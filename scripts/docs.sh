#!/usr/bin/env bash
# Builds the DocC documentation of every library module with the toolchain's docc, from symbol graphs (no plugin, no
# package), into static HTML under .build/docs/<Module>; warnings are errors.
#
#   scripts/docs.sh                  build all four catalogs (what CI runs)
#   scripts/docs.sh --serve [PORT]   build, then serve .build/docs on http://127.0.0.1:PORT (8000 by default)
#
# The catalogs are Sources/<Module>/<Module>.docc. Their Swift snippets are tested code: DocumentationSyncTests
# compares each with a `// Docs: begin` region of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
MODULES=(NALCore NALMiddleware NALStubbing NALLogging)
OUT=.build/docs

serve=0
port=8000
case "${1:-}" in
    "") ;;
    --serve) serve=1; port=${2:-8000} ;;
    *) echo "usage: scripts/docs.sh [--serve [PORT]]" >&2; exit 2 ;;
esac

mkdir -p .build
swift build > "$OUT.build.log" 2>&1 || { tail -30 "$OUT.build.log"; echo "Error: the package did not build" >&2; exit 1; }
BIN=$(swift build --show-bin-path)
GRAPHS=$(mktemp -d)
trap 'rm -rf "$GRAPHS"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

for module in "${MODULES[@]}"; do
    mkdir -p "$GRAPHS/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$BIN/Modules" \
        -Xcc -fmodule-map-file="$BIN/CCurl.build/module.modulemap" \
        -minimum-access-level public -skip-synthesized-members -output-dir "$GRAPHS/$module"
    if ! docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$GRAPHS/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.nal.$module" \
        --output-path "$OUT/$module" --transform-for-static-hosting --hosting-base-path "$module" \
        --warnings-as-errors > "$OUT/$module.log" 2>&1; then
        cat "$OUT/$module.log"
        echo "Error: the $module documentation has warnings or errors" >&2
        exit 1
    fi
    lowercase=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    echo "$module: $OUT/$module/documentation/$lowercase/index.html"
done

{
    echo '<!doctype html><meta charset="utf-8"><title>NAL documentation</title><h1>NAL documentation</h1><ul>'
    for module in "${MODULES[@]}"; do
        lowercase=$(echo "$module" | tr '[:upper:]' '[:lower:]')
        echo "<li><a href=\"$module/documentation/$lowercase/\">$module</a></li>"
    done
    echo '</ul>'
} > "$OUT/index.html"

if (( serve )); then
    echo "Serving $OUT on http://127.0.0.1:$port/ (Ctrl-C stops)"
    exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$OUT"
fi
