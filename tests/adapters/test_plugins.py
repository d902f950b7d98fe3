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
from tests import example_plugin

ROOT = Path(__file__).resolve().parents[2]
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
    example_plugin.install(target)
    _on_path(target)
    yield target
    _off_path(target, ("qsim_bench_example",))


def test_example_plugin_is_discovered(installed):
    report = adapters.available()
    assert report[SIM] == (True, f"example-numpy 0.1.0 (numpy {np.__version__})")
    assert report[AD][0] and adapters.registry()[AD] == "ad"
    assert SIM in adapters.usable("simulator") and AD in adapters.usable("ad")
    assert SIM in backends.names() and AD in ad_backends.names()
    from harness import registry
    assert registry.simulator(SIM).role == "plugin"
    assert registry.simulator(SIM).fusion_label() == "off"


def test_example_plugin_is_validated(installed):
    for n in (3, 9):
        vec = random_state(n, np.random.default_rng(n))
        qcbm = circuits.qcbm(n, np.random.default_rng(0))
        for instructions in ([circuits.toffoli(0, n - 1, 1)], qcbm, circuits.qft(n)):
            validate.validated_program(backends.get(SIM), vec, instructions)
    for problem in PROBLEMS.values():
        if problem.origin != "seeds":  # the evals' Jacobians and nesting: not its contract
            continue
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


SIMULATOR_API = adapters.INTERFACE["simulator"]


def _stubs(names):
    """Module source defining each of ``names`` as a function (the interface, as names)."""
    return "".join(f"\ndef {f}(*args):\n    pass\n" for f in names)


SIM_STUBS = _stubs(SIMULATOR_API)


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
        nocircuit = badplug_nocircuit

        [qsim_ad_bench.ad]
        noprepare = badplug_noprepare
    """, {
        "badplug_raises": "raise RuntimeError('bug in the plugin')",
        "badplug_fine": "NAME, AVAILABLE, REASON = 'fine-sim', True, 'fine 1.0'" + SIM_STUBS,
        "badplug_samename": "NAME, AVAILABLE, REASON = 'qulacs', True, 'fake qulacs'"
                            + SIM_STUBS,
        # a simulator without circuit, an AD engine without prepare: listed, left out
        "badplug_nocircuit": "NAME, AVAILABLE, REASON = 'nocircuit', True, 'nc 1.0'"
                             + _stubs(f for f in SIMULATOR_API if f != "circuit"),
        "badplug_noprepare": "NAME, AVAILABLE, REASON = 'noprepare', True, 'np 1.0'"
                             + _stubs(("gradient", "sync")),
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
        ok, reason = report["nocircuit"]
        assert not ok and reason.startswith("plugin nocircuit lacks circuit (simulator")
        ok, reason = report["noprepare"]
        assert not ok and reason.startswith("plugin noprepare lacks prepare (ad adapters")
        assert "nocircuit" not in backends.names() and "noprepare" not in ad_backends.names()
        # the built-ins are untouched, and listed first
        assert list(report)[:len(adapters.ADAPTERS)] == list(adapters.ADAPTERS)
        qulacs = adapters.load("qulacs_sim")
        assert report["qulacs_sim"] == (qulacs.AVAILABLE, qulacs.REASON)
        names = [m.NAME for m in adapters.modules("simulator")]
        assert "fine-sim" in names and names.count("qulacs") == 1
        assert "noprepare" not in [m.NAME for m in adapters.modules("ad")]
        # load takes a plugin's entry-point name and its NAME; a NAME a built-in has is
        # the built-in's, as discovery has it
        assert adapters.load("fine-sim") is adapters.load("fine")
        assert adapters.load("fine").__name__ == "badplug_fine"
        assert adapters.load("qulacs") is qulacs
        with pytest.raises(adapters.PluginError, match="failed to load"):
            adapters.load("raises")
        with pytest.raises(ValueError, match="unknown adapter 'nope'.*'fine-sim'"):
            adapters.load("nope")
    finally:
        _off_path(tmp_path, ("badplug_raises", "badplug_fine", "badplug_samename",
                             "badplug_nocircuit", "badplug_noprepare"))


RAISING_SIM = """
    import numpy as np
    NAME, AVAILABLE, REASON, PRECISIONS = "raising-sim", True, "raising 1.0", ("complex128",)
    def from_numpy(vec): return np.array(vec)
    def to_numpy(state): return np.array(state)
    def gate(instruction): raise RuntimeError("a bug in the plugin's gate")
    def circuit(instructions, n): raise KeyError("a bug in the plugin's circuit")
    def run(state, program): pass
    def apply(state, *args): raise RuntimeError("a bug")
    def sync(): pass
"""
WRONG_SIM = """
    import numpy as np
    NAME, AVAILABLE, REASON, PRECISIONS = "wrong-sim", True, "wrong 1.0", ("complex128",)
    def from_numpy(vec): return np.array(vec)
    def to_numpy(state): return np.array(state)
    def gate(instruction): return instruction
    def circuit(instructions, n): return instructions
    def run(state, program): state[:] = 0  # a wrong number, no error
    def apply(state, *args): return state
    def sync(): pass
"""
RAISING_AD = """
    NAME, AVAILABLE, REASON = "raising-ad", True, "raising 1.0"
    def gradient(f, *args): raise ZeroDivisionError("a bug in the plugin's gradient")
    def prepare(f, *args): raise ZeroDivisionError("a bug in the plugin's prepare")
    def sync(): pass
"""


def test_validate_turns_a_backends_exception_into_its_cells_failure(tmp_path, monkeypatch,
                                                                    capsys):
    """`python -m harness validate` never ends in a traceback: a plugin that raises is an
    ERROR cell with the exception, a wrong one a WRONG cell, and both count as failures
    (exit status 1); the other backends' cells are filled in as usual."""
    from harness import validate as harness_validate
    list(harness_validate.cases(3))  # imports the suite's GATES before names() is narrowed
    _fake_distribution(tmp_path, "raisingplugins", """
        [qsim_ad_bench.simulators]
        raising = raiseplug_sim
        wrong = raiseplug_wrong

        [qsim_ad_bench.ad]
        raising-ad = raiseplug_ad
    """, {"raiseplug_sim": RAISING_SIM, "raiseplug_wrong": WRONG_SIM,
          "raiseplug_ad": RAISING_AD})
    _on_path(tmp_path)
    try:
        monkeypatch.setattr(backends, "names",
                            lambda *_: ["naive", "raising-sim", "wrong-sim"])
        failed = harness_validate.validate_statevector([3])
        out = capsys.readouterr().out
        cases = len(list(harness_validate.cases(3)))
        # each fails every case in complex128, the one precision it declares
        assert failed == 2 * cases
        assert "ERROR" in out and "WRONG" in out
        assert "raising-sim X 3: RuntimeError: a bug in the plugin's gate" in out
        circuit = next(name for name, _ in harness_validate.cases(3) if ":" in name)
        assert f"raising-sim {circuit} 3: KeyError: \"a bug in the plugin's circuit\"" in out
        rows = [line.split() for line in out.splitlines() if line.startswith("X ")]
        assert rows[0] == ["X", "3", "ok", "ERROR", "WRONG"]
        assert harness_validate.validate_ad(names=["raising-ad"]) > 0
        assert "ZeroDivisionError: a bug in the plugin's prepare" in capsys.readouterr().out
    finally:
        _off_path(tmp_path, ("raiseplug_sim", "raiseplug_wrong", "raiseplug_ad"))


def test_a_plugin_whose_facts_are_not_facts_is_refused_and_stops_nothing(monkeypatch):
    """A plugin declaring a precision or a fusion default that does not parse is listed
    with the reason and left out; every table (the registry) goes on without it."""
    import types

    from harness import registry

    bad = types.ModuleType("bad_facts")
    bad.NAME, bad.AVAILABLE, bad.REASON = "bad-facts", True, "bad 0.1"
    bad.PRECISIONS, bad.FUSION_DEFAULT = ("complex128",), "yes"
    for f in adapters.INTERFACE["simulator"]:
        setattr(bad, f, lambda *args: None)
    monkeypatch.setattr(adapters, "plugins",
                        lambda: {"bad_facts": ("simulator", None)})
    monkeypatch.setattr(adapters, "load",
                        lambda name: bad if name == "bad_facts" else LOAD(name))
    ok, reason = adapters.available()["bad_facts"]
    assert not ok and "declares facts that are not" in reason and "fusion" in reason
    assert "bad-facts" not in registry.simulators()
    assert "qulacs" in registry.simulators()


LOAD = adapters.load
