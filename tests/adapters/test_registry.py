import sys
import textwrap

import pytest

import adapters
import adapters.ad
import adapters.simulators
from adapters._guard import guarded_import

SIMULATOR_API = ("gate", "circuit", "from_numpy", "to_numpy", "run", "apply", "sync")
assert SIMULATOR_API == tuple(sorted(adapters.INTERFACE["simulator"], key=SIMULATOR_API.index))


def _stubs(names):
    """Module source defining each of ``names`` as a function (the interface, as names)."""
    return "".join(f"\ndef {f}(*args):\n    pass\n" for f in names)


SIM_STUBS, AD_STUBS = _stubs(SIMULATOR_API), _stubs(("gradient", "prepare", "sync"))
FAKES = {
    # adapter module name -> (kind, source)
    "fake_raises": ("simulator", "raise RuntimeError('bug in the adapter itself')"),
    "fake_missing": ("ad", textwrap.dedent("""
        from adapters._guard import guarded_import
        NAME = "missing"
        tool, AVAILABLE, REASON = guarded_import("no_such_tool_for_tests")""") + AD_STUBS),
    "fake_broken_tool": ("simulator", textwrap.dedent("""
        from adapters._guard import guarded_import
        NAME = "broken"
        tool, AVAILABLE, REASON = guarded_import("broken_tool_for_tests")""") + SIM_STUBS),
    "fake_noflag": ("simulator", "NAME = 'noflag'" + SIM_STUBS),
    "fake_noname": ("simulator", "AVAILABLE, REASON = True, 'anonymous'" + SIM_STUBS),
    "fake_sim": ("simulator", "NAME, AVAILABLE, REASON = 'fake', True, 'fake 1.0'" + SIM_STUBS),
    # parts of the interface missing: listed with what is missing, left out
    "fake_nocircuit": ("simulator", "NAME, AVAILABLE, REASON = 'nocircuit', True, 'x 1.0'"
                       + _stubs(f for f in SIMULATOR_API if f != "circuit")),
    "fake_bare": ("simulator", "NAME, AVAILABLE, REASON = 'bare', True, 'x 1.0'\nrun = 3"),
    "fake_noprepare": ("ad", "NAME, AVAILABLE, REASON = 'noprepare', True, 'x 1.0'"
                       + _stubs(("gradient", "sync"))),
}


@pytest.fixture
def fake_registry(tmp_path, monkeypatch):
    """The real registry plus the FAKES, found in tmp_path as if they were in
    adapters/simulators/ or adapters/ad/; ``broken_tool_for_tests`` is a tool whose import
    fails like a broken install."""
    for name, (_, source) in FAKES.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    (tmp_path / "broken_tool_for_tests.py").write_text(
        "raise OSError('libbroken.so: cannot open shared object file')")
    monkeypatch.syspath_prepend(str(tmp_path))
    for package in (adapters.simulators, adapters.ad):
        monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    registry = {name: kind for name, (kind, _) in FAKES.items()} | adapters.ADAPTERS
    monkeypatch.setattr(adapters, "ADAPTERS", registry)
    yield registry
    for name in [*FAKES, "broken_tool_for_tests"]:
        for package in ("simulators", "ad"):
            sys.modules.pop(f"adapters.{package}.{name}", None)
        sys.modules.pop(name, None)


def test_broken_adapters_are_reported_and_do_not_stop_the_others(fake_registry):
    report = adapters.available()
    assert list(report) == list(fake_registry)
    ok, reason = report["fake_raises"]
    assert not ok and "RuntimeError" in reason and "bug in the adapter itself" in reason
    assert report["fake_missing"] == (False, "no_such_tool_for_tests is not installed")
    ok, reason = report["fake_broken_tool"]
    assert not ok and "OSError" in reason and "libbroken.so" in reason
    assert report["fake_noflag"] == (
        False, "adapters.simulators.fake_noflag does not set AVAILABLE")
    assert report["fake_noname"] == (False, "adapters.simulators.fake_noname does not set NAME")
    assert report["fake_sim"] == (True, "fake 1.0")
    assert report["fake_nocircuit"] == (False, (
        "adapters.simulators.fake_nocircuit lacks circuit (simulator adapters have from_numpy, "
        "to_numpy, gate, circuit, run, apply, sync)"))
    ok, reason = report["fake_bare"]  # run is there, but not a function
    assert not ok and "lacks from_numpy, to_numpy, gate, circuit, run, apply, sync" in reason
    ok, reason = report["fake_noprepare"]
    assert not ok and reason == ("adapters.ad.fake_noprepare lacks prepare (ad adapters have "
                                 "gradient, prepare, sync)")
    qulacs_sim = adapters.load("qulacs_sim")
    assert report["qulacs_sim"] == (qulacs_sim.AVAILABLE, qulacs_sim.REASON)

    sims = adapters.usable("simulator")
    assert "fake_sim" in sims and sims["fake_sim"].REASON == "fake 1.0"
    assert not {"fake_raises", "fake_missing", "fake_broken_tool", "fake_noflag",
                "fake_noname", "fake_nocircuit", "fake_bare"} & set(sims)
    assert ("qulacs_sim" in sims) == report["qulacs_sim"][0]
    names = {m.NAME for kind in ("simulator", "ad") for m in adapters.modules(kind)}
    assert {"fake", "missing", "broken"} <= names  # unavailable ones stay, to say why
    assert not {"nocircuit", "bare", "noprepare"} & names


def test_load(fake_registry):
    assert adapters.load("fake_sim").AVAILABLE
    with pytest.raises(RuntimeError, match="bug in the adapter itself"):
        adapters.load("fake_raises")
    # an unknown name is a ValueError listing the names, though an adapter fails to import
    with pytest.raises(ValueError, match="unknown adapter 'nope'") as info:
        adapters.load("nope")
    assert "'fake_sim'" in str(info.value) and "'fake'" in str(info.value)
    assert "'qulacs_sim'" in str(info.value) and "'qulacs'" in str(info.value)


def test_load_takes_an_adapters_name(fake_registry):
    """A NAME (``fake``, ``broken``: no module name to guess it from) gives its module,
    also that of an adapter whose tool is missing; a module name is not taken for a NAME."""
    assert adapters.load("fake") is adapters.load("fake_sim")
    assert adapters.load("broken") is adapters.load("fake_broken_tool")
    assert adapters.load("missing") is adapters.load("fake_missing")
    assert adapters.load("qulacs") is adapters.load("qulacs_sim")
    with pytest.raises(ValueError, match="unknown adapter 'Fake'"):
        adapters.load("Fake")


@pytest.mark.parametrize("module_name", sorted(adapters.ADAPTERS))
def test_load_by_name_or_module_name_is_one_module(module_name):
    module = adapters.load(module_name)
    assert adapters.load(module.NAME) is module


def test_load_takes_every_name_backends_get_takes():
    """harness.statevector.backends.get takes a simulator's NAME or its module name:
    the registry and adapters.load give the same module for each."""
    from harness import registry
    for module in adapters.modules("simulator"):
        for name in (module.NAME, module.__name__.rpartition(".")[2]):
            assert registry.simulator(name).module is module
            assert adapters.load(name) is module, name


def test_builtin_names_are_unique():
    """What load's NAME lookup (the built-in module the NAME suggests first) relies on."""
    names = [adapters.load(name).NAME for name in adapters.ADAPTERS]
    assert len(set(names)) == len(names)


def test_real_registry():
    report = adapters.available()
    assert list(report) == list(adapters.ADAPTERS)
    for name, (ok, reason) in report.items():
        assert isinstance(ok, bool) and isinstance(reason, str) and reason
        module = adapters.load(name)
        assert callable(module.sync) and isinstance(module.NAME, str)
        if adapters.ADAPTERS[name] == "simulator":
            assert all(callable(getattr(module, f)) for f in SIMULATOR_API)
    assert set(adapters.usable("simulator")) == {
        name for name, (ok, _) in report.items() if ok and adapters.ADAPTERS[name] == "simulator"}


def test_guarded_import():
    module, ok, reason = guarded_import("numpy")
    assert ok and module is sys.modules["numpy"] and reason == f"numpy {module.__version__}"
    assert guarded_import("no_such_tool_for_tests") == (
        None, False, "no_such_tool_for_tests is not installed")
    # an installed package missing a submodule is broken, not absent
    module, ok, reason = guarded_import("numpy", "no_such_submodule")
    assert module is None and not ok and reason.startswith("numpy failed to import")
