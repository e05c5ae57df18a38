"""The A/B report of scripts/bench-ab.sh: nal-bench JSON runs of two builds, made in interleaved rounds on one machine.

  bench_ab.py [--format markdown|json] [--tolerance 0.10] BASE_DIR HEAD_DIR

Each directory holds one `nal-bench --format json` output per round (round-N.json). Per scenario: the median over
rounds of the per-round ratio head / base of the median times, a 95 % bootstrap confidence interval of that median,
and the median allocations per op of each side. Verdicts:
  ▲ slower / ▼ faster   the whole interval lies beyond 1 ± tolerance
  ▲ allocates more / ▼ fewer   the median allocations differ by one or more per op (they are deterministic)
  ≈ unchanged           anything else
Exit 1 when any scenario is slower or allocates more, else 0; 2 on usage errors.
"""
import glob
import json
import os
import random
import statistics
import sys


def load(directory):
    """{scenario: [measurement per round]} for NAL scenarios (references are Foundation code)."""
    runs = {}
    files = sorted(glob.glob(os.path.join(directory, "round-*.json")))
    if not files:
        raise SystemExit(f"Error: no runs in {directory}")
    for path in files:
        with open(path) as file:
            for measurement in json.load(file):
                if not measurement.get("isReference"):
                    runs.setdefault(measurement["name"], []).append(measurement)
    return runs, len(files)


def allocations(measurement):
    value = measurement.get("mallocsAboveReference")
    return value if value is not None else measurement.get("mallocsPerOp")


def bootstrap_median_interval(values, resamples=2000, seed=7):
    """A 95 % percentile-bootstrap interval of the median; fixed seed, so the same runs give the same report."""
    generator = random.Random(seed)
    medians = sorted(
        statistics.median(generator.choice(values) for _ in values) for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def compare(base, head, tolerance):
    rows = []
    for name in sorted(set(base) | set(head)):
        if name not in head:
            rows.append({"scenario": name, "verdict": "only in base"})
            continue
        if name not in base:
            rows.append({"scenario": name, "verdict": "only in head"})
            continue
        rounds = min(len(base[name]), len(head[name]))
        ratios = [head[name][i]["p50"] / base[name][i]["p50"] for i in range(rounds) if base[name][i]["p50"] > 0]
        row = {
            "scenario": name,
            "base_ns": statistics.median(m["p50"] for m in base[name]),
            "head_ns": statistics.median(m["p50"] for m in head[name]),
            "rounds": rounds,
        }
        verdicts = []
        if ratios:
            low, high = bootstrap_median_interval(ratios)
            row.update(ratio=statistics.median(ratios), low=low, high=high)
            if low > 1 + tolerance:
                verdicts.append("▲ slower")
            elif high < 1 - tolerance:
                verdicts.append("▼ faster")
        base_allocations = [a for a in map(allocations, base[name]) if a is not None]
        head_allocations = [a for a in map(allocations, head[name]) if a is not None]
        if base_allocations and head_allocations:
            row["base_allocations"] = statistics.median(base_allocations)
            row["head_allocations"] = statistics.median(head_allocations)
            difference = row["head_allocations"] - row["base_allocations"]
            if difference >= 1:
                verdicts.append("▲ allocates more")
            elif difference <= -1:
                verdicts.append("▼ allocates less")
        row["verdict"] = ", ".join(verdicts) or "≈ unchanged"
        rows.append(row)
    return rows


def nanoseconds(value):
    return f"{value / 1000:.1f} µs" if value >= 10_000 else f"{value:.0f} ns"


def count(value):
    return f"{value:.0f}" if value == round(value) else f"{value:.2f}"


def markdown(rows, base_label, head_label, rounds, tolerance):
    lines = [
        f"A/B of `{base_label}` (base) and `{head_label}` (head): {rounds} interleaved rounds of `nal-bench --quick`,"
        f" one machine. Change is the median of per-round ratios head / base, with a 95 % bootstrap interval;"
        f" a verdict on time needs the whole interval beyond ±{tolerance:.0%}.",
        "",
        "| scenario | base | head | change | 95 % interval | allocations base → head | verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        if "base_ns" not in row:
            lines.append(f"| `{row['scenario']}` | | | | | | {row['verdict']} |")
            continue
        change = f"{(row['ratio'] - 1) * 100:+.1f}%" if "ratio" in row else ""
        interval = f"{row['low']:.3f}–{row['high']:.3f}" if "low" in row else ""
        allocated = (
            f"{count(row['base_allocations'])} → {count(row['head_allocations'])}"
            if "base_allocations" in row else "n/a")
        verdict = f"**{row['verdict']}**" if "▲" in row["verdict"] else row["verdict"]
        lines.append(
            f"| `{row['scenario']}` | {nanoseconds(row['base_ns'])} | {nanoseconds(row['head_ns'])} | {change} |"
            f" {interval} | {allocated} | {verdict} |")
    regressions = [row["scenario"] for row in rows if "▲" in row["verdict"]]
    lines += ["", f"Regressions: {', '.join(regressions)}." if regressions else "No regression."]
    return "\n".join(lines)


def main(arguments):
    output_format, tolerance, labels = "markdown", 0.10, ("base", "head")
    positional = []
    iterator = iter(arguments)
    for argument in iterator:
        if argument == "--format":
            output_format = next(iterator, "")
        elif argument == "--tolerance":
            tolerance = float(next(iterator, "0.10"))
        elif argument == "--labels":
            labels = tuple(next(iterator, "base,head").split(",", 1))
        else:
            positional.append(argument)
    if len(positional) != 2 or output_format not in ("markdown", "json"):
        print(__doc__, file=sys.stderr)
        return 2
    base, base_rounds = load(positional[0])
    head, head_rounds = load(positional[1])
    rows = compare(base, head, tolerance)
    if output_format == "json":
        print(json.dumps({"tolerance": tolerance, "rounds": min(base_rounds, head_rounds), "rows": rows}, indent=1))
    else:
        print(markdown(rows, labels[0], labels[1], min(base_rounds, head_rounds), tolerance))
    return 1 if any("▲" in row["verdict"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
