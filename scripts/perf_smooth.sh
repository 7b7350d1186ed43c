#!/usr/bin/env bash
# The Smooth pipeline's cost, printed as two tables. First, 000 Table 2's columns for the paper's
# scenes (ball spin at three mu, stool chatter, trampoline), at our default sizes and at 000's:
# elements (tets + cloth triangles), vertices, step, steps, h_err (largest over the fields, from
# `fricsim check`), mu, n (000's: the largest number of contact constraints, every vertex within a
# field's reach; and the largest number with a normal impulse), k_t and i_k (largest / mean), time
# and seconds per step. Second, the cost against contacts for the ramp block and the trampoline, each at two
# resolutions. Per run: the mean and largest contact count n
# (contacts with a normal impulse), the predictor's interior-point iterations and its time
# (assembly + linear solves), the friction step's time (Delassus operator, polar Staggered
# Projections, corrector), k_t (friction iterations per step) and i_k (passes and Newton steps per
# projection), seconds per step and per frame, and peak memory. Prints two Markdown tables.
#
# Usage: scripts/perf_smooth.sh      (about 17 minutes on 2 cores)
# Environment: FRICSIM=path/to/binary (default: build in release).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run LABEL SCENE ARGS...: one row.
run() {
    local label=$1 scene=$2
    shift 2
    if ! /usr/bin/time -v -o "$out/time.log" "$FRICSIM" run "$scene" --quiet --out "$out/run" "$@" \
        >/dev/null 2>"$out/err.log"; then
        echo "| $label | failed: $(tail -1 "$out/err.log") | | | | | | | | |"
        return
    fi
    local rss spf
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.log")
    spf=$(grep -o 'frame_rate: [0-9.e-]*' "$out/run/scene.effective.ron" | head -1 | awk '{ print $2 }')
    awk -F, -v label="$label" -v kb="$rss" -v fr="$spf" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; c = $col["active_contacts"]; cs += c; if (c > cmax) cmax = c
          ipm += $col["newton_iters"]; pred += $col["assembly_s"] + $col["linear_solve_s"]
          fric += $col["projection_s"]; kt += $col["solver_iterations"]; wall += $col["wall_s"]
          if ($col["passes_per_projection"] > 0) { ik += $col["passes_per_projection"]; nik++ }
          failed += 1 - $col["converged"]; t = $col["time"] }
        END { printf "| %s | %.0f / %d | %.1f | %.4f | %.4f | %.2f | %.1f | %.4f | %.3f | %d | %.0f |\n",
              label, cs / n, cmax, ipm / n, pred / n, fric / n, kt / n, (nik ? ik / nik : 0), wall / n,
              wall / (t * fr), failed, kb / 1024 }
    ' "$out/run/stats.csv"
}

# table2 LABEL MU SCENE ARGS...: one row of 000 Table 2's shape.
table2() {
    local label=$1 mu=$2 scene=$3
    shift 3
    local info elems verts herr
    info=$("$FRICSIM" check "$scene" "$@")
    elems=$(echo "$info" | awk '/totals:/ { for (i = 1; i <= NF; i++) if ($i ~ /^tets/) t = $(i - 1) }
        /^  cloth / { for (i = 1; i <= NF; i++) if ($i ~ /^triangles/) c += $(i - 1) }
        END { print t + c }')
    verts=$(echo "$info" | awk '/totals:/ { print $2 }')
    herr=$(echo "$info" | awk '/h_err/ { if ($NF > h) h = $NF } END { printf "%.1f%%", 100 * h }')
    if ! /usr/bin/time -v -o "$out/time.log" "$FRICSIM" run "$scene" --quiet --out "$out/run" "$@" \
        >/dev/null 2>"$out/err.log"; then
        echo "| $label | failed: $(tail -1 "$out/err.log") |"
        return
    fi
    awk -F, -v label="$label" -v mu="$mu" -v el="$elems" -v ve="$verts" -v herr="$herr" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; c = $col["active_contacts"]; if (c > cmax) cmax = c
          k = $col["contact_constraints"]; if (k > kcons) kcons = k
          k = $col["solver_iterations"]; ks += k; if (k > kmax) kmax = k
          p = $col["passes_per_projection"]; if (p > 0) { ps += p; np++ } if (p > pmax) pmax = p
          wall += $col["wall_s"]; t = $col["time"] }
        END { printf "| %s | %d | %d | %g | %d | %s | %s | %d / %d | %d / %.2f | %.0f / %.1f | %.1f s | %.3f |\n",
              label, el, ve, t / n, n, herr, mu, kcons, cmax, kmax, ks / n, pmax, (np ? ps / np : 0), wall, wall / n }
    ' "$out/run/stats.csv"
}

echo "| example | elems | verts | Δt (s) | steps | h_err | μ | n: constraints / with impulse | k_t max / avg | i_k max / avg | time | s/step |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for mu in 0.01 0.5 1.0; do
    table2 "ball spin" "$mu" scenes/ball_spin.ron --set "friction.pairs[0].mu=$mu"
done
table2 "stick-slip chatter (stool)" 0.2 scenes/stool.ron
table2 "ball on a trampoline" 0.2 scenes/trampoline.ron
# 000's sizes (its Table 2: 9K/2K, 11K/3K, 8K/2K elements/vertices). The ball's field reaches
# 2.2 cm so that about 860 of its vertices are constraints, as 000's 867 (its radius is not
# given); the stool's legs are 6 cm thick (scripts/stool_mesh.py --refine 2 --legs 2) and it runs
# 0.5 s of the 2 s; the trampoline's sheet is 40 x 40.
paper=(--set 'bodies[0].mesh.resolution=16' --set 'pipeline.field.radius=0.022')
for mu in 0.01 0.5 1.0; do
    table2 "ball spin, 000's size" "$mu" scenes/ball_spin.ron "${paper[@]}" --set "friction.pairs[0].mu=$mu"
done
table2 "stick-slip chatter, 000's size" 0.2 scenes/stool.ron --set 'bodies[0].mesh.path="data/stool_paper.vtk"' \
    --set duration=0.5
table2 "ball on a trampoline, 000's size" 0.2 scenes/trampoline.ron --set 'bodies[0].mesh.resolution=12' \
    --set 'bodies[1].mesh.cells=(40, 40)'
# 000's 548 constraints: a 12 cm reach and a 60 x 60 sheet put 540 sheet vertices in the ball's
# field (8976 elements as 000's 8K, but 4325 vertices against its 2K).
table2 "ball on a trampoline, 000's constraint count" 0.2 scenes/trampoline.ron \
    --set 'bodies[0].mesh.resolution=8' --set 'bodies[1].mesh.cells=(60, 60)' --set 'pipeline.field.radius=0.12'

echo

echo "| run | n mean / max | IPM it./step | predictor s/step | friction s/step | k_t | i_k | s/step | s/frame | failed steps | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
run "ramp block, 384 tets, mu 0.177" scenes/validation/smooth_ramp10.ron
run "ramp block, 3072 tets, mu 0.177" scenes/validation/smooth_ramp10.ron --set 'bodies[0].mesh.cells=(8, 8, 8)'
run "trampoline, 16x16 sheet, 912-tet ball" scenes/trampoline.ron
run "trampoline, 32x32 sheet, 912-tet ball" scenes/trampoline.ron --set 'bodies[1].mesh.cells=(32, 32)'
