#!/usr/bin/env bash
# The shape of 001 Table I on this machine: a cloth sleeve around a bending soft limb
# (scenes/tube_bend.ron, 810 tets and 768 triangles), at mu = 0.2 and 0.8, with the penalty
# pipeline's Direct (Lu), Auto (GMRES on a cached Cholesky) and Iterative (matrix-free) Newton,
# Iterative with its default Cholesky preconditioner and with 001's block Jacobi, and with a
# water-like volume penalty on the limb (Iterative). Seconds per frame, Newton and linear iterations
# per step, peak memory and the limb's volume loss at the end. Prints one Markdown table.
#
# Usage: scripts/perf_tube_bend.sh          (FRAMES=2: about 1 minute on 2 cores)
# Environment: FRICSIM=path/to/binary (default: build in release); FRAMES=frames per run (default
# 2 of the scene's 20, 0.1 s: the first tenth of the bend).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
frames="${FRAMES:-2}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run LABEL ARGS...: one row.
run() {
    local label=$1
    shift
    if ! /usr/bin/time -v -o "$out/time.log" "$FRICSIM" run scenes/tube_bend.ron --quiet --out "$out/run" \
        --frames "$frames" "$@" >/dev/null 2>"$out/err.log"; then
        echo "| $label | failed: $(tail -1 "$out/err.log") | | | | | |"
        return
    fi
    local rss
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.log")
    awk -F, -v label="$label" -v kb="$rss" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; wall += $col["wall_s"]; it += $col["newton_iters"]; lin += $col["linear_iters"]; failed += 1 - $col["converged"]
          loss = ("limb.volume_loss_pct" in col) ? sprintf("%.3g %%", $col["limb.volume_loss_pct"]) : "–" }
        END { printf "| %s | %.2f | %.1f | %.0f | %d | %.1f | %s |\n", label, wall / frames, it / n, lin / n, failed, kb / 1024, loss }
    ' frames="$frames" "$out/run/stats.csv"
}

water="bodies[0].volume=(compressibility_per_atm: 4.6e-5)"
echo "| run | s/frame | Newton it./step | linear it./step | failed steps | peak RSS (MB) | limb volume loss |"
echo "|---|---|---|---|---|---|---|"
for mu in 0.2 0.8; do
    for solver in Lu Auto Iterative; do
        run "mu $mu, $solver" --set "friction.default.mu=$mu" --set "pipeline.newton.linear_solver=$solver"
    done
    run "mu $mu, Iterative (block Jacobi)" --set "friction.default.mu=$mu" --set "pipeline.newton.linear_solver=Iterative" \
        --set "pipeline.newton.preconditioner=BlockJacobi"
    run "mu $mu, Iterative, kv 4.6e-5" --set "friction.default.mu=$mu" --set "pipeline.newton.linear_solver=Iterative" \
        --set "$water"
done
