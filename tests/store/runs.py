"""Runs to store, made two ways: ``sample_run`` (seeded, plausible: a run as a command
of ours would record it) and ``runs()``, a hypothesis strategy that reaches the awkward
corners of the schema (any Unicode, markup in names, subnormal and huge floats, empty and
nested settings, every status, comm and samples)."""

import datetime

from hypothesis import strategies as st

from harness.store import schema

STATUSES = schema.STATUSES


def machine(name="box", cpu="Test CPU @ 3.0GHz", cores=8, l3=32 << 20, gpu=None):
    """A machine's document, its fingerprint computed from its facts."""
    facts = {"cpu": cpu, "isa": "avx2", "cores": cores,
             "caches": {"L1": 48 << 10, "L2": 2 << 20, "L3": l3},
             "memory_bytes": 32 << 30, "gpu": gpu, "arch": "x86_64", "os": "Linux 6.1"}
    return {"name": name, "fingerprint": schema.fingerprint(facts), **facts}


def result(benchmark, backend, seconds, spread=0.05, status="ok", **more):
    """A timed result: ``seconds`` its minimum, its interval up to ``spread`` above."""
    row = {"benchmark": benchmark, "backend": backend, "status": status,
           "settings": {"backend": backend, "precision": "complex128", "threads": 1},
           "settings_hash": "abcd1234"}
    if status == "ok" and seconds is not None:
        row.update(seconds=seconds, interval=[seconds, seconds * (1 + spread)], samples=5)
    elif status != "ok":
        row["reason"] = more.pop("reason", f"{backend} was {status}")
    row.update(more)
    return row


def started(day=1, hour=12, minute=0):
    return datetime.datetime(2026, 11, day, hour, minute, tzinfo=datetime.UTC).isoformat()


def sample_run(rng, machine_doc=None, commit=None, when=None, n_benchmarks=5,
               backends=("fused", "qulacs", "qsim"), scale=None, command="circuit"):
    """A run of ``n_benchmarks`` circuit benchmarks on ``backends``, seeded by ``rng``;
    ``scale`` {backend: factor} multiplies a backend's times."""
    commit = commit or "".join(rng.choice(list("0123456789abcdef"), 40))
    results = []
    for i in range(n_benchmarks):
        bench = {"suite": "circuit", "case": f"qft{i}", "params": {"qubits": 10 + i,
                                                                   "precision": "complex128"}}
        for b in backends:
            base = 1e-3 * (1 + i) * (1 + 0.5 * list(backends).index(b))
            seconds = base * (scale or {}).get(b, 1.0) * float(rng.uniform(1.0, 1.02))
            results.append(result(bench, b, seconds, baseline=b == backends[-1]))
    return {"machine": machine_doc or machine(), "commit": commit, "command": command,
            "started": when or started(), "results": results}


_text = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)),
                max_size=30)
_names = st.one_of(_text.filter(bool), st.sampled_from(
    ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "a&b", "Ü ⊗ ∂"]))
_floats = st.one_of(st.floats(min_value=0, max_value=1e300, allow_nan=False),
                    st.sampled_from([0.0, 5e-324, 2.2250738585072014e-308, 1e-9]))
_params = st.dictionaries(_text, st.one_of(st.booleans(), st.integers(-2**62, 2**62),
                                           st.floats(allow_nan=False, allow_infinity=False),
                                           _text, st.none()), max_size=4)
_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**62, 2**62),
                               st.floats(allow_nan=False, allow_infinity=False), _text),
                     lambda inner: st.one_of(st.lists(inner, max_size=3),
                                             st.dictionaries(_text, inner, max_size=3)),
                     max_leaves=8)


@st.composite
def results(draw):
    status = draw(st.sampled_from(STATUSES))
    row = {"benchmark": {"suite": draw(_names), "case": draw(_names), "params": draw(_params)},
           "backend": draw(_text), "status": status,
           "settings": draw(st.dictionaries(_text, _json, max_size=4)),
           "extra": draw(st.dictionaries(_text, _json, max_size=2)),
           "baseline": draw(st.booleans())}
    if status != "ok":
        row["reason"] = draw(_names)
    seconds = draw(st.one_of(st.none(), _floats)) if status != "ok" else draw(_floats)
    if seconds is not None:
        row["seconds"] = seconds
        if draw(st.booleans()):
            row["interval"] = [seconds, seconds * draw(st.floats(1, 2))]
            if row["interval"][1] == float("inf"):
                row["interval"][1] = seconds
    times = draw(st.one_of(st.none(), st.lists(_floats, max_size=5)))
    if times is not None:
        row.update(times=times, samples=len(times))
    for field in ("max_error", "roofline", "instructions"):
        if draw(st.booleans()):
            row[field] = draw(_floats)
    if draw(st.booleans()):
        row["peak_bytes"] = draw(st.integers(0, 2**62))
    if draw(st.booleans()):
        row["value"], row["unit"] = draw(st.floats(allow_nan=False, allow_infinity=False)), "GB/s"
    if draw(st.booleans()):
        row["comm"] = {"exchanges": draw(st.integers(0, 100)), "bytes_per_rank": draw(_floats),
                       "seconds": draw(_floats)}
    return row


@st.composite
def runs(draw):
    """A run document that the schema accepts, awkward wherever it may be."""
    name = draw(_names)
    zone = datetime.timezone(datetime.timedelta(minutes=draw(st.integers(-720, 720))))
    when = draw(st.datetimes(min_value=datetime.datetime(2000, 1, 1),
                             max_value=datetime.datetime(2100, 1, 1)))
    return {"machine": machine(name=name, cores=draw(st.integers(1, 512))),
            "commit": draw(st.one_of(st.none(), st.text("0123456789abcdef", min_size=7,
                                                        max_size=40))),
            "dirty": draw(st.booleans()), "command": draw(_names),
            "profile": draw(st.one_of(st.none(), _text)), "argv": draw(st.lists(_text,
                                                                                max_size=3)),
            "versions": draw(st.dictionaries(_text, _text, max_size=3)),
            "tuning": draw(st.one_of(st.none(), _text)),
            "started": when.replace(tzinfo=zone).isoformat(),
            "source": draw(st.dictionaries(_text, _text, max_size=2)),
            "results": draw(st.lists(results(), min_size=1, max_size=6))}
