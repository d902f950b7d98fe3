# The front door. `make test` and `make bench` do all the set-up themselves on a fresh
# clone: a virtual environment in .venv with the pinned versions of requirements/pinned.txt.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
TOOLS  := .venv-tools
TOOLS_STAMP := $(TOOLS)/.installed-stamp
PROFILE ?= default
EXTRAS ?= peers,circuits,mpi,service,dev

.PHONY: setup tools aer-mpi test test-slow lint quick bench bench-fusion report publish preview validate threshold tune gate calibrate serve scale clean

setup: $(STAMP)

# Reinstall whenever the declared or the pinned dependencies change.
$(STAMP): pyproject.toml requirements/pinned.txt requirements/projectq.sh requirements/pyquest.sh requirements/pyquest_mpi.sh
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c requirements/pinned.txt -e '.[$(EXTRAS)]'
	sh requirements/projectq.sh $(PY) || echo "setup: ProjectQ's C++ simulator did not build; the projectq peer is skipped"
	sh requirements/pyquest.sh $(PY) || echo "setup: pyquest-develop (QuEST) did not build; the quest peer is skipped"
	sh requirements/pyquest_mpi.sh $(PY) || echo "setup: QuEST's distributed build did not build; the quest-mpi peer is skipped"
	touch $@

# The test tools that cannot share the project's environment (requirements/schemathesis.txt
# says why), in one of their own.
tools: $(TOOLS_STAMP)

$(TOOLS_STAMP): requirements/schemathesis.txt
	test -x $(TOOLS)/bin/python || $(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet -r requirements/schemathesis.txt
	touch $@

aer-mpi: setup  ## qiskit-aer's MPI build from its sdist, the peer qiskit-aer-mpi (about 4 minutes; docs/distributed.md)
	sh requirements/qiskit_aer_mpi.sh $(PY)

# worksteal: a worker left idle takes queued tests from the other, so one long test
# scheduled last (a peer's first compile, 30-80 s on a fresh clone) does not end the run alone
test: setup tools  ## the test suite on every core, the slow tests aside
	$(PY) -m pytest -n auto --dist worksteal --durations=15

test-slow: setup tools  ## the slow tests (marker slow): what faster ones check, at length
	$(PY) -m pytest -n auto --dist worksteal -m slow --durations=15

lint: setup  ## ruff and vulture (code nothing calls), configured in pyproject.toml
	$(PY) -m ruff check .
	$(PY) -m vulture

quick: setup  ## every asv benchmark once on small sizes, nothing saved; fails on any failure
	$(PY) -m harness quick

bench: setup  ## the benchmark sweep (PROFILE=default|full), saved to results/; tunes first if this machine is not
	$(PY) -m harness tune --if-missing
	$(PY) -m harness bench --profile $(PROFILE)
	$(MAKE) --no-print-directory report

bench-fusion: setup  ## the fusion suite alone: every setting at n = 20, 22, 24 (profile fusion)
	$(PY) -m harness tune --if-missing
	$(PY) -m harness bench --profile fusion --bench statevector_fusion
	$(MAKE) --no-print-directory report

# The dashboard is published first so that the report can screenshot it too.
report: setup  ## figures, tables, index.html and screenshots from the latest results, in reports/out/
	$(PY) -m harness.dashboard publish || echo "report: no dashboard published; its screenshot is skipped"
	$(PY) -m reports

validate: setup  ## every backend against the reference, as a table
	$(PY) -m harness validate

tune: setup  ## measure this machine's constants (FMA peak, bandwidths, fused gate costs, stage size, crossover) and cache them
	$(PY) -m harness tune

threshold: setup  ## measure the threaded kernel's serial/parallel crossover
	$(PY) -m harness threshold

publish: setup  ## the asv dashboard in .asv/html, offline: CDN files replaced by vendored pins
	$(PY) -m harness.dashboard publish

preview: publish  ## serve the dashboard on http://127.0.0.1:8080 only (PORT=8080)
	$(PY) -m harness.dashboard preview --port $(or $(PORT),8080)

# The regression gate: BASE's and HEAD's gated benchmarks compared on this machine
# (instruction counts under callgrind, wall time in alternating rounds). Exit 1 on a
# regression, 2 when it cannot run; the report is reports/out/gate.md.
BASE ?= HEAD~1
gate: setup  ## compare BASE (default HEAD~1) with HEAD (or HEAD=REV); fails on a regression
	$(PY) -m harness gate --base $(BASE) $(if $(HEAD),--head $(HEAD))

calibrate: setup  ## 20 A/A gate runs of HEAD: the spreads behind the tolerances (RUNS=20)
	$(PY) -m harness calibrate --runs $(or $(RUNS),20)

# The comparison service over the embedded store (results/results.db), on 127.0.0.1 only;
# DB=URL serves another store, PORT another port (docs/service.md).
serve: setup  ## the comparison service on http://127.0.0.1:8000 (PORT=8000, DB=URL)
	$(PY) -m harness serve --port $(or $(PORT),8000) $(if $(DB),--db $(DB))

scale: setup  ## the service at scale: ingestion, and compare/history/ranking under 8 clients with 10^6 results (docs/service.md)
	$(PY) -m harness.service.scale $(if $(DB),--db $(DB))

clean:
	git worktree prune
	rm -rf $(VENV) $(TOOLS) .venv-build results/html .asv .gate
