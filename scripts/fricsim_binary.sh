# Sourced by the perf scripts: moves to the repository root and sets FRICSIM to the release
# binary, building it unless FRICSIM is already given.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [[ -z "${FRICSIM:-}" ]]; then
    cargo build --release --quiet
    FRICSIM="${CARGO_TARGET_DIR:-$root/target}/release/fricsim"
fi
