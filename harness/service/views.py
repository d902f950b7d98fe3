"""What each API route and each page shows, as data: one function per view, read in one
snapshot of the store, so that a page shows exactly what its route returns (the pages
embed it; the browser tests compare the two).

Bad input (an unknown run, benchmark or machine, a name that stands for two machines) is
:class:`BadRequest`, which the routes answer with 404 or 422 and a ``detail`` naming it.
"""

from harness.comparisons import history as history_mod
from harness.comparisons import pairs, rankings
from harness.store import queries, read


class BadRequest(Exception):
    """``status`` (404 or 422) and what is wrong, for the answer's ``detail``."""

    def __init__(self, status, detail):
        super().__init__(detail)
        self.status, self.detail = status, detail


def _checked(work):
    try:
        return work()
    except read.NotFound as exc:
        raise BadRequest(404, str(exc)) from None
    except queries.Ambiguous as exc:
        raise BadRequest(422, str(exc)) from None


def runs(store, machine=None, commit=None, limit=50, offset=0):
    def work():
        with store.reading() as c:
            found, total = read.runs(c, machine, commit, limit, offset)
        return {"runs": found, "total": total, "limit": limit, "offset": offset}
    return _checked(work)


def run(store, uid):
    """The run as submitted, its id, and its results ranked per benchmark."""
    def work():
        with store.reading() as c:
            _, doc = read.document(c, uid)
            info = queries.run_info(c, uid)
            rows = queries.results_of_run(c, info["id"], queries.RANKED)
        by_benchmark = {}
        for row in rows:
            by_benchmark.setdefault(row["key"], []).append(row)
        ranked = [{"benchmark": key, **rankings.rank(group)}
                  for key, group in by_benchmark.items()]
        doc["started"] = info["started"]
        return {"id": uid, "run": doc, "machine": info["machine"], "benchmarks": ranked}
    return _checked(work)


def machines(store):
    with store.reading() as c:
        return {"machines": read.machines(c)}


def compare(store, base, head):
    def work():
        with store.reading() as c:
            b, h = queries.run_info(c, base), queries.run_info(c, head)
            found = pairs.compare(queries.results_of_run(c, b["id"]),
                                  queries.results_of_run(c, h["id"]),
                                  same_machine=b["fingerprint"] == h["fingerprint"])
        return {"base": _public(b), "head": _public(h),
                "machines_differ": b["fingerprint"] != h["fingerprint"], **found}
    return _checked(work)


def _public(info):
    return {k: v for k, v in info.items() if k != "id"}


def history(store, benchmark, backend, machine, measure=None):
    def work():
        with store.reading() as c:
            m = queries.one_machine(c, machine)
            rows = queries.series(c, benchmark, backend, m.id)
        found = history_mod.history(rows, measure)
        return {"benchmark": benchmark, "backend": backend, "machine": m.uid,
                "machine_name": m.name, "fingerprint": m.fingerprint, **found}
    return _checked(work)


def ranking(store, machine, benchmark=None):
    """One benchmark ranked in its newest run on ``machine``; without a benchmark, the
    fastest backend of every benchmark there."""
    def work():
        with store.reading() as c:
            m = queries.one_machine(c, machine)
            rows = queries.newest(c, machine_id=m.id, key=benchmark)
            if benchmark is not None:
                like = queries.likes(c, [r["settings_id"] for r in rows])
        out = {"machine": m.uid, "machine_name": m.name, "fingerprint": m.fingerprint}
        if benchmark is None:
            return {**out, "benchmark": None, "fastest": rankings.fastest(rows)}
        for row in rows:
            row["settings_like"] = like.get(row["settings_id"])
        if not rows:
            raise read.NotFound(f"machine {machine!r} has no run of {benchmark!r}")
        return {**out, "benchmark": benchmark, "run": rows[0]["run"],
                "commit": rows[0]["commit"], "started": rows[0]["started"],
                **rankings.rank(rows)}
    return _checked(work)


def grid(store, suite=None):
    with store.reading() as c:
        rows = queries.newest(c, suite=suite)
    return {"suite": suite, **rankings.machine_grid(rows)}


def evals(store, machine):
    def work():
        with store.reading() as c:
            m = queries.one_machine(c, machine)
            rows = queries.newest(c, machine_id=m.id, suite="evals")
        return {"machine": m.uid, "machine_name": m.name, **rankings.ad_grid(rows)}
    return _checked(work)


def benchmarks(store, suite=None, contains=None, limit=200):
    with store.reading() as c:
        return {"benchmarks": queries.benchmarks(c, suite, contains, limit),
                "suites": queries.suites(c)}


def backends(store, benchmark, machine=None):
    def work():
        with store.reading() as c:
            m = queries.one_machine(c, machine).id if machine else None
            return {"benchmark": benchmark, "backends": queries.backends_of(c, benchmark, m)}
    return _checked(work)
