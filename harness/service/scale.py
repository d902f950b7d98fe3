"""The service at scale, measured (``make scale``; docs/service.md): a store filled with a
million results, then the server, in its own process, asked for comparisons, histories
and rankings by eight clients at once.

    python -m harness.service.scale [--db URL] [--results 1000000] [--per-run 1000]
                                    [--clients 8] [--requests 400] [--seconds 120]
                                    [--json PATH]

1. Ingestion: runs of ``--per-run`` results (``--per-run / 10`` benchmarks on ten
   backends, on four machines, four runs a day), each checked against the schema and
   stored as ``harness record`` and the service store them (harness.store.write), by
   ``--writers`` processes at once (one per core: each checks its runs while another
   holds the write lock): results per second over the whole fill; and over HTTP
   (``POST /api/v1/runs``, token and all, one client) for a sample of them.
2. Latency: ``--clients`` threads, each asking in turn for a comparison of two runs of one
   machine, a benchmark's history on one backend, and a benchmark's ranking, until
   ``--requests`` of each kind have been answered or ``--seconds`` have passed; each
   kind's median, 95th and 99th percentile and slowest, on loopback.
3. First render: each page in headless Chromium (where it is installed), from the request
   to the page's plots drawn (``window.qsad.ready``).

The store is a new SQLite file in a temporary folder unless ``--db`` names another
(which must be empty: the numbers are of this fill). Nothing here is a test: the machine
is shared, and the numbers are for reading, side by side with the targets the docs
state.
"""

import argparse
import contextlib
import datetime
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from harness import browser
from harness.store import database, read, schema, tokens, write

ROOT = Path(__file__).resolve().parents[2]
#: ten made-up backends (the names of none that is registered: their times are made up)
BACKENDS = tuple(f"sim{k}" for k in range(10))
MACHINES = 4
KINDS = ("compare", "history", "ranking")


def _machine(i):
    facts = {"cpu": f"Scale CPU {i}", "isa": "avx2", "cores": 8 << i,
             "caches": {"L1": 48 << 10, "L2": 2 << 20, "L3": 32 << 20 << i},
             "memory_bytes": 32 << 30, "gpu": None, "arch": "x86_64", "os": "Linux"}
    return {"name": f"scale-{i}", "fingerprint": schema.fingerprint(facts), **facts}


def run_doc(index, per_run, rng):
    """The ``index``-th run of the fill: its machine, commit and day from its index, its
    times a backend's scale with a few per cent of noise."""
    machine = index % MACHINES
    day = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        hours=6 * index)
    results = []
    for b in range(per_run // len(BACKENDS)):
        bench = {"suite": "scale", "case": f"circuit{b % 50}",
                 "params": {"n": 10 + b // 50, "precision": "complex128"}}
        for k, backend in enumerate(BACKENDS):
            seconds = 1e-3 * (1 + b % 7) * (1 + 0.3 * k) * rng.uniform(1.0, 1.04)
            results.append({"benchmark": bench, "backend": backend, "baseline": k == 4,
                            "role": "peer" if k >= 4 else "kernel",
                            "settings": {"backend": backend, "precision": "complex128",
                                         "threads": 1, "hash": f"{k:08x}"},
                            "settings_hash": f"{k:08x}", "seconds": seconds,
                            "interval": [seconds, seconds * 1.02], "samples": 5})
    return {"machine": _machine(machine), "commit": f"{index // MACHINES:040x}",
            "command": "scale", "started": day.isoformat(), "results": results}


def _write_share(url, runs, per_run, writer, writers):
    """One writer's share of the fill: every ``writers``-th run from ``writer`` on."""
    store = database.Store(url)
    rng = random.Random(writer)
    stored = 0
    for i in range(writer, runs, writers):
        doc = run_doc(i, per_run, rng)
        write.add(store, schema.Run.model_validate(doc))
        stored += len(doc["results"])
    store.close()
    return stored


def fill(store, runs, per_run, writers, say):
    """Store ``runs`` runs from ``writers`` processes at once, each run validated and
    stored as a submission is (each writer checks its runs while another holds the
    store's write lock); (results per second, seconds) over the whole fill."""
    started = time.perf_counter()
    if writers == 1:
        stored = _write_share(store.url, runs, per_run, 0, 1)
    else:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(writers) as pool:
            stored = sum(pool.starmap(_write_share, [(store.url, runs, per_run, w, writers)
                                                     for w in range(writers)]))
    elapsed = time.perf_counter() - started
    say(f"  {stored:,} results stored by {writers} writer(s) in {elapsed:.0f} s")
    if store.dialect == "postgresql":
        # what PostgreSQL's autovacuum does within a minute of a bulk load, done now: a
        # planner without statistics of a million new rows chose a plan that took a
        # history from 50 ms to 540 ms
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.exec_driver_sql("ANALYZE")
    return stored / elapsed, elapsed


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(url, workers=1):
    port = _port()
    process = subprocess.Popen([sys.executable, "-m", "harness", "serve", "--db", url,
                                "--port", str(port), "--workers", str(workers)],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    import httpx  # the service extra's

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: "
                                   f"{process.stderr.read().decode()[-2000:]}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(30)


def http_ingest(base, token, runs, per_run, offset):
    """Results per second through POST /api/v1/runs, one client, ``runs`` new runs."""
    import httpx

    rng = random.Random(2)
    bodies = [schema.canonical(run_doc(offset + i, per_run, rng)) for i in range(runs)]
    with httpx.Client(timeout=300) as http:
        started = time.perf_counter()
        for body in bodies:
            answer = http.post(f"{base}/api/v1/runs", content=body, headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            if answer.status_code != 201:
                raise RuntimeError(f"POST /runs answered {answer.status_code}: {answer.text}")
        elapsed = time.perf_counter() - started
    return runs * (per_run // len(BACKENDS)) * len(BACKENDS) / elapsed


def _asks(store):
    """What the clients ask for: (kind, path) makers over what the store holds."""
    with store.reading() as c:
        listed, _ = read.runs(c, limit=500)
        machines = read.machines(c)
    by_machine = {}
    for r in listed:
        by_machine.setdefault(r["machine"], []).append(r["id"])
    keys = [f'scale/circuit{b % 50} {{"n":{10 + b // 50},"precision":"complex128"}}'
            for b in range(100)]
    ids = [m["id"] for m in machines]

    def compare(rng):
        runs = by_machine[rng.choice(ids)]
        base, head = rng.sample(runs, 2)
        return f"/api/v1/compare?{urlencode({'base': base, 'head': head})}"

    def history(rng):
        return "/api/v1/history?" + urlencode({"benchmark": rng.choice(keys),
                                               "backend": rng.choice(BACKENDS),
                                               "machine": rng.choice(ids)})

    def ranking(rng):
        return "/api/v1/ranking?" + urlencode({"benchmark": rng.choice(keys),
                                               "machine": rng.choice(ids)})

    return {"compare": compare, "history": history, "ranking": ranking}


def load(base, asks, clients, requests, seconds):
    """{kind: [seconds of each answer]} from ``clients`` threads asking in turn."""
    import httpx

    times = {kind: [] for kind in asks}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    failures = []

    def client(number):
        rng = random.Random(number)
        with httpx.Client(base_url=base, timeout=60) as http:
            turn = number
            while time.monotonic() < deadline:
                kind = KINDS[turn % len(KINDS)]
                turn += 1
                with lock:
                    if all(len(times[k]) >= requests for k in KINDS):
                        return
                    if len(times[kind]) >= requests:
                        continue
                path = asks[kind](rng)
                started = time.perf_counter()
                answer = http.get(path)
                took = time.perf_counter() - started
                if answer.status_code != 200:
                    failures.append((path, answer.status_code, answer.text[:200]))
                    continue
                with lock:
                    times[kind].append(took)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times["elapsed"] = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} requests failed, the first: {failures[0]}")
    return times


def percentiles(values):
    ordered = sorted(values)

    def at(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else None
    return {"count": len(ordered), "p50": at(0.50), "p95": at(0.95), "p99": at(0.99),
            "max": ordered[-1] if ordered else None,
            "mean": statistics.fmean(ordered) if ordered else None}


def first_renders(base, asks, say):
    """{page: seconds from the request to the page drawn} in headless Chromium, or {}
    where there is none."""
    rng = random.Random(3)
    pages = {"runs": "/", "machines": "/machines",
             "compare": asks["compare"](rng).replace("/api/v1", ""),
             "history": asks["history"](rng).replace("/api/v1", ""),
             "ranking": asks["ranking"](rng).replace("/api/v1", "")}
    try:
        out = {}
        with browser.session(1280, 900, install=False) as driver:
            for name, path in pages.items():
                driver.get(base + "/api/v1/health")  # a page of another kind between
                started = time.perf_counter()
                driver.get(base + path)
                browser.wait_for(driver, "window.qsad && window.qsad.ready", timeout=60)
                out[name] = time.perf_counter() - started
        return out
    except browser.BrowserUnavailable as exc:
        say(f"first render not measured: {exc}")
        return {}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m harness.service.scale", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", help="an empty store to fill (default: a new SQLite file)")
    p.add_argument("--results", type=int, default=1_000_000)
    p.add_argument("--per-run", type=int, default=1000)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--requests", type=int, default=400, help="answers of each kind")
    p.add_argument("--seconds", type=float, default=120.0, help="at most, of asking")
    p.add_argument("--writers", type=int, default=os.cpu_count() or 1,
                   help="processes filling the store at once (default: one per core)")
    p.add_argument("--http-runs", type=int, default=20, help="runs submitted over HTTP")
    p.add_argument("--workers", type=int, default=1, help="server processes")
    p.add_argument("--filled", action="store_true", help="--db was filled by an earlier "
                   "run of this command: measure it again without filling it")
    p.add_argument("--json", help="write the numbers here too")
    opts = p.parse_args(argv)
    say = lambda text: print(text, flush=True)  # noqa: E731
    folder = None
    if opts.db is None:
        folder = tempfile.mkdtemp(prefix="qsad-scale-")
        opts.db = os.path.join(folder, "results.db")
    store = database.Store(opts.db)
    with store.reading() as c:
        stored = read.runs(c, limit=1)[1]
    if stored and not opts.filled:
        raise SystemExit(f"scale: {store.where} is not empty; give an empty store (or "
                         "--filled, for one this command filled)")
    runs = max(1, opts.results // opts.per_run)
    if opts.filled:
        runs, rate, took = stored, None, None
        say(f"scale: {store.where} holds {runs} runs already")
    else:
        say(f"scale: filling {store.where} with {runs} runs of {opts.per_run} results")
        rate, took = fill(store, runs, opts.per_run, opts.writers, say)
    token = tokens.create(store, "admin", note="scale")
    out = {"store": store.dialect, "results": runs * opts.per_run, "per_run": opts.per_run,
           "ingest_results_per_second": rate, "fill_seconds": took, "writers": opts.writers,
           "clients": opts.clients, "workers": opts.workers}
    with serving(store.url, opts.workers) as base:
        out["http_ingest_results_per_second"] = http_ingest(base, token, opts.http_runs,
                                                            opts.per_run, runs)
        asks = _asks(store)
        times = load(base, asks, opts.clients, opts.requests, opts.seconds)
        elapsed = times.pop("elapsed")
        out["answers_per_second"] = sum(len(v) for v in times.values()) / elapsed
        out["latency"] = {kind: percentiles(v) for kind, v in times.items()}
        out["first_render_seconds"] = first_renders(base, asks, say)
    store.close()
    if rate is not None:
        say(f"\ningested: {rate:,.0f} results/s by {opts.writers} writer(s) ({took:.0f} s "
            f"for {out['results']:,})")
    say(f"ingested over HTTP: {out['http_ingest_results_per_second']:,.0f} results/s")
    say(f"{'':>10} {'answers':>8} {'p50':>9} {'p95':>9} {'p99':>9} {'max':>9}  "
        f"({opts.clients} clients, {opts.workers} server processes, {store.dialect}; "
        f"{out['answers_per_second']:.0f} answers/s)")
    for kind, row in out["latency"].items():
        say(f"{kind:>10} {row['count']:>8} " + " ".join(
            f"{1000 * row[q]:>7.1f}ms" for q in ("p50", "p95", "p99", "max")))
    for page, seconds in out["first_render_seconds"].items():
        say(f"first render of {page}: {1000 * seconds:.0f} ms")
    if opts.json:
        Path(opts.json).write_text(json.dumps(out, indent=1) + "\n")
    if folder:
        say(f"(the store is left in {folder})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
