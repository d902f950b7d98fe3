"""The example plugin under examples/plugin, pip-installed for tests that need a real
installed distribution (entry points and all), not one faked in the test."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plugin"


def install(target):
    """pip-install the example plugin into the directory ``target``; returns it."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(target), str(EXAMPLE)],
                   check=True, capture_output=True)
    return target
