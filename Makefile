# The front door. `make test` and `make bench` do all the set-up themselves on a fresh
# clone: a virtual environment in .venv with the pinned versions of requirements/pinned.txt.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PROFILE ?= default
EXTRAS ?= peers,dev

.PHONY: setup test quick bench validate threshold clean

setup: $(STAMP)

# Reinstall whenever the declared or the pinned dependencies change.
$(STAMP): pyproject.toml requirements/pinned.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c requirements/pinned.txt -e '.[$(EXTRAS)]'
	touch $@

test: setup  ## the test suite
	$(PY) -m pytest

quick: setup  ## every asv benchmark once on small sizes, nothing saved; fails on any failure
	$(PY) -m harness quick

bench: setup  ## the benchmark sweep (PROFILE=default|full), saved to results/
	$(PY) -m harness bench --profile $(PROFILE)

validate: setup  ## every backend against the reference, as a table
	$(PY) -m harness validate

threshold: setup  ## measure the threaded kernel's serial/parallel crossover
	$(PY) -m harness threshold

clean:
	rm -rf $(VENV) results/html .asv
