#!/usr/bin/env bash
# Builds the DocC documentation of every library module with the toolchain's docc, from symbol graphs (no plugin, no
# package), into one static site under .build/docs/site: a landing page and the four modules, whose articles link to
# each other's symbols; warnings are errors.
#
#   scripts/docs.sh                  build all four catalogs (what CI runs)
#   scripts/docs.sh --serve [PORT]   build, then serve .build/docs/site on http://127.0.0.1:PORT (8000 by default)
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

# DocC resolves a link to another module's symbol (``/NALMiddleware/AccessTokenMiddleware``) against that module's
# archive. Modules link both ways, so every archive is built twice: a first pass gives each the others' link
# metadata, the second resolves the links with warnings as errors. Then the four archives are merged into one site
# with a landing page.
convert() {
    local module=$1 output=$2
    shift 2
    docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$GRAPHS/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.nal.$module" \
        --output-path "$output/$module.doccarchive" --transform-for-static-hosting \
        --enable-experimental-external-link-support "$@" > "$output/$module.log" 2>&1
}

mkdir -p "$OUT/links" "$OUT/archives"
for module in "${MODULES[@]}"; do
    mkdir -p "$GRAPHS/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$BIN/Modules" \
        -Xcc -fmodule-map-file="$BIN/CCurl.build/module.modulemap" \
        -minimum-access-level public -skip-synthesized-members -output-dir "$GRAPHS/$module"
    convert "$module" "$OUT/links" || { cat "$OUT/links/$module.log"; echo "Error: docc failed on $module" >&2; exit 1; }
done
for module in "${MODULES[@]}"; do
    dependencies=()
    for other in "${MODULES[@]}"; do
        [[ $other == "$module" ]] || dependencies+=(--dependency "$OUT/links/$other.doccarchive")
    done
    if ! convert "$module" "$OUT/archives" "${dependencies[@]}" --warnings-as-errors; then
        cat "$OUT/archives/$module.log"
        echo "Error: the $module documentation has warnings or errors" >&2
        exit 1
    fi
done
archives=()
for module in "${MODULES[@]}"; do archives+=("$OUT/archives/$module.doccarchive"); done
docc merge "${archives[@]}" --output-path "$OUT/site" --synthesized-landing-page-name NAL \
    --synthesized-landing-page-kind Package > "$OUT/merge.log" 2>&1 \
    || { cat "$OUT/merge.log"; echo "Error: docc merge failed" >&2; exit 1; }
# The site's root is DocC's app with no page of its own: send a visitor to the landing page.
echo '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=documentation/"><title>NAL</title><a href="documentation/">NAL documentation</a>' \
    > "$OUT/site/index.html"
echo "One site: $OUT/site/documentation/index.html (the landing page), with every module under it"

if (( serve )); then
    echo "Serving $OUT/site on http://127.0.0.1:$port/ (Ctrl-C stops)"
    exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$OUT/site"
fi
