#!/usr/bin/env bash
# Performance reference of issue 2: a 1 m elastic box of 6000 tets sliding on a 10 degree ramp
# (scenes/bench/ramp_6k.ron). Runs `fricsim run scenes/bench/ramp_6k.ron --quiet` under
# /usr/bin/time -v and prints mean wall time per step (stats.csv column wall_s), Newton
# iterations per step, peak RSS, and the sliding deceleration from the centroid velocity columns
# against the analytic g (mu cos - sin) = 0.2287 m/s^2 (mu = 0.2, 10 degrees).
#
# Usage: scripts/perf_ramp_6k.sh [extra fricsim run arguments, e.g. --set ...]
# Environment: FRICSIM=path/to/binary (default: build with `cargo build --release` and use
# $CARGO_TARGET_DIR/release/fricsim); OUT=output folder (default: a temporary folder);
# FIT_FROM=start time in s of the deceleration fit (default 0.2: the block starts undeformed, not
# settled, and rocks into its penalty layer during the first ~0.15 s, which changes its speed by
# about 1 %; the fit over all steps is printed too).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/fricsim_binary.sh"
out="${OUT:-$(mktemp -d)}"
timelog="$out/time.log"
mkdir -p "$out"

echo "load before: $(uptime)"
/usr/bin/time -v -o "$timelog" "$FRICSIM" run scenes/bench/ramp_6k.ron --quiet --out "$out" "$@"
echo "load after:  $(uptime)"

# Reference (issue 2): softy without MKL (BiCGSTAB), same scene, this machine.
ref_s=0.31
ref_mb=154
theta_deg=10
mu=0.2
g=9.81
fit_from="${FIT_FROM:-0.2}"

awk -F, -v ref_s="$ref_s" -v theta_deg="$theta_deg" -v mu="$mu" -v g="$g" -v fit_from="$fit_from" '
    NR == 1 {
        for (i = 1; i <= NF; i++) col[$i] = i
        for (name in col) if (name ~ /\.vx$/) body = substr(name, 1, length(name) - 3)
        if (!("wall_s" in col) || !("newton_iters" in col) || body == "") {
            print "stats.csv lacks wall_s, newton_iters or <body>.vx columns" > "/dev/stderr"; exit 1
        }
        vx = col[body ".vx"]; vz = col[body ".vz"]
        th = theta_deg * atan2(1, 1) / 45
        # Downhill direction of the ramp (rotated -10 degrees about y): (-cos, 0, -sin).
        dx = -cos(th); dz = -sin(th)
        next
    }
    {
        n++
        wall += $col["wall_s"]; iters += $col["newton_iters"]
        if ($col["converged"] != "true" && $col["converged"] != "1") failed++
        t = $col["time"]; s = $vx * dx + $vz * dz   # centroid speed along the slope
        # Least-squares slopes of s(t) while still sliding: from fit_from on, and over all steps.
        if (s > 0.05 && t >= fit_from - 1e-9) { m++; st += t; ss += s; stt += t * t; sts += t * s }
        if (s > 0.05) { ma++; sta += t; ssa += s; stta += t * t; stsa += t * s }
        if (n == 1) { s_first = s; t_first = t }
        s_last = s; t_last = t
    }
    END {
        if (n == 0) { print "stats.csv has no steps" > "/dev/stderr"; exit 1 }
        mean = wall / n
        if (m < 2) { print "fewer than 2 sliding steps after FIT_FROM" > "/dev/stderr"; exit 1 }
        fit = -(m * sts - st * ss) / (m * stt - st * st)
        fit_all = -(ma * stsa - sta * ssa) / (ma * stta - sta * sta)
        analytic = g * (mu * cos(th) - sin(th))
        printf "steps:                 %d (%d not converged)\n", n, failed
        printf "mean wall per step:    %.4f s  (softy reference %.2f s: speed-up %.2fx)\n", mean, ref_s, ref_s / mean
        printf "Newton iters per step: %.2f (total %d)\n", iters / n, iters
        printf "deceleration (fit t >= %g s): %.4f m/s^2 vs analytic g (mu cos - sin) = %.4f (error %+.2f %%)\n", fit_from, fit, analytic, 100 * (fit / analytic - 1)
        printf "deceleration (fit all steps): %.4f m/s^2 (error %+.2f %%)\n", fit_all, 100 * (fit_all / analytic - 1)
        printf "deceleration (end points):    %.4f m/s^2 (speed %.4f -> %.4f m/s over %.2f s)\n", -(s_last - s_first) / (t_last - t_first), s_first, s_last, t_last - t_first
    }
' "$out/stats.csv"

rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timelog")
elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$timelog")
awk -v kb="$rss_kb" -v ref="$ref_mb" 'BEGIN { printf "peak RSS:              %.1f MB (softy reference %d MB)\n", kb / 1024, ref }'
echo "process wall time:     $elapsed (includes scene build and output)"
echo "output:                $out"
