"""The probe measures the revision it is pointed at: with the project installed in
editable mode, setuptools' finder resolves ``kernels`` to the installed checkout whatever
PYTHONPATH says; the probe removes that finder, and the gate refuses any run in which a
project module came from outside the revision's tree. And a case's count is its own:
no other case in the run moves it."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from harness.gate import counts, trees
from harness.gate.command import ROOT
from harness.gate.runner import PROBE, environment, run_probe
from tests.gate.conftest import needs_valgrind
from tests.gate.gitrepo import commit, git

MARKER = "\nGATE_TEST_MARKER = 'the measured tree'\n"


def _probe_module():
    spec = importlib.util.spec_from_file_location("_gate_probe_under_test", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _editable_install():
    """Whether this interpreter has the project installed by setuptools in editable mode."""
    return any(p.name.startswith("__editable__") and "qsim_ad_bench" in p.name
               for d in map(Path, sys.path) if d.is_dir() for p in d.iterdir())


def test_probe_imports_the_tree_it_measures(clone, tmp_path):
    base = git(clone, "rev-parse", "HEAD")
    # a revision with a marker in kernels and without kernels/ad (as an old base lacks
    # a package that the installed checkout has)
    git(clone, "rm", "-r", "-q", "kernels/ad")
    head = commit(clone, "marker, no AD", append={"kernels/__init__.py": MARKER})
    try:
        side = trees.checkout(clone, tmp_path / ".gate", "head", head)
    finally:
        git(clone, "reset", "-q", "--hard", base)
    tree = str(side.tree)
    show = "import kernels, kernels.ad; print(kernels.__file__); print(kernels.ad.__file__)"

    # Without the probe's isolation, PYTHONPATH gives the tree's kernels, but the editable
    # finder fills in what the tree lacks from the installed checkout: a silent mix.
    plain = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True,
                           cwd=tmp_path, env={**environment(side), "PYTHONPATH": tree})
    if _editable_install():
        first, second = plain.stdout.split()
        assert first.startswith(tree + "/")
        assert second == str(ROOT / "kernels" / "ad" / "__init__.py")

    # With it, the tree is all there is.
    isolate = (f"import sys; sys.path.insert(0, {str(PROBE.parent)!r}); import probe; "
               f"probe.isolate({tree!r}); ")
    isolated = subprocess.run([sys.executable, "-c", isolate + "import kernels; "
                               "print(kernels.__file__); print(kernels.GATE_TEST_MARKER)"],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=environment(side), check=True).stdout.split("\n")
    assert isolated[0].startswith(tree + "/") and isolated[1] == "the measured tree"
    missing = subprocess.run([sys.executable, "-c", isolate + show], capture_output=True,
                             text=True, cwd=tmp_path, env=environment(side))
    assert missing.returncode != 0 and "No module named 'kernels.ad'" in missing.stderr

    # The probe reports where every project module came from; the AD case is missing
    # from this revision instead of being measured in the installed checkout.
    result = run_probe("build", side, ["gate/H/stride/n4", "ad/rational/reverse/n1"],
                       tmp_path / "build.json", environment(side))
    modules = result["provenance"]["modules"]
    assert result["provenance"]["stray"] == {}
    assert "kernels.statevector.compiled.stride" in modules
    assert all(f.startswith(tree + "/") for f in modules.values() if f)
    assert result["cases"]["gate/H/stride/n4"]["status"] == "ok"
    assert result["cases"]["ad/rational/reverse/n1"]["status"] == "missing"


def test_provenance_names_modules_from_elsewhere(tmp_path):
    import kernels  # this test process's kernels: the checkout under test, not tmp_path

    report = _probe_module().provenance(tmp_path, ("kernels",))
    assert report["stray"]["kernels"] == kernels.__file__


def test_provenance_names_what_a_case_loads_beyond_the_measured_packages():
    import kernels  # loaded from this checkout, which stands for the revision's tree here

    root = Path(kernels.__file__).parents[1]
    probe = _probe_module()
    # this test process has loaded the harness as well as the kernels, from the same tree
    beyond = probe.provenance(root, ("kernels",))["outside"]
    assert "harness.gate.command" in beyond
    assert not any(name.split(".")[0] == "kernels" for name in beyond)
    assert probe.provenance(root, probe.PACKAGES)["outside"] == {}


#: Appended to the fused package: its import leaves the heap different (a change to code
#: that the AD cases never run).
CHURN = """

_GATE_TEST_CHURN = [bytearray(size) for size in range(100, 40_000, 37)][::3]
"""


@needs_valgrind
@pytest.mark.slow  # two callgrind processes
def test_a_count_does_not_move_with_another_cases_code(clone, tmp_path):
    # Each case is built, warmed up and counted in a child of its own, so the allocator's
    # free lists it is counted with hold nothing of another case. When every case was
    # warmed in one parent, tr(A @ B)'s count moved by 1-2% (in _int_malloc) with a
    # change to the fused kernels' code.
    ids = ["fused/QCBM/k2/n12", "ad/trmul/reverse/n10"]
    before, _ = counts.count_checkout(clone, ids, tmp_path / "gate")
    fused = clone / "kernels" / "statevector" / "fused" / "__init__.py"
    text = fused.read_text()
    fused.write_text(text + CHURN)
    try:
        after, _ = counts.count_checkout(clone, ids, tmp_path / "gate")
    finally:
        fused.write_text(text)
    assert before[ids[1]] > 0
    assert after[ids[1]] == before[ids[1]]
