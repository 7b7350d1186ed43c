#!/usr/bin/env bash
# Non-convex rigid bodies at scale (002 experiment 15, Table 7.2 right): the Lincoln-log house
# (scenes/log_house.ron) and an N-body drop of bunny-like critters (scripts/nonconvex_scenes.py
# --drop N), each run with islands on and off (solver Auto) and with the velocity ADMM, in one
# go, printing seconds per step, contacts, solver iterations and converged steps. The thesis: log house 4.9 s/step (0.061 s with its
# decomposition), 2000-bunny drop 37.5 s/step (single-threaded Java, 3 GHz Pentium D).
#
# Usage: scripts/perf_nonconvex.sh [N bodies (200)] [dt (0.002)] [frames (5)]
# Environment: FRICSIM=path/to/binary (default: build with cargo); OUT=folder (default: temporary).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
n="${1:-200}"
dt="${2:-0.002}"
frames="${3:-5}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
python3 scripts/nonconvex_scenes.py --drop "$n" --out "$out/drop.ron" >/dev/null

summary() {
    python3 - "$1" "$2" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w = [float(r["wall_s"]) for r in rows]
print("%-34s %5d steps  %.4f s/step (last 20: %.4f)  contacts max %5d  iterations mean %6.1f  converged %d/%d"
      % (sys.argv[2], len(rows), statistics.mean(w), statistics.mean(w[-20:]),
         max(int(r["active_contacts"]) for r in rows), statistics.mean(float(r["solver_iterations"]) for r in rows),
         sum(int(r["converged"]) for r in rows), len(rows)))
PY
}

echo "load before: $(uptime)"
# Islands on and off with the default solver, then the velocity ADMM (islands on).
runs=("true Auto" "false Auto" "true VelocityAdmm")
for run in "${runs[@]}"; do
    read -r islands solver <<<"$run"
    "$FRICSIM" run scenes/log_house.ron --quiet --frames 2 --out "$out/house_${islands}_$solver" \
        --set "pipeline.islands=$islands" --set "pipeline.solver=$solver"
    summary "$out/house_${islands}_$solver/stats.csv" "log house, islands $islands, $solver"
done
for run in "${runs[@]}"; do
    read -r islands solver <<<"$run"
    "$FRICSIM" run "$out/drop.ron" --quiet --frames "$frames" --set "dt=$dt" --out "$out/drop_${islands}_$solver" \
        --set "pipeline.islands=$islands" --set "pipeline.solver=$solver"
    summary "$out/drop_${islands}_$solver/stats.csv" "$n-body drop, dt $dt, islands $islands, $solver"
done
echo "load after:  $(uptime)"
