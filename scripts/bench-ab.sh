#!/usr/bin/env bash
# Compares the benchmarks of two commits on this machine: builds each in release into its own scratch folder, then
# runs their nal-bench binaries in interleaved rounds (base, head; head, base; ...) so that a noisy moment hits both,
# and prints per scenario the median ratio of their times with a 95 % bootstrap interval, and their allocations.
# Times from different machines, or from runs hours apart, cannot be compared; this is the way to compare them.
#
#   scripts/bench-ab.sh BASE_REF [HEAD_REF]   HEAD_REF defaults to HEAD; any commit-ish git knows
#   NAL_AB_ROUNDS=6                           rounds (each runs both binaries once, about 20 s each); even, so
#                                             that each side runs first as often as the other
#   NAL_AB_FILTER=REGEX                       only the scenarios nal-bench --filter selects
#   NAL_AB_FORMAT=markdown|json               the report (markdown, for a pull request, by default)
#   NAL_AB_TOLERANCE=0.10                     how far beyond 1 the whole interval must lie for a time verdict
#
# A scenario that exists in only one of the commits is listed as such. Sources and builds are kept under .build-ab/
# (by commit), so running again after a small change rebuilds incrementally. Only committed code is compared: commit
# (or stash) what you want measured. The same commit on both sides runs one binary against itself, which shows the
# noise of the machine. In CI, the clone needs the base commit (a full fetch, e.g. fetch-depth 0).
# Exit 0: no regression; 1: a scenario is slower or allocates more; 2: usage error; 3: a build or run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 && $# -le 2 ]] || { sed -n '7,13p' "$0" >&2; exit 2; }
ROUNDS=${NAL_AB_ROUNDS:-6}
FORMAT=${NAL_AB_FORMAT:-markdown}
TOLERANCE=${NAL_AB_TOLERANCE:-0.10}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "Error: NAL_AB_ROUNDS must be a positive whole number" >&2; exit 2; }
[[ "$FORMAT" == markdown || "$FORMAT" == json ]] || { echo "Error: NAL_AB_FORMAT is markdown or json" >&2; exit 2; }
[[ "$TOLERANCE" =~ ^0?\.[0-9]+$ ]] || { echo "Error: NAL_AB_TOLERANCE is a fraction such as 0.10" >&2; exit 2; }
WORK=.build-ab

resolve() {
    git rev-parse --verify --quiet "$1^{commit}" || { echo "Error: '$1' is not a commit" >&2; exit 2; }
}
BASE=$(resolve "$1")
HEAD_SHA=$(resolve "${2:-HEAD}")

# build SHA: extracts the commit's files into $WORK/src/SHA once and builds its nal-bench; prints the binary's path.
build() {
    local sha=$1 source="$WORK/src/$1" scratch="$WORK/build/$1"
    if [[ ! -f "$source/Package.swift" ]]; then
        mkdir -p "$source"
        git archive "$sha" | tar -x -C "$source"
    fi
    echo "== building nal-bench at ${sha:0:12} (release)" >&2
    swift build -c release --product nal-bench --package-path "$source" --scratch-path "$scratch" \
        > "$WORK/build-$sha.log" 2>&1 || { tail -30 "$WORK/build-$sha.log" >&2; echo "Error: ${sha:0:12} did not build" >&2; exit 3; }
    echo "$(cd "$source" && pwd)|$(swift build -c release --package-path "$source" --scratch-path "$scratch" --show-bin-path)/nal-bench"
}
mkdir -p "$WORK"
base_build=$(build "$BASE")
head_build=$(build "$HEAD_SHA")

RUNS=$(mktemp -d)
trap 'rm -rf "$RUNS"' EXIT
mkdir -p "$RUNS/base" "$RUNS/head"
# run SIDE ROUND: one quick run of that side's binary, from its own sources (scenarios read fixtures from there).
run() {
    local build=$1 side=$2 round=$3
    local source=${build%%|*} binary=${build#*|}
    (cd "$source" && "$binary" --quick --format json ${NAL_AB_FILTER:+--filter "$NAL_AB_FILTER"}) \
        > "$RUNS/$side/round-$round.json" 2> "$RUNS/$side/round-$round.log" \
        || { cat "$RUNS/$side/round-$round.log" >&2; echo "Error: the $side run failed" >&2; exit 3; }
}
for round in $(seq 1 "$ROUNDS"); do
    echo "== round $round of $ROUNDS" >&2
    if (( round % 2 )); then
        run "$base_build" base "$round"; run "$head_build" head "$round"
    else
        run "$head_build" head "$round"; run "$base_build" base "$round"
    fi
done
python3 scripts/lib/bench_ab.py --format "$FORMAT" --tolerance "$TOLERANCE" \
    --labels "$1 (${BASE:0:9}),${2:-HEAD} (${HEAD_SHA:0:9})" "$RUNS/base" "$RUNS/head"
