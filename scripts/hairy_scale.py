#!/usr/bin/env python3
"""The hairy-ball scale table (README "Hairy ball"), regenerated from the shipped scene.

Runs `scenes/hairy_ball.ron` at each requested size (rods x hair radius), one run after the
other, and prints 004 Table 2's columns as the README's Markdown table: DoF (from `fricsim
check`), contacts mean/max, seconds per step and per frame, the shares of ADMM's global linear
solve, its contact projection, assembly and detection in the step time, solver iterations per
step, peak memory (the process's maximum resident set, from wait4) and per 1000 contacts, the
largest natural-map error a step was left at, and how many steps met the scene's tolerance.
Every number comes from the run's `stats.csv` and `run.json`; with `--check` the script reads
them back and fails if a column is missing, empty or inconsistent with them.

Usage:
  python3 scripts/hairy_scale.py [--sizes 1000:0.5,4000:0.5,16000:0.1] [--frames 1]
                                 [--threads N] [--out DIR] [--csv FILE] [--check]
                                 [--set PATH=VALUE]...
Sizes are `rods:radius_mm`. The default is the README's table: 1k, 4k and 16k rods at 0.1 and
0.5 mm. FRICSIM=path/to/binary skips the release build.
"""
import argparse
import csv
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from fricsim_bin import fricsim_binary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "scenes", "hairy_ball.ron")
DEFAULT_SIZES = "1000:0.1,1000:0.5,4000:0.1,4000:0.5,16000:0.1,16000:0.5"
# Columns of stats.csv the table needs (a missing one is an error, not a blank cell).
NEEDED = ["step", "wall_s", "active_contacts", "final_residual", "converged", "assembly_s",
          "linear_solve_s", "detection_s", "projection_s", "solver_iterations"]


def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*:\s*([0-9.eE+-]+)\s*", item)
        if not m:
            sys.exit(f"--sizes: '{item}' is not rods:radius_mm (e.g. 1000:0.5)")
        rods, radius_mm = int(m.group(1)), float(m.group(2))
        if rods < 1 or not (0.0 < radius_mm < 10.0):
            sys.exit(f"--sizes: '{item}': rods must be >= 1 and the radius in (0, 10) mm")
        sizes.append((rods, radius_mm))
    return sizes


def scene_sets(rods, radius_mm, extra):
    sets = [f"bodies[0].curves.count={rods}", f'materials."hair".radius={radius_mm * 1e-3:g}']
    return [a for s in sets + extra for a in ("--set", s)]


def scene_facts(fricsim, sets):
    """The DoF count and the solver tolerance, from one `fricsim check` of the scene."""
    out = subprocess.run([fricsim, "check", SCENE] + sets, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"fricsim check failed:\n{out.stderr}")
    dof = re.search(r"(\d+) DOFs", out.stdout)
    tol = re.search(r"tolerance ([0-9.eE+-]+)", out.stdout)
    if not (dof and tol):
        sys.exit(f"fricsim check printed no DOF count or tolerance:\n{out.stdout}")
    return int(dof.group(1)), float(tol.group(1))


def run_once(fricsim, sets, frames, threads, out_dir):
    """Runs fricsim; returns the peak resident set in MB (wait4 of this very child)."""
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    cmd = [fricsim, "run", SCENE, "--quiet", "--frames", str(frames), "--out", out_dir] + sets
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = child.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {child.returncode}:\n{err}")
    return usage.ru_maxrss / 1024.0  # kB on Linux


def read_stats(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no steps")
    missing = [c for c in NEEDED if c not in rows[0]]
    if missing:
        sys.exit(f"{path}: missing columns {missing}")
    return rows


def summarize(rods, radius_mm, dof, rows, run, peak_mb, frames, tolerance):
    num = lambda r, c: float(r[c])
    n = len(rows)
    wall = sum(num(r, "wall_s") for r in rows)
    contacts = [num(r, "active_contacts") for r in rows]
    share = lambda c: 100.0 * sum(num(r, c) for r in rows) / wall
    residuals = [num(r, "final_residual") for r in rows]
    return {
        "rods": rods,
        "radius_mm": radius_mm,
        "dof": dof,
        "steps": n,
        "contacts_mean": sum(contacts) / n,
        "contacts_max": max(contacts),
        "s_per_step": wall / n,
        "s_per_frame": wall / frames,
        "linear_pct": share("linear_solve_s"),
        "projection_pct": share("projection_s"),
        "assembly_pct": share("assembly_s"),
        "detection_pct": share("detection_s"),
        "iterations_per_step": sum(num(r, "solver_iterations") for r in rows) / n,
        "iterations_max": max(num(r, "solver_iterations") for r in rows),
        "peak_mb": peak_mb,
        "kb_per_contact": 1024.0 * peak_mb / max(max(contacts), 1.0),
        "max_residual": max(residuals),
        "steps_within_tol": sum(1 for e in residuals if e <= tolerance),
        "run_steps": run["steps"],
        "run_wall_s": run["wall_seconds"],
    }


def check(row, rows, run):
    """The table's cells are filled and agree with the files they were computed from."""
    problems = []
    for k, v in row.items():
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            problems.append(f"column {k} is {v}")
    if row["run_steps"] != len(rows):
        problems.append(f"run.json says {row['run_steps']} steps, stats.csv has {len(rows)}")
    # Shares are parts of the step time (stats.csv splits it without overlap); a small excess
    # over 100 % is clock granularity between the parts and wall_s.
    parts = sum(row[k] for k in ("linear_pct", "projection_pct", "assembly_pct", "detection_pct"))
    if not (0.0 < parts <= 101.0):
        problems.append(f"time shares sum to {parts:.1f} %")
    # The run's own wall time includes writing frames and settling: at least the steps' sum.
    if row["run_wall_s"] < 0.999 * row["s_per_step"] * row["steps"]:
        problems.append("run.json's wall time is below the sum of the steps'")
    if not (row["contacts_mean"] <= row["contacts_max"] == run["totals"]["max_active_contacts"]):
        problems.append(f"contacts max {row['contacts_max']} vs run.json "
                        f"{run['totals']['max_active_contacts']}")
    iters = sum(float(r["solver_iterations"]) for r in rows)
    if iters != run["totals"]["solver_iterations"]:
        problems.append(f"solver iterations {iters} vs run.json {run['totals']['solver_iterations']}")
    if row["peak_mb"] <= 0.0:
        problems.append("no peak memory")
    return problems


def fmt_count(x):
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x / 1e3:.0f}k" if x >= 1e4 else f"{x:.0f}"


def markdown(rows):
    head = ("| rods | hair radius | DoF | contacts mean / max | s/step | s/frame | linear solve | "
            "projection | assembly | detection | ADMM iterations per step (max) | peak MB | "
            "kB per contact | largest error | steps at tolerance |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        lines.append(
            f"| {r['rods']} | {r['radius_mm']:g} mm | {fmt_count(r['dof'])} | "
            f"{fmt_count(r['contacts_mean'])} / {fmt_count(r['contacts_max'])} | "
            f"{r['s_per_step']:.2f} | {r['s_per_frame']:.1f} | {r['linear_pct']:.0f} % | "
            f"{r['projection_pct']:.0f} % | {r['assembly_pct']:.0f} % | {r['detection_pct']:.0f} % | "
            f"{r['iterations_per_step']:.0f} ({r['iterations_max']:.0f}) | {r['peak_mb']:.0f} | "
            f"{r['kb_per_contact']:.1f} | {r['max_residual']:.1e} | {r['steps_within_tol']}/{r['steps']} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="rods:radius_mm,... (default: the README's)")
    ap.add_argument("--frames", type=int, default=1, help="frames per run (10 steps each; default 1)")
    ap.add_argument("--threads", type=int, default=0, help="RAYON_NUM_THREADS (default: all cores)")
    ap.add_argument("--out", help="keep the runs in this folder (default: a temporary one)")
    ap.add_argument("--csv", help="also write the table's numbers to this CSV (for `fricsim plot`)")
    ap.add_argument("--check", action="store_true", help="fail unless every column is filled and "
                    "consistent with stats.csv and run.json")
    ap.add_argument("--set", action="append", default=[], help="extra scene overrides")
    a = ap.parse_args()
    if a.frames < 1:
        sys.exit("--frames must be >= 1")
    fricsim = fricsim_binary()
    sizes = parse_sizes(a.sizes)
    out = a.out or tempfile.mkdtemp(prefix="hairy_scale_")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    load_before = os.getloadavg()
    table, failures = [], []
    for rods, radius_mm in sizes:
        sets = scene_sets(rods, radius_mm, a.set)
        run_dir = os.path.join(out, f"rods{rods}_r{radius_mm:g}mm")
        dof, tolerance = scene_facts(fricsim, sets)
        print(f"running {rods} rods, {radius_mm:g} mm ...", file=sys.stderr, flush=True)
        peak = run_once(fricsim, sets, a.frames, a.threads, run_dir)
        rows = read_stats(os.path.join(run_dir, "stats.csv"))
        with open(os.path.join(run_dir, "run.json")) as f:
            run = json.load(f)
        row = summarize(rods, radius_mm, dof, rows, run, peak, a.frames, tolerance)
        row["threads"] = a.threads or os.cpu_count()
        table.append(row)
        if a.check:
            failures += [f"{rods} rods, {radius_mm:g} mm: {p}" for p in check(row, rows, run)]
    load_after = os.getloadavg()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Measured {date} at {commit}, {table[0]['threads']} threads, {a.frames} frame(s) per "
          f"run; load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"({os.cpu_count()} cores). Runs in {out}.\n")
    print(markdown(table))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0].keys()))
            w.writeheader()
            w.writerows(table)
    if failures:
        sys.exit("check failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
