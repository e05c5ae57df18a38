"""The A/B report of scripts/bench-ab.sh: nal-bench JSON runs of two builds, made in interleaved rounds on one machine.

  bench_ab.py [--format markdown|json] [--tolerance 0.10] BASE_DIR HEAD_DIR
  bench_ab.py --self-test          checks the verdicts on made-up rounds (CI runs it)

Each directory holds one `nal-bench --format json` output per round (round-N.json). Per scenario: the median over
rounds of the per-round ratio head / base of the median times, a distribution-free confidence interval of that
median (order statistics of the ratios, as the sign test gives it; its exact confidence is printed, at least 95 %
from 6 rounds on), and the median allocations per op of each side. Verdicts:
  ▲ slower / ▼ faster   the whole interval lies beyond 1 ± tolerance
  ▲ allocates more / ▼ fewer   the median allocations differ by half an allocation per op or more beyond the
                        scenario's stated allocation tolerance (`allocationTolerance` in its JSON; 0 for most), as
                        `nal-bench --compare` reads a baseline
  n/a                   fewer rounds than a 95 % interval needs (6): no time verdict
  ≈ unchanged           anything else
Exit 1 when any scenario is slower or allocates more, else 0; 2 on usage errors and on runs that are not
nal-bench's JSON or hold impossible values (NaN, a time of 0), which could hide a change.
"""
import glob
import json
import math
import os
import statistics
import sys
import tempfile


def refuse(message):
    print(f"Error: {message}", file=sys.stderr)
    sys.exit(2)


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load(directory):
    """{scenario: [measurement per round]} for NAL scenarios (references are Foundation code). A run that is not
    nal-bench's JSON, or holds a time or count no run can produce, is refused (exit 2): it could hide a change."""
    runs = {}
    files = sorted(glob.glob(os.path.join(directory, "round-*.json")))
    if not files:
        refuse(f"no runs in {directory}")
    for path in files:
        try:
            with open(path) as file:
                measurements = json.load(file)
        except (OSError, ValueError) as error:
            refuse(f"{path} is not nal-bench JSON: {error}")
        if not isinstance(measurements, list) or not measurements:
            refuse(f"{path} holds no measurement")
        for measurement in measurements:
            if not isinstance(measurement, dict) or not isinstance(measurement.get("name"), str):
                refuse(f"{path}: a measurement without a name")
            if not number(measurement.get("p50")) or measurement["p50"] <= 0:
                refuse(f"{path}: {measurement['name']}: p50 must be a finite time above 0")
            for key in ("mallocsPerOp", "mallocsAboveReference", "allocationTolerance"):
                if measurement.get(key) is not None and not number(measurement[key]):
                    refuse(f"{path}: {measurement['name']}: {key} must be a finite number")
            if not measurement.get("isReference"):
                runs.setdefault(measurement["name"], []).append(measurement)
    return runs, len(files)


def allocations(measurements, key):
    return [m[key] for m in measurements if m.get(key) is not None]


def median_interval(values):
    """(low, high, confidence): the narrowest interval of order statistics [x(k), x(n+1-k)] that holds the median
    with at least 95 % confidence, or the whole range with its smaller confidence when there are too few values.
    Distribution-free: it assumes only that rounds are independent."""
    ordered = sorted(values)
    n = len(ordered)

    def confidence(k):  # P(x(k) <= median <= x(n+1-k)) = 1 - 2 P(Binomial(n, 1/2) <= k - 1)
        return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n

    k = 1
    while k + 1 <= (n + 1) // 2 and confidence(k + 1) >= 0.95:
        k += 1
    return ordered[k - 1], ordered[n - k], confidence(k)


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
            low, high, confidence = median_interval(ratios)
            row.update(ratio=statistics.median(ratios), low=low, high=high, confidence=confidence)
            if confidence < 0.95:
                verdicts.append("n/a: too few rounds for a time verdict")
            elif low > 1 + tolerance:
                verdicts.append("▲ slower")
            elif high < 1 - tolerance:
                verdicts.append("▼ faster")
        # The same count on both sides: above the reference where both have it (URLSession-bound scenarios).
        key = "mallocsAboveReference" if all(
            m.get("mallocsAboveReference") is not None for m in base[name] + head[name]) else "mallocsPerOp"
        base_allocations, head_allocations = allocations(base[name], key), allocations(head[name], key)
        if base_allocations and head_allocations:
            row["base_allocations"] = statistics.median(base_allocations)
            row["head_allocations"] = statistics.median(head_allocations)
            difference = row["head_allocations"] - row["base_allocations"]
            # Counts repeat exactly but for a few Foundation-bound scenarios, which state how far theirs vary; half a
            # count more is what a median of exact counts can differ by without a change.
            allowance = max((m.get("allocationTolerance") or 0) for m in base[name] + head[name]) + 0.5
            row["allocation_tolerance"] = allowance - 0.5
            if difference >= allowance:
                verdicts.append("▲ allocates more")
            elif difference <= -allowance:
                verdicts.append("▼ allocates less")
        row["verdict"] = ", ".join(verdicts) or "≈ unchanged"
        rows.append(row)
    return rows


def nanoseconds(value):
    return f"{value / 1000:.1f} µs" if value >= 10_000 else f"{value:.0f} ns"


def count(value):
    return f"{value:.0f}" if value == round(value) else f"{value:.2f}"


def markdown(rows, base_label, head_label, rounds, tolerance):
    confidences = sorted({row["confidence"] for row in rows if "confidence" in row})
    confidence = f"{confidences[0]:.1%}" if confidences else "n/a"
    lines = [
        f"A/B of `{base_label}` (base) and `{head_label}` (head): {rounds} interleaved rounds of `nal-bench --quick`,"
        f" one machine. Base and head are median times; change is the median of per-round ratios head / base, with"
        f" a distribution-free interval of at least {confidence} confidence; a verdict on time needs the whole"
        f" interval beyond ±{tolerance:.0%}, on allocations a difference of half an allocation per op or more beyond the"
        f" scenario's stated allocation tolerance, if any. With many scenarios,"
        f" expect an occasional interval that misses 1 by chance: the tolerance is there for that.",
        "",
        "| scenario | base | head | median ratio | interval | allocations base → head | verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        if "base_ns" not in row:
            lines.append(f"| `{row['scenario']}` | | | | | | {row['verdict']} |")
            continue
        change = f"{row['ratio']:.3f} ({(row['ratio'] - 1) * 100:+.1f}%)" if "ratio" in row else ""
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


def self_test():
    """The verdicts on made-up rounds: what a change of code must not break."""
    def rounds(directory, scenarios):
        os.makedirs(directory)
        for index, measurements in enumerate(scenarios, start=1):
            with open(os.path.join(directory, f"round-{index}.json"), "w") as file:
                json.dump(measurements, file)

    def measurement(name, p50, mallocs=10.0, tolerance=None):
        entry = {"name": name, "isReference": False, "p50": p50, "mallocsPerOp": mallocs}
        if tolerance is not None:
            entry["allocationTolerance"] = tolerance
        return entry

    noise = [1.0, 1.04, 0.97, 1.02, 0.99, 1.03]
    with tempfile.TemporaryDirectory() as folder:
        base, head = os.path.join(folder, "base"), os.path.join(folder, "head")
        rounds(base, [[measurement("same", 100 * n), measurement("slower", 100 * n), measurement("alloc", 100),
                       measurement("gone", 100), measurement("tolerated", 100, 120.0, 3),
                       measurement("past", 100, 120.0, 3)] for n in noise])
        rounds(head, [[measurement("same", 100 * n), measurement("slower", 200 * n), measurement("alloc", 100, 11.0),
                       measurement("added", 100), measurement("tolerated", 100, 123.0, 3),
                       measurement("past", 100, 124.0, 3)] for n in reversed(noise)])
        rows = {row["scenario"]: row for row in compare(load(base)[0], load(head)[0], 0.10)}
    failures = []
    expect = {"same": "≈ unchanged", "slower": "▲ slower", "alloc": "▲ allocates more", "gone": "only in base",
              "added": "only in head", "tolerated": "≈ unchanged", "past": "▲ allocates more"}
    for name, verdict in expect.items():
        if rows.get(name, {}).get("verdict") != verdict:
            failures.append(f"{name}: expected {verdict!r}, got {rows.get(name, {}).get('verdict')!r}")
    with tempfile.TemporaryDirectory() as folder:
        base, head = os.path.join(folder, "base"), os.path.join(folder, "head")
        rounds(base, [[measurement("one", 100)]])
        rounds(head, [[measurement("one", 300)]])
        one = compare(load(base)[0], load(head)[0], 0.10)[0]
    if one["verdict"] != "n/a: too few rounds for a time verdict":
        failures.append(f"one round: expected no time verdict, got {one['verdict']!r}")
    low, high, confidence = median_interval([1, 2, 3, 4, 5, 6])
    if (low, high) != (1, 6) or not 0.96 < confidence < 0.97:
        failures.append(f"6 rounds: interval ({low}, {high}) at {confidence}, expected (1, 6) at 96.9 %")
    low, high, confidence = median_interval(list(range(1, 11)))
    if (low, high) != (2, 9) or confidence < 0.95:
        failures.append(f"10 rounds: interval ({low}, {high}) at {confidence}, expected (2, 9) at 97.9 %")
    for failure in failures:
        print(f"bench_ab self-test: FAIL {failure}")
    print("bench_ab self-test: " + ("failed" if failures else "ok"))
    return 1 if failures else 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    output_format, tolerance, labels = "markdown", 0.10, ("base", "head")
    positional = []
    iterator = iter(arguments)
    for argument in iterator:
        if argument == "--format":
            output_format = next(iterator, "")
        elif argument == "--tolerance":
            try:
                tolerance = float(next(iterator, ""))
            except ValueError:
                tolerance = math.nan
            if not 0 < tolerance < 1:
                refuse("--tolerance is a fraction between 0 and 1, such as 0.10")
        elif argument == "--labels":
            labels = tuple(next(iterator, "base,head").split(",", 1))
        else:
            positional.append(argument)
    if len(positional) != 2 or output_format not in ("markdown", "json"):
        print(__doc__, file=sys.stderr)
        return 2
    base, base_rounds = load(positional[0])
    head, head_rounds = load(positional[1])
    if not base or not head:
        refuse("one side measured no NAL scenario")
    rows = compare(base, head, tolerance)
    if output_format == "json":
        print(json.dumps({"tolerance": tolerance, "rounds": min(base_rounds, head_rounds), "rows": rows}, indent=1))
    else:
        print(markdown(rows, labels[0], labels[1], min(base_rounds, head_rounds), tolerance))
    return 1 if any("▲" in row["verdict"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
