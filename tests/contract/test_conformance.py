"""The input contract on every backend: every probe of tests/contract/probes.py on every
kernel of KERNELS, on ``prepare``, and on every simulator adapter and plugin (the example
plugin installed for the run), through each path, in child processes (runner.py) so that
a crash is a failure naming its probe. 0 violations is the target; a deliberately broken
plugin shows that the suite finds them (crashes included)."""

import os
import textwrap

import pytest

from tests import example_plugin as example
from tests.contract import runner

ROOT = runner.ROOT
EXAMPLE_SIM = "example-numpy"
GROUPS = [*runner.groups(), *([EXAMPLE_SIM] if EXAMPLE_SIM not in runner.groups() else [])]
BACKENDS = [(g, b) for g in GROUPS for b in
            (runner.kernel_backends() if g == runner.KERNEL_GROUP else [g])]


def _env(*paths):
    return dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, paths), str(ROOT)]))


@pytest.fixture(scope="module")
def example_plugin(tmp_path_factory):
    """The example plugin pip-installed into a directory the children get on their path."""
    target = tmp_path_factory.mktemp("plugin")
    example.install(target)
    return target


@pytest.fixture(scope="module")
def results(tmp_path_factory, example_plugin):
    """group -> its results, each group run once, when first asked for."""
    workdir = tmp_path_factory.mktemp("contract")
    cache = {}

    def get(group):
        if group not in cache:
            cache[group] = runner.collect(group, workdir, env=_env(example_plugin))
        return cache[group]
    return get


def _violations(records):
    return [f"{r['path']} | {r['probe']}: {r['detail']}" for r in records
            if r["status"] == "violation"]


@pytest.mark.parametrize("group, backend", BACKENDS, ids=[b for _, b in BACKENDS])
def test_every_probe_passes(results, group, backend):
    records = [r for r in results(group) if r["backend"] in (backend, group)]
    process = [r for r in records if r["probe"] in ("(process)", "(load)")]
    assert not process, _violations(process)
    mine = [r for r in records if r["backend"] == backend]
    skipped = [r["detail"] for r in mine if r["path"] == "*"]
    if skipped:
        pytest.skip(skipped[0])
    violations = _violations(mine)
    assert not violations, f"{len(violations)} violation(s):\n" + "\n".join(violations)
    # every planned probe ran (a probe the child never reached would pass silently)
    ran = {(r["probe"], r["path"]) for r in mine}
    planned = {(name, path) for name, path, _ in runner.plan(runner.kind_of(backend))}
    assert ran == planned, f"missing {sorted(planned - ran)}, unplanned {sorted(ran - planned)}"


# --- the suite finds violations ----------------------------------------------------------

BROKEN = """
    # A simulator plugin that breaks the contract on purpose: no checks at all, the
    # state written before anything can fail, integer matrices doubled (a wrong number
    # without an error), and a crash (a NULL read) for qubit 7.
    import ctypes
    import numpy as np
    from kernels.statevector.reference.naive import dense_operator

    NAME, AVAILABLE, REASON, PRECISIONS = "broken-sim", True, "broken 0.1", ("complex128",)

    def sync():
        pass

    def from_numpy(vec):
        return np.array(vec)

    def to_numpy(state):
        return np.array(state)

    def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
        locs, ctrl_locs = list(np.atleast_1d(locs)), list(np.atleast_1d(ctrl_locs))
        if 7 in locs:
            ctypes.string_at(0)
        matrix = np.asarray(matrix)
        if matrix.dtype.kind == "i":
            matrix = 2 * matrix
        before = state.copy()
        state[...] = 0
        n = state.shape[0].bit_length() - 1
        vals = list(ctrl_vals or [1] * len(ctrl_locs))
        state[:] = dense_operator(n, matrix, locs, ctrl_locs, vals) @ before
        return state

    def gate(instruction):
        return [instruction]

    def circuit(instructions, n):
        return list(instructions)

    def run(state, program):
        for i in program:
            apply(state, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals)
        return state
"""


def test_the_suite_finds_violations(tmp_path):
    """A broken plugin, discovered through its entry point like any other, fails the
    suite: a crash named by its probe, a tool's own exception types, a changed state, a
    wrong number."""
    info = tmp_path / "brokensim-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokensim\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[qsim_ad_bench.simulators]\nbroken = brokensim_adapter\n")
    (tmp_path / "brokensim_adapter.py").write_text(textwrap.dedent(BROKEN))
    records = runner.collect("broken", tmp_path, env=_env(tmp_path))
    found = {(r["path"], r["probe"]): r["detail"] for r in records
             if r["status"] == "violation"}
    assert "crashed the process" in found["gate", "qubit far out of range"]
    assert "crashed the process" in found["apply", "qubit far out of range"]
    assert found["apply", "integer matrix"].startswith("wrong result")
    assert found["gate", "qubit out of range"] == "no error; the state changed"
    assert "_UFuncNoLoopError" in found["apply", "non-numeric matrix"]
    assert "TypeError" in found["circuit", "object matrix of non-numbers"]
    assert "the state changed" in found["circuit", "object matrix of non-numbers"]
    assert "should name 'matrix'" in found["gate", "matrix of the wrong shape"]
    assert "AttributeError" in found["run-program", "run of something not a program"]
    # the child went on after each crash: every other probe has its result
    ran = [(r["probe"], r["path"]) for r in records if r["backend"] == "broken"]
    assert sorted(ran) == sorted((name, path) for name, path, _ in runner.plan("adapter"))
    assert len(found) > 50


def test_the_table_lists_every_backend_and_probe():
    records = [dict(backend="b1", probe="p", path="apply", status="pass", detail=None),
               dict(backend="b1", probe="p", path="gate", status="violation", detail="x"),
               dict(backend="b2", probe="*", path="*", status="skip", detail="no tool")]
    text = runner.table(records)
    assert "| p | FAIL gate | skip |" in text and "b2: skipped (no tool)" in text
    assert "b1 gate p: x" in text


def test_probe_names_are_unique():
    for kind in ("kernel", "prepare", "adapter"):
        keys = [(name, path) for name, path, _ in runner.plan(kind)]
        assert len(keys) == len(set(keys)), kind
