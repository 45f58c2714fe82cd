#!/usr/bin/env python3
"""Profiles a program and checks its call sites: usage
check_sites.py --source SRC --ops OPS -- PROGRAM [ARGS...]

Runs PROGRAM with SLUICE_PROFILE and checks that every call site in the profile is a line
of SRC (the program's own source: not the C++ header or Fortran module of Sluice, nor a
standard library header) holding code, and that each site the profile attributes kernel
time to is a line where the program makes an op (it holds one of the comma-separated
spellings OPS).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"check_sites: {msg}", file=sys.stderr)
    sys.exit(1)


def is_code(text, fortran):
    text = text.strip()
    return bool(text) and not text.startswith("!" if fortran else "//")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--ops", required=True)
    parser.add_argument("program", nargs="+")
    args = parser.parse_args()
    ops = args.ops.split(",")
    fortran = args.source.lower().endswith((".f90", ".f"))
    with open(args.source) as f:
        lines = f.read().split("\n")
    name = os.path.basename(args.source)

    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "profile")
        env = dict(os.environ, SLUICE_PROFILE=base)
        run = subprocess.run(args.program, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            fail(f"{args.program[0]} exited with {run.returncode}:\n{run.stdout}{run.stderr}")
        with open(base + ".json") as f:
            rows = json.load(f)["summary"]["sites"]

    if not any(r["attributed_ns"] > 0 for r in rows):
        fail(f"no site was attributed kernel time: {rows}")
    for r in rows:
        where = f"{r['api']} at {r['place']}"
        if not r["file"] or os.path.basename(r["file"]) != name:
            fail(f"{where} is not a line of {name}")
        text = lines[r["line"] - 1] if 0 < r["line"] <= len(lines) else ""
        if not is_code(text, fortran):
            fail(f"{where} is not a line of code: {text!r}")
        if r["attributed_ns"] > 0 and not any(op in text for op in ops):
            fail(f"{where} was attributed kernel time but makes no op: {text!r}")
    timed = sum(1 for r in rows if r["attributed_ns"] > 0)
    print(f"check_sites: ok ({len(rows)} sites in {name}, {timed} with kernel time)")


main()
