#!/usr/bin/env python3
"""Checks the profile tests/c/profile.c wrote: usage: check_profile.py <output base>.

- the JSON file names the program's lines (file:line from its debug information, and the
  explicit SL_AT site), with the calls each made;
- the expensive lines (sin, exp on a big array) are attributed far more kernel time than
  the add fused into the same kernel; both sin lines get time, although the
  second only ever runs as a trace-cache replay of the first's flush;
- every step's call-site weights sum to 1;
- the Chrome trace is valid JSON with calls, flushes, compiles and steps;
- the report's rows are sorted by attributed time, the program's lines first.
"""
import json
import os
import sys


def fail(msg):
    print(f"check_profile: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    base = sys.argv[1]
    with open(base + ".expect.json") as f:
        expect = json.load(f)
    with open(base + ".json") as f:
        raw = json.load(f)
    with open(base + ".trace.json") as f:
        trace = json.load(f)
    with open(base + ".txt") as f:
        text = f.read()

    rows = raw["summary"]["sites"]
    mine = {}
    for r in rows:
        if r["file"] and os.path.basename(r["file"]) == expect["file"]:
            mine[(r["line"], r["api"])] = r
    rounds = expect["rounds"]
    sin_even, sin_odd = expect["sin"]
    wanted = {
        (sin_even, "sl_sin"): rounds // 2,
        (sin_odd, "sl_sin"): rounds // 2,
        (expect["exp"], "sl_exp"): rounds,
        (expect["add"], "sl_add"): rounds,
        (expect["explicit"], "sl_mul"): rounds,
    }
    for key, calls in wanted.items():
        if key not in mine:
            fail(f"no row for {key[1]} at {expect['file']}:{key[0]}; rows: {[(r['place'], r['api']) for r in rows]}")
        if mine[key]["calls"] != calls:
            fail(f"{key}: {mine[key]['calls']} calls, wanted {calls}")

    explicit = [s for s in raw["sites"] if s["explicit"]]
    if not any(s["line"] == expect["explicit"] and s["api"] == "sl_mul" for s in explicit):
        fail(f"the SL_AT site is not an explicit site: {explicit}")

    attributed = lambda line, api: mine[(line, api)]["attributed_ns"]
    sin_time = attributed(sin_even, "sl_sin") + attributed(sin_odd, "sl_sin")
    exp_time = attributed(expect["exp"], "sl_exp")
    add_time = attributed(expect["add"], "sl_add")
    for line in (sin_even, sin_odd):
        if attributed(line, "sl_sin") <= 0:
            fail(f"sl_sin at line {line} was attributed no kernel time")
    # Rows come most attributed first. (Which line tops them compares kernels' measured
    # times, which a busy machine can invert: the small multiply's kernel once took longer
    # than the big one under the sanitizers. Within one kernel, shares follow the cost
    # estimate, which the add check below relies on.)
    times = [r["attributed_ns"] for r in rows]
    if times != sorted(times, reverse=True):
        fail(f"rows are not sorted by attributed time: {times}")
    if not (add_time < 0.2 * sin_time and add_time < 0.2 * exp_time):
        fail(f"the add got {add_time:.0f} ns against sin {sin_time:.0f} and exp {exp_time:.0f}")

    if not raw["steps"]:
        fail("no steps recorded")
    for i, step in enumerate(raw["steps"]):
        total = sum(s["weight"] for s in step["sites"])
        if abs(total - 1.0) > 1e-4:
            fail(f"step {i}: weights sum to {total}")
        if step["wall_ns"] <= 0 or step["elements"] <= 0 or step["bytes"] <= 0:
            fail(f"step {i}: {step}")
    big = [s for s in raw["steps"] if s["elements"] == 1 << 20]
    if len(big) != rounds:
        fail(f"{len(big)} runs of the big kernel, wanted {rounds}")
    if any(s["executor"] == "cpu" and s["cpu_ns"] is None for s in big):
        fail(f"a run on the CPU executor without CPU time: {big}")
    traces = [f["trace"] for f in raw["flushes"]]
    if "hit" not in traces or "miss" not in traces:
        fail(f"flush outcomes {traces}: wanted trace-cache hits and misses")
    if not raw["compiles"]:
        fail("no compiles recorded")

    events = trace["traceEvents"]
    cats = {e.get("cat") for e in events if e.get("ph") == "X"}
    for cat in ("call", "flush", "compile", "step"):
        if cat not in cats:
            fail(f"no {cat} events in the Chrome trace (categories: {cats})")
    for e in events:
        if e["ph"] == "X" and not (e["dur"] >= 0 and e["ts"] >= 0 and "tid" in e and "name" in e):
            fail(f"malformed event {e}")
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    if not any(n.endswith("executor: steps") for n in names):
        fail(f"no executor track among {names}")

    first_row = next(l for l in text.splitlines() if " ms " in l and "%" in l)
    if expect["file"] not in first_row:
        fail(f"the report's first row is not the program's line: {first_row}")
    print(f"check_profile: ok ({len(raw['steps'])} steps, {len(raw['calls'])} calls; sin {sin_time/1e6:.2f} ms, "
          f"exp {exp_time/1e6:.2f} ms, add {add_time/1e6:.3f} ms)")


main()
