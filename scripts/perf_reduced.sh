#!/usr/bin/env bash
# Reduced deformable bodies (002 §7.2) at work, beside 002 Table 7.1: the stick-slip chairs
# (scenes/chairs.ron, one stool of 12 modes), the chairs at 002's scale (scripts/chairs_grid.py:
# 98 stools of 000's mesh size at h = 1e-2, 1,764 unknowns, 9,800 contacts; each stool's slide
# checked against the rigid closed form) and StVK critter piles (scripts/reduced_scenes.py:
# the shipped 8 critters and an N-critter pile), printing unknowns, contacts, solver iterations,
# contact-solve and total seconds per step, and converged steps. The thesis (single-threaded Java,
# 3 GHz Pentium D; solve time per step, contacts, iterations, DoFs): chairs 0.72 s, 9,025, 2.9,
# 1,766; dinosaurs (StVK) 0.61 s, 4,690, 2.7, 315.
#
# Usage: scripts/perf_reduced.sh [N critters (32)] [frames of the N pile (40, at 50 per second)]
# Environment: FRICSIM=path/to/binary (default: build with cargo); OUT=folder (default: temporary).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
n="${1:-32}"
frames="${2:-40}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
python3 scripts/reduced_scenes.py "$n" --out "$out/pile.ron"

summary() {
    python3 - "$1" "$2" "$3" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
touching = [r for r in rows if int(r["active_contacts"]) > 0]
mean = lambda key, rs: statistics.mean(float(r[key]) for r in rs) if rs else 0.0
print("%-28s %5s unknowns  %4d steps  contacts mean %6.0f max %6d  iterations %6.1f  solve %.4f s/step  total %.4f s/step  converged %d/%d"
      % (sys.argv[2], sys.argv[3], len(rows), mean("active_contacts", touching),
         max(int(r["active_contacts"]) for r in rows), mean("solver_iterations", touching),
         mean("linear_solve_s", touching), mean("wall_s", rows), sum(int(r["converged"]) for r in rows), len(rows)))
PY
}

echo "load before: $(uptime)"
"$FRICSIM" run scenes/chairs.ron --quiet --out "$out/chairs"
summary "$out/chairs/stats.csv" "chairs (1 stool, Modal 12)" 18
python3 scripts/chairs_grid.py write 98 --out "$out/chairs98.ron"
"$FRICSIM" run "$out/chairs98.ron" --quiet --out "$out/chairs98"
python3 scripts/chairs_grid.py check "$out/chairs98/stats.csv" "$out/chairs98.ron"
"$FRICSIM" run scenes/critter_pile.ron --quiet --out "$out/pile8"
summary "$out/pile8/stats.csv" "8 critters (StVK 12)" 144
# A failed step stops the run; the steps it took are still summarized.
"$FRICSIM" run "$out/pile.ron" --quiet --frames "$frames" --out "$out/pileN" || echo "(stopped early: statistics of the steps taken)"
summary "$out/pileN/stats.csv" "$n critters (StVK 12)" $((18 * n))
echo "load after:  $(uptime)"
