"""Per-machine tuning: a tuned and an untuned run give the same amplitudes, a file that
is not this machine's or not whole is ignored, and results' settings say which tuning
ran."""

import json

import numpy as np
import pytest

from harness import settings as settings_mod
from kernels.statevector import KERNELS, circuits, fused, tuning
from kernels.statevector.fused import planner
from kernels.statevector.states import random_state


@pytest.fixture
def tuned(tmp_path, monkeypatch):
    """A function that writes constants as this machine's tuning (in a folder of the
    test's own) and makes them the ones in force."""
    monkeypatch.setenv(tuning.ENV, str(tmp_path))
    tuning.load.cache_clear()

    def write(constants):
        tuning.save(constants)
        return tuning.path()
    yield write
    tuning.load.cache_clear()


def test_a_tuned_and_an_untuned_run_give_the_same_amplitudes(tuned, rng):
    n = 12
    circuit = circuits.LIBRARY["qcbm"].make(n, rng)
    state = random_state(n, rng)
    untuned = fused.compile(circuit, n)
    assert tuning.describe() == "none"
    # constants that change every choice: the stage size, the gates' prices (a microsecond
    # per amplitude, where the defaults say nanoseconds), the threaded crossover
    tuned({"fused_block_qubits_complex128": 7, "threaded_parallel_threshold": 1,
           **{planner.gate_key(k, "complex128"): 1e-6 for k in range(7)}})
    assert tuning.describe() != "none"
    retuned = fused.compile(circuit, n)
    assert untuned.info["block_qubits"] != 7 and retuned.info["block_qubits"] == 7
    assert untuned.info["planned_seconds"] < 1e-6 * 2**n <= retuned.info["planned_seconds"]
    np.testing.assert_allclose(retuned(state.copy()), untuned(state.copy()), atol=1e-12)
    # the threaded kernel past its tuned crossover: the same amplitudes as stride
    g = circuit[0]
    np.testing.assert_allclose(KERNELS["threaded"](state.copy(), g.matrix, g.locs),
                               KERNELS["stride"](state.copy(), g.matrix, g.locs), atol=1e-12)


def test_settings_say_which_tuning_ran(tuned):
    before = settings_mod.of("fused")
    assert before["tuning"] == "none"
    assert "tuning" not in settings_mod.of("stride")  # it reads none
    tuned({"fused_block_qubits_complex128": 9})
    after = settings_mod.of("fused")
    assert after["tuning"] == tuning.describe() != "none"
    assert after["hash"] != before["hash"]


def test_a_file_for_another_machine_or_broken_is_ignored(tuned):
    path = tuned({"fused_block_qubits_complex128": 9})
    doc = json.loads(path.read_text())
    doc["machine"]["cpu"] = "another CPU"
    path.write_text(json.dumps(doc))
    tuning.load.cache_clear()
    with pytest.warns(UserWarning, match="another machine"):
        assert tuning.value("fused_block_qubits_complex128", 3) == 3
    path.write_text('{"machine": ')  # cut short
    tuning.load.cache_clear()
    with pytest.warns(UserWarning, match="ignoring"):
        assert tuning.describe() == "none"


def test_the_planner_runs_the_plan_it_prices_cheapest(rng):
    n = 14
    circuit = circuits.LIBRARY["qft"].make(n, rng)
    chosen = fused.compile(circuit, n, block=10)
    fixed = [fused.compile(circuit, n, block=10, max_qubits=k) for k in planner.CANDIDATES]
    assert chosen.info["planned_seconds"] == pytest.approx(
        min(p.info["planned_seconds"] for p in fixed))
    assert chosen.info["max_qubits"] in planner.CANDIDATES
