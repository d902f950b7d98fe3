"""Plugins: the example package under examples/plugin, really installed (pip, into a
temporary directory put on the path), is discovered, validated and benchmarked exactly like
a built-in adapter; a broken or clashing plugin is listed with its reason and stops
nothing."""

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import adapters
from harness.ad import backends as ad_backends
from harness.ad import validate as ad_validate
from harness.statevector import backends, validate
from kernels.ad.problems import PROBLEMS
from kernels.statevector import circuits
from kernels.statevector.states import random_state

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin"
SIM, AD = "example-numpy", "example-complex-step"


def _on_path(directory):
    sys.path.insert(0, str(directory))
    importlib.invalidate_caches()


def _off_path(directory, modules=()):
    sys.path.remove(str(directory))
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The example plugin pip-installed into a fresh directory on sys.path."""
    target = tmp_path_factory.mktemp("plugin")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(target), str(EXAMPLE)],
                   check=True, capture_output=True)
    _on_path(target)
    yield target
    _off_path(target, ("qsim_bench_example",))


def test_example_plugin_is_discovered(installed):
    report = adapters.available()
    assert report[SIM] == (True, f"example-numpy 0.1.0 (numpy {np.__version__})")
    assert report[AD][0] and adapters.registry()[AD] == "ad"
    assert SIM in adapters.simulators() and AD in adapters.ad()
    assert SIM in backends.names() and AD in ad_backends.names()


def test_example_plugin_is_validated(installed):
    for n in (3, 9):
        vec = random_state(n, np.random.default_rng(n))
        qcbm = circuits.qcbm(n, np.random.default_rng(0))
        for instructions in ([circuits.toffoli(0, n - 1, 1)], qcbm, circuits.qft(n)):
            validate.validated_program(backends.get(SIM), vec, instructions)
    for problem in PROBLEMS.values():
        n = problem.sizes[0]
        args = problem.make_args(n, np.random.default_rng(n))
        ad_validate.validated_runner(ad_backends.get(AD), problem, args,
                                     ad_validate.reference(problem, args), what=problem.name)


def test_example_plugin_is_benchmarked(installed):
    """The asv suites, imported afresh with the plugin installed, parametrise over it and
    time it after validating it (as `make bench` does, in its own process)."""
    script = textwrap.dedent(f"""
        from harness.benchmarks import statevector_gates as g, ad_problems as a
        assert {SIM!r} in g.Gate.params[2], g.Gate.params[2]
        bench = g.Gate()
        bench.setup("CNOT", 10, {SIM!r})
        bench.time_gate("CNOT", 10, {SIM!r})
        print("backends", *a.BACKENDS)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(installed), str(ROOT)]),
               QSIM_BENCH_PROFILE="quick")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert AD in out.stdout.split()


def _fake_distribution(directory, name, entry_points, modules):
    """A minimal installed distribution: its dist-info (what entry-point discovery reads)
    and its modules."""
    info = directory / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (directory / f"{module}.py").write_text(textwrap.dedent(source))


def test_broken_and_clashing_plugins_are_listed_and_stop_nothing(tmp_path):
    _fake_distribution(tmp_path, "badplugins", """
        [qsim_ad_bench.simulators]
        raises = badplug_raises
        missing = badplug_nowhere
        qulacs_sim = badplug_fine
        samename = badplug_samename
        fine = badplug_fine
    """, {
        "badplug_raises": "raise RuntimeError('bug in the plugin')",
        "badplug_fine": "NAME, AVAILABLE, REASON = 'fine-sim', True, 'fine 1.0'",
        "badplug_samename": "NAME, AVAILABLE, REASON = 'qulacs', True, 'fake qulacs'",
    })
    _on_path(tmp_path)
    try:
        report = adapters.available()
        ok, reason = report["raises"]
        assert not ok and "plugin 'raises'" in reason and "bug in the plugin" in reason
        ok, reason = report["missing"]
        assert not ok and "ModuleNotFoundError" in reason and "badplug_nowhere" in reason
        ok, reason = report["qulacs_sim (badplugins)"]
        assert not ok and "an adapter of that name exists" in reason
        ok, reason = report["samename"]
        assert not ok and "NAME 'qulacs' is already another adapter's" in reason
        assert report["fine"] == (True, "fine 1.0")
        # the built-ins are untouched, and listed first
        assert list(report)[:len(adapters.ADAPTERS)] == list(adapters.ADAPTERS)
        qulacs = adapters.load("qulacs_sim")
        assert report["qulacs_sim"] == (qulacs.AVAILABLE, qulacs.REASON)
        names = [m.NAME for m in adapters.modules("simulator")]
        assert "fine-sim" in names and names.count("qulacs") == 1
    finally:
        _off_path(tmp_path, ("badplug_raises", "badplug_fine", "badplug_samename"))
