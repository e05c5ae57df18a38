#!/usr/bin/env python3
"""Runs the mutations of scripts/mutations.tsv in a scratch copy of the repository (see scripts/mutation-test.sh)."""

import os
import re
import subprocess
import sys


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
                sys.exit(f"{path}:{number}: expected 5 tab-separated fields, found {len(fields)}")
            if pattern and not re.search(pattern, line):
                continue
            if number < int(os.environ.get("NAL_MUTATION_FROM", "0")):
                continue
            file, original, replacement, test_filter, why = fields
            yield number, file, unescape(original), unescape(replacement), test_filter, why


def run(command, log, timeout=None):
    with open(log, "w") as output:
        try:
            return subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return None


def main():
    listing, scratch, timeout, pattern = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.chdir(scratch)
    caught, survived, broken = [], [], []
    for number, file, original, replacement, test_filter, why in mutations(listing, pattern):
        with open(file) as handle:
            source = handle.read()
        count = source.count(original)
        if count != 1:
            print(f"!! list error, line {number}: the text occurs {count} times in {file}", flush=True)
            broken.append(f"line {number}: {file}: {why}")
            continue
        try:
            with open(file, "w") as handle:
                handle.write(source.replace(original, replacement))
            if run(["swift", "build", "--build-tests"], "mutant-build.log") != 0:
                verdict = "caught (does not build)"
            else:
                status = run(["swift", "test", "--skip-build", "--filter", test_filter], "mutant-test.log", timeout)
                verdict = "SURVIVED" if status == 0 else ("caught (hung)" if status is None else "caught")
        finally:
            with open(file, "w") as handle:
                handle.write(source)
        print(f"{verdict}: line {number}: {file}: {why}", flush=True)
        (survived if verdict == "SURVIVED" else caught).append(f"line {number}: {file}: {why}")
    run(["swift", "build", "--build-tests"], "build.log")
    print(f"\n== {len(caught)} caught, {len(survived)} survived, {len(broken)} list errors")
    for item in survived:
        print(f"  SURVIVED {item}")
    for item in broken:
        print(f"  LIST ERROR {item}")
    sys.exit(2 if broken else 1 if survived else 0)


if __name__ == "__main__":
    main()
