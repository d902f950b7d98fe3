"""A small dashboard published from fake asv results: a git repository with two commits (asv
publish only plots results of commits on a configured branch), results of one parameterised
benchmark at each, written through asv's Results API, and the benchmarks.json that asv
publish reads, written by asv's Benchmarks class."""

import json
import os
import subprocess

import pytest
from asv import results as asv_results
from asv.benchmarks import Benchmarks
from asv.config import Config

from harness import dashboard
from tests.harness import fake_results

BENCHMARK = "suite.Gate.time_gate"
# a peer that is missing (skipped: NaN) on the first commit for X and on both for H
PARAMS = [["'X'", "'H'"], ["'stride'", "'naive'", "'somepeer'"]]
NAN = float("nan")
# Seconds per commit, in asv's order (the last parameter varies fastest).
VALUES = ([1e-6, 2e-6, NAN, 3e-6, 4e-6, NAN], [1.5e-6, 2.5e-6, 5e-6, 3.5e-6, 4.5e-6, NAN])
# Each value's samples (as `asv run --record-samples` keeps them): their median is the value,
# their minimum FASTEST times it, so the spread drawn is [FASTEST * value, value].
FASTEST = 0.8


def samples(value):
    return None if value != value else [FASTEST * value, value, 1.3 * value]


def _git(repo, *args):
    # An identity of its own, so commits work where git has no user configured.
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def make_project(root):
    """An asv project under ``root`` with results of BENCHMARK at two commits; returns the
    path of its asv.conf.json (html_dir: root/html)."""
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    config = root / "asv.conf.json"
    config.write_text(json.dumps({
        "version": 1, "project": "fake", "repo": str(repo), "branches": ["main"],
        "environment_type": "existing", "benchmark_dir": str(root / "benchmarks"),
        "results_dir": str(root / "results"), "html_dir": str(root / "html")}))
    machine = {"machine": "box", "cpu": "fake cpu", "num_cpu": "2", "os": "Linux",
               "arch": "x86_64", "ram": "1000000"}
    (root / "results" / "box").mkdir(parents=True)
    (root / "results" / "box" / "machine.json").write_text(json.dumps({**machine, "version": 1}))
    for i, values in enumerate(VALUES):
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"commit {i}",
             f"--date=2026-01-0{i + 1}T00:00:00")
        commit = _git(repo, "rev-parse", "HEAD")
        res = asv_results.Results(machine, {}, commit, fake_results.DATE + i * 86_400_000,
                                  "3.11", "existing-py", {})
        fake_results.add(res, BENCHMARK, PARAMS, list(values), [samples(v) for v in values])
        res.save(str(root / "results"))
    conf = Config.load(str(config))
    Benchmarks(conf, [{
        "name": BENCHMARK, "type": "time", "unit": "seconds", "version": "1",
        "params": PARAMS, "param_names": ["gate", "kernel"], "code": "", "timeout": 60,
        "number": 0, "repeat": 0, "rounds": 1, "min_run_count": 2, "sample_time": 0.01,
        "warmup_time": 0.0}]).save()
    return config


@pytest.fixture(scope="session")
def published(tmp_path_factory):
    """The html dir of the fake project's dashboard, published and localized."""
    return dashboard.publish(make_project(tmp_path_factory.mktemp("dashboard")))
