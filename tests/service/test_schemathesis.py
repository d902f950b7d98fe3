"""schemathesis (its own environment: make tools) against a running server's OpenAPI
document, every check it has: no server error, every status and every body as the
document says. Twice: with what it generates alone (mostly refused input), and with the
ids, benchmark and machine of a store that holds runs, so that the comparisons
themselves answer the fuzzed rest.

One check is left out: ``positive_data_acceptance`` (a run that fits the schema must be
taken). A run's machine fingerprint is computed from its facts, and a result with status
ok must have measured something; JSON Schema cannot say either, and a run generated to
the schema alone is refused for them, rightly.
"""

import os
import subprocess
from pathlib import Path

import orjson
import pytest

from harness.store import schema, tokens
from tests.databases import skip_or_fail
from tests.service.live import ROOT, add

FIXTURES = Path(__file__).with_name("fixtures")
TOOL = Path(os.environ.get("QSIM_AD_BENCH_SCHEMATHESIS") or
            ROOT / ".venv-tools" / "bin" / "schemathesis")
#: examples per operation and phase (the CI's budget: about a minute in all)
EXAMPLES = 40


@pytest.fixture(params=["sqlite"])
def db_url(request, tmp_path):
    """The API's conformance is the service's, not the database's: one is enough."""
    return f"sqlite:///{tmp_path / 'results.db'}"


def _fuzz(server, token, tmp_path, config=""):
    if not TOOL.exists():
        skip_or_fail("schemathesis", f"no schemathesis at {TOOL} (make tools)")
    config_file = tmp_path / "schemathesis.toml"
    config_file.write_text(config)
    done = subprocess.run(
        [str(TOOL), "--config-file", str(config_file), "run",
         f"{server.url}/api/v1/openapi.json", "-H", f"Authorization: Bearer {token}",
         "--checks", "all", "--exclude-checks", "positive_data_acceptance",
         "-n", str(EXAMPLES), "--seed", "20261201", "--no-color",
         "--generation-database", "none"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    return done.returncode, done.stdout + done.stderr


def test_what_it_generates_alone_meets_the_document(store, server, tmp_path):
    token = tokens.create(store, "admin")
    code, out = _fuzz(server, token, tmp_path)
    assert code == 0, out[-6000:]
    assert " passed" in out, out[-3000:]
    assert "Traceback" not in server.output()


def test_the_comparisons_fuzzed_over_real_runs_meet_the_document(store, server, tmp_path):
    docs = [orjson.loads(line) for line in
            (FIXTURES / "qcbm12_20_runs.jsonl").read_bytes().splitlines()]
    ids = [add(store, doc) for doc in docs]
    run = schema.Run.model_validate(docs[0])
    key, machine = run.results[0].benchmark.key, run.machine.id
    token = tokens.create(store, "admin")
    config = f'''
[[operations]]
include-name = "GET /api/v1/compare"
parameters = {{ base = "{ids[0]}", head = "{ids[1]}" }}

[[operations]]
include-name = "GET /api/v1/history"
parameters = {{ benchmark = {orjson.dumps(key).decode()}, machine = "{machine}" }}

[[operations]]
include-name = "GET /api/v1/ranking"
parameters = {{ machine = "{machine}" }}

[[operations]]
include-name = "GET /api/v1/evals"
parameters = {{ machine = "{machine}" }}

[[operations]]
include-name = "GET /api/v1/runs/{{run_id}}"
parameters = {{ run_id = "{ids[2]}" }}
'''
    code, out = _fuzz(server, token, tmp_path, config)
    assert code == 0, out[-6000:]
    assert "Traceback" not in server.output()

