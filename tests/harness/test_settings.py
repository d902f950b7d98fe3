"""Settings of every timed state-vector result and their hashes: the same settings give
the same hash, a change in any gives another, ``like`` changes only with precision,
threads and fusion, and the settings written beside an asv results file come back."""

import json

from harness import ids, settings
from tests.harness.fake_results import add, new_results


def test_hashes_are_stable_and_follow_every_setting():
    a = settings.of("stride", "complex128", 1)
    assert a == settings.of("stride", "complex128", 1)
    assert len(a["hash"]) == len(a["like"]) == 8
    assert a["fusion"] == "off" and a["precision"] == "complex128" and a["threads"] == 1
    other_precision = settings.of("stride", "complex64", 1)
    other_threads = settings.of("stride", "complex128", 2)
    for b in (other_precision, other_threads):
        assert b["hash"] != a["hash"] and b["like"] != a["like"]
    # another kernel is driven the same way, at the same settings: comparable
    loop = settings.of("loop", "complex128", 1)
    assert loop["hash"] != a["hash"] and loop["like"] == a["like"]
    assert settings.with_hashes({**a, "version": "x"})["hash"] != a["hash"]


def test_adapters_carry_their_version_and_declared_fusion():
    import importlib.metadata
    aer = settings.of("qiskit-aer", "complex128", 1)
    try:
        version = importlib.metadata.version("qiskit-aer")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    assert aer["version"] == f"qiskit-aer {version}"
    assert aer["fusion"] == "on (the tool's rule)" and "Aer" in aer["fusion_detail"]
    # its default (a rule of its own) and an explicit setting differ; so do fused's
    # (the width its planner chooses) and any fixed width
    assert settings.of("qiskit-aer", fusion=5)["hash"] != aer["hash"]
    assert settings.of("fused")["fusion"] == "on (the tool's rule)"
    assert all(settings.of("fused", fusion=k)["hash"] != settings.of("fused")["hash"]
               for k in range(1, 7))
    assert settings.of("fused", fusion=3)["fusion"] == "up to 3 qubits"
    # one gate is one pass: fusion does not apply, so gates compare like for like
    assert settings.of("qiskit-aer", "complex128", 1, what="gate")["like"] == \
        settings.of("stride", "complex128", 1, what="gate")["like"]


def test_the_cache_regime_is_a_setting_of_its_own():
    warm, cold = settings.of("stride"), settings.of("stride", cache="cold")
    assert warm["cache"] == "warm" and cold["cache"] == "cold"
    assert warm["like"] != cold["like"]


def test_for_params_knows_each_suite():
    c64 = settings.for_params(ids.CIRCUIT64_TIME, {"circuit": "lib:qv", "n": 12,
                                                   "backend": "stride"})
    assert c64["precision"] == "complex64"
    threads = settings.for_params("statevector_threads.GateThreads.time_gate",
                                  {"gate": "X", "n": 20, "backend": "threaded", "threads": 2})
    assert threads["threads"] == 2
    assert settings.for_params(ids.AD_GRADIENT, {"case": "x"}) is None
    assert settings.for_params(ids.CIRCUIT_TIME, {"backend": "no-such-backend"}) is None


def test_written_beside_the_results_and_read_back(tmp_path):
    res = new_results(tmp_path)
    add(res, ids.CIRCUIT_TIME, [["'lib:qv'"], ["12"], ["'stride'", "'qulacs'", "'nosuch'"]],
        [1e-3, 2e-3, float("nan")])
    add(res, ids.AD_GRADIENT, [["'x'"], ["'forward'"]], [1e-3])
    res.save(str(tmp_path))
    path = tmp_path / res._filename
    names = {ids.CIRCUIT_TIME: ["circuit", "n", "backend"], ids.AD_GRADIENT: ["case", "backend"]}
    written = settings.write_for_results(path, names)
    assert written == settings.settings_path(path) and written.exists()
    json.loads(written.read_text())  # plain JSON, for other tools too
    table = settings.load(path)
    assert set(table) == {(ids.CIRCUIT_TIME, ("lib:qv", 12, "stride")),
                          (ids.CIRCUIT_TIME, ("lib:qv", 12, "qulacs"))}
    assert table[ids.CIRCUIT_TIME, ("lib:qv", 12, "stride")] == settings.of("stride")
    assert settings.load(tmp_path / "none.json") == {}
