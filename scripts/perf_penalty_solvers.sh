#!/usr/bin/env bash
# The shape of 001 Tables I-II on this machine: seconds per step, Newton iterations per step and
# peak memory of the penalty pipeline's three linear solvers (Gmres, the assembled Newton that `Auto`
# takes on stiff bodies and with a volume penalty; Lu = 001's "Direct"; Iterative = 001's
# matrix-free "Iterative", which `Auto` takes on the ramp blocks) at three resolutions of
# - the hollow-ball squish (scenes/ball_squish.ron with a 1 cm wall and the volume penalty on the
#   cavity, E = 100 kPa, kv = 1/atm and 0.01/atm: Table II (a) and (b)), and
# - the ramp block (scenes/bench/ramp_6k.ron at 6, 13 and 20 cells across).
# Prints one Markdown table; every row is one `fricsim run` under /usr/bin/time -v.
#
# Usage: scripts/perf_penalty_solvers.sh          (about 10 minutes on 2 cores)
# Environment: FRICSIM=path/to/binary (default: build in release); STEPS=steps per run (default 20).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
steps="${STEPS:-20}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run LABEL SCENE DT ARGS...: one row.
run() {
    local label=$1 scene=$2 dt=$3
    shift 3
    local duration
    duration=$(awk -v n="$steps" -v dt="$dt" 'BEGIN { printf "%.10g", n * dt }')
    if ! /usr/bin/time -v -o "$out/time.log" "$FRICSIM" run "$scene" --quiet --out "$out/run" \
        --set "duration=$duration" --set "frame_rate=$(awk -v dt="$dt" 'BEGIN { printf "%.10g", 1 / dt }')" \
        --set 'pipeline.on_failure=Continue' "$@" >/dev/null 2>"$out/err.log"; then
        echo "| $label | failed: $(tail -1 "$out/err.log") | | | |"
        return
    fi
    local rss
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.log")
    awk -F, -v label="$label" -v kb="$rss" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; wall += $col["wall_s"]; it += $col["newton_iters"]; lin += $col["linear_iters"]
          if ($col["converged"] != "1") bad++ }
        END { printf "| %s | %.4f | %.1f | %.0f | %.1f | %d |\n", label, wall / n, it / n, lin / n, kb / 1024, bad }
    ' "$out/run/stats.csv"
}

echo "load before: $(uptime)"
echo
echo "| scene, solver | s/step | Newton it./step | linear it./step | peak RSS (MB) | failed steps |"
echo "|---|---|---|---|---|---|"
for res in 8 12 16; do
    tets=$(awk -v n="$res" 'BEGIN { l = int(n / 2 * 0.2 + 0.5); if (l < 1) l = 1; m = n - 2 * l; print 6 * (n^3 - m^3) }')
    for kv in 1.0 0.01; do
        for solver in Gmres Lu Iterative; do
            run "hollow ball $tets tets, kv $kv, $solver" scenes/ball_squish.ron 0.01 \
                --set "bodies[0].mesh=Ball(radius: 0.05, resolution: $res, inner_radius: 0.04)" \
                --set 'bodies[0].volume.region=Cavity' \
                --set "bodies[0].volume.compressibility_per_atm=$kv" \
                --set "pipeline.newton.linear_solver=$solver"
        done
    done
done
for cells in 6 13 20; do
    for solver in Gmres Lu Iterative; do
        run "ramp block $((6 * cells * cells * cells)) tets, $solver" scenes/bench/ramp_6k.ron 0.01 \
            --set "bodies[0].mesh.cells=($cells, $cells, $cells)" \
            --set "pipeline.newton.linear_solver=$solver"
    done
done
echo
echo "load after:  $(uptime)"
