"""The fricsim binary for the Python scripts: FRICSIM if set, else the release build (built
here first)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fricsim_binary():
    if os.environ.get("FRICSIM"):
        return os.environ["FRICSIM"]
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "fricsim")
