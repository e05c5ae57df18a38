#!/usr/bin/env python3
"""Runs the mutations of scripts/mutations.tsv in a scratch copy of the repository (see scripts/mutation-test.sh)."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time


def unescape(text):
    """`\\n` is a line break and `\\\\` a backslash, so that a mutation can span lines."""
    return re.sub(r"\\(.)", lambda match: "\n" if match.group(1) == "n" else match.group(1), text)


def mutations(path, pattern):
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 5:
                print(f"{path}:{number}: expected 5 tab-separated fields, found {len(fields)}", file=sys.stderr)
                sys.exit(2)
            if pattern and not re.search(pattern, line):
                continue
            if number < int(os.environ.get("NAL_MUTATION_FROM", "0")):
                continue
            file, original, replacement, test_filter, why = fields
            # `FILTER @N`: a race-dependent mutation, caught when any of up to N runs of its tests fails.
            tries = 1
            if " @" in test_filter:
                test_filter, count = test_filter.rsplit(" @", 1)
                if not count.isdigit():
                    print(f"{path}:{number}: ' @N' needs a number of runs, found '{count}'", file=sys.stderr)
                    sys.exit(2)
                tries = max(1, int(count))
            yield number, file, unescape(original), unescape(replacement), test_filter, why, tries


def run(command, log, timeout=None):
    """Runs `command` in a session of its own, output to `log`; on timeout kills the whole session (the test
    binary and its exit-test children too) and returns None. Whatever of the session outlives the command (the
    children of a test binary that crashed) is killed too."""
    environment = dict(os.environ)
    if "NAL_DATA_HOME" in os.environ:
        # Foundation's cookie files of one run (scripts/lib/servers.sh) must not reach the next mutant's.
        environment["XDG_DATA_HOME"] = tempfile.mkdtemp(dir=os.environ["NAL_DATA_HOME"])
    if command[-1].startswith("allocations:"):
        # A filter "allocations:X" compares the allocations of the benchmark scenarios X with the checked-in
        # baseline, in a release build: a mutation that only costs allocations (a reservation dropped) is caught
        # by the count, which is deterministic.
        command = [BENCH, "--quick", "--filter", command[-1][len("allocations:"):], "--compare", BASELINE,
                   "--metric", "allocations"]
    if command[-1].startswith("curl:"):
        # A filter "curl:X" runs the transport suites X against CurlTransport.
        environment["NAL_TEST_TRANSPORT"] = "curl"
        command = command[:-1] + [command[-1][len("curl:"):]]
    with open(log, "w") as output:
        process = subprocess.Popen(
            command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True, env=environment)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
        kill_session(process.pid)
        process.wait()
        return status


def kill_session(session):
    """Kills every process of `session`, whatever its process group: swift test runs the test binary in a group of
    its own, and a hung mutant's test binary outlived a kill of the first group, eating a core through the runs
    after it. Gives up, saying so, after 10 s (a process in uninterruptible sleep)."""
    deadline = time.monotonic() + 10
    while True:
        members = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    # The fields after the command's closing parenthesis: state, ppid, pgrp, session, ...
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == session and fields[0] != "Z":
                members.append(int(entry))
        if not members:
            return
        if time.monotonic() > deadline:
            print(f"!! processes {members} of a test run outlived SIGKILL for 10 s; going on", flush=True)
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)


BENCH = ".build/release/nal-bench"
BASELINE = "Benchmarks/Baselines/main.json"


def build(test_filter, log):
    """Builds what `test_filter` runs: the tests, or for an allocations filter the release benchmark too."""
    status = run(["swift", "build", "--build-tests"], log)
    if status == 0 and test_filter.startswith("allocations:"):
        status = run(["swift", "build", "-c", "release", "--product", "nal-bench"], log)
    return status


def tests_that_ran(log):
    """Tests that ran (passed or failed, not skipped), from Swift Testing's output; for an allocations filter, the
    scenarios whose allocations nal-bench compared with the baseline."""
    with open(log, errors="replace") as handle:
        text = handle.read()
    compared = re.findall(r"(?m)^\S+ +allocations +\d", text)
    return len(compared) + len(re.findall(r"(?m)^\S* ?Test (?:\"[^\n]*\"|\S+) (?:with \d+ test cases? )?(?:passed|failed) after", text))


def failed(log):
    """Whether a test failed, or nal-bench found more allocations than the baseline's (rather than the process
    dying some other way)."""
    with open(log, errors="replace") as handle:
        text = handle.read()
    return re.search(r"(?m)^\S* ?Test .* (?:recorded an issue|failed after)|^\S+ +allocations .*regression", text) is not None


def baseline(test_filter, timeout, known):
    """Runs `test_filter` once on the unmutated code: None when it passes and runs a test, else the problem."""
    if test_filter not in known and test_filter.startswith("allocations:") and build(test_filter, "build.log") != 0:
        known[test_filter] = "cannot build the release benchmark without any mutation"
    if test_filter not in known:
        status = run(["swift", "test", "--skip-build", "--filter", test_filter], "baseline-test.log", timeout)
        if status is None:
            known[test_filter] = "hangs without any mutation"
        elif status != 0:
            known[test_filter] = f"fails without any mutation (status {status})"
        elif tests_that_ran("baseline-test.log") == 0:
            known[test_filter] = "runs no test (no match, or every match skipped)"
        else:
            known[test_filter] = None
    return known[test_filter]


def check_list(listing):
    """Without building: every row's text occurs exactly once in its file and the mutant differs from it, so that a
    list gone stale after a refactor fails at once (CI runs this) rather than at the next full mutation run."""
    os.environ.pop("NAL_MUTATION_FROM", None)
    problems = 0
    rows = list(mutations(listing, ""))
    for number, file, original, replacement, test_filter, why, _ in rows:
        if "curl:" in test_filter[1:]:
            print(f"{listing}:{number}: 'curl:' starts a filter or is not there ({test_filter})", file=sys.stderr)
            problems += 1
        try:
            with open(file) as handle:
                count = handle.read().count(original)
        except OSError as error:
            print(f"{listing}:{number}: {file}: {error.strerror}", file=sys.stderr)
            problems += 1
            continue
        if count != 1 or original == replacement:
            what = "the mutant is the original" if original == replacement else f"the text occurs {count} times"
            print(f"{listing}:{number}: {what} in {file} ({why})", file=sys.stderr)
            problems += 1
    print(f"{len(rows)} mutations listed, {problems} stale")
    sys.exit(2 if problems else 0)


def main():
    if sys.argv[1] == "--check-list":
        check_list(sys.argv[2])
    listing, scratch, timeout, pattern = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.chdir(scratch)
    caught, survived, broken = [], [], []
    rows = list(mutations(listing, pattern))
    if not rows:
        print(f"!! no mutation in {listing} matches '{pattern}' (from line {os.environ.get('NAL_MUTATION_FROM', '1')})")
        sys.exit(2)
    # Every filter runs once on the unmutated build, before any mutant is built over it.
    known = {}
    for test_filter in dict.fromkeys(row[4] for row in rows):
        baseline(test_filter, timeout, known)
    for number, file, original, replacement, test_filter, why, tries in rows:
        with open(file) as handle:
            source = handle.read()
        count = source.count(original)
        if count != 1:
            print(f"!! list error, line {number}: the text occurs {count} times in {file}", flush=True)
            broken.append(f"line {number}: {file}: {why}")
            continue
        problem = baseline(test_filter, timeout, known)
        if problem:
            print(f"!! list error, line {number}: the filter '{test_filter}' {problem}", flush=True)
            broken.append(f"line {number}: {file}: the filter {problem}: {why}")
            continue
        try:
            with open(file, "w") as handle:
                handle.write(source.replace(original, replacement))
            if build(test_filter, "mutant-build.log") != 0:
                verdict = "does not build"
            else:
                for attempt in range(1, tries + 1):
                    status = run(["swift", "test", "--skip-build", "--filter", test_filter], "mutant-test.log", timeout)
                    if status != 0:
                        break
                if status == 0:
                    verdict = "SURVIVED" if tries == 1 else f"SURVIVED ({tries} runs)"
                elif status is None:
                    verdict = "caught (hung)"
                elif failed("mutant-test.log"):
                    verdict = "caught"
                else:
                    verdict = f"caught (the test process died, status {status})"
                if status != 0 and tries > 1:
                    verdict += f" in run {attempt} of up to {tries}"
        finally:
            with open(file, "w") as handle:
                handle.write(source)
        print(f"{verdict}: line {number}: {file}: {why}", flush=True)
        if verdict == "does not build":
            # A mutation must be a bug that compiles: one that does not build tests nothing.
            broken.append(f"line {number}: {file}: the mutant does not build: {why}")
        else:
            (survived if verdict.startswith("SURVIVED") else caught).append(f"line {number}: {file}: {why}")
    run(["swift", "build", "--build-tests"], "build.log")
    print(f"\n== {len(caught)} caught, {len(survived)} survived, {len(broken)} list errors")
    for item in survived:
        print(f"  SURVIVED {item}")
    for item in broken:
        print(f"  LIST ERROR {item}")
    sys.exit(2 if broken else 1 if survived else 0)


if __name__ == "__main__":
    main()
