#!/usr/bin/env python3
"""004's ADMM variants and its NL-ICA baseline side by side on the shipped nodal scenes (Table 3's ablations).

Each variant is a set of `--set` overrides of `pipeline.admm`; every scene runs the same frames
under each, and the table gives, summed over the steps: ADMM iterations, projection time, wall
time, and the steps whose solve met the scene's tolerance.

    python3 scripts/admm_ablation.py [--frames 10] [--bin target/release/fricsim] [--variants a,b]
                                     [--set PATH=VALUE ...] [scene ...]
"""
import argparse
import csv
import os
import subprocess
import tempfile

SCENES = ["cloth_on_box", "mixed_drop", "hair_on_cloth", "hairy_ball"]
VARIANTS = {
    "published W (m_j mass)": ["pipeline.admm.weights=Mass"],
    "W = η_j (m_j stiffness)": ["pipeline.admm.weights=Stiffness"],
    "no sleeping": ["pipeline.admm.sleeping=false"],
    "anisotropic (3×3 block W)": ["pipeline.admm.weights=Blocks"],
    # Not an ADMM variant: 004's baseline solver on the same problems (`dfcp::nl_ica`).
    "NL-ICA": ["pipeline.solver=NlIca"],
}


def run(binary, scene, frames, sets, out):
    cmd = [binary, "run", scene, "--out", out, "--frames", str(frames), "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "stats.csv")) as f:
        rows = list(csv.DictReader(f))
    return {
        "steps": len(rows),
        "iters": sum(int(r["solver_iterations"]) for r in rows),
        "proj": sum(float(r["projection_s"]) for r in rows),
        "wall": sum(float(r["wall_s"]) for r in rows),
        "conv": sum(r["converged"] == "1" for r in rows),
        "worst": max(float(r["final_residual"]) for r in rows),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--bin", default="target/release/fricsim")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated names")
    ap.add_argument("--set", action="append", default=[], help="an override for every run (repeatable)")
    ap.add_argument("scenes", nargs="*", default=SCENES)
    a = ap.parse_args()
    names = [v for v in VARIANTS if v in a.variants.split(",")]
    print("| scene | variant | steps | ADMM iterations | projection s | wall s | converged | worst error |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for sc in a.scenes:
            path = sc if sc.endswith(".ron") else f"scenes/{sc}.ron"
            for i, name in enumerate(names):
                r = run(a.bin, path, a.frames, VARIANTS[name] + a.set, os.path.join(tmp, f"{i}"))
                print(f"| {os.path.basename(path)} | {name} | {r['steps']} | {r['iters']} | {r['proj']:.2f} | "
                      f"{r['wall']:.2f} | {r['conv']}/{r['steps']} | {r['worst']:.1e} |", flush=True)


if __name__ == "__main__":
    main()
