"""Tier 2: wall time, for what instruction counts cannot see (threads, memory bandwidth,
a GPU). Base and head run alternately in fresh processes, A B B A A B B A ..., so that a
drift of the machine's load moves both sides alike; each round gives one paired ratio
head / base of the minimum times, and the verdict rests on a confidence interval of the
median ratio (``decide.wall_verdict``)."""

from pathlib import Path

from harness.gate.runner import environment, run_probe

ROUNDS = 16  #: paired rounds: 32 processes, an interval [x_(4), x_(13)] of 98% coverage
SECONDS_PER_CASE = 0.3  #: sampling time per case in each process


def order(rounds):
    """Which side runs first in each round: base, head, head, base, base, head, ..."""
    return [("base", "head") if r % 2 == 0 else ("head", "base") for r in range(rounds)]


def measure(sides, ids, workdir, rounds=ROUNDS, seconds=SECONDS_PER_CASE):
    """{case id: {"base": [s...], "head": [s...], "ratios": [head/base...]}} over
    ``rounds`` rounds; ``sides`` maps "base"/"head" to a Side."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    times = {cid: {"base": [], "head": []} for cid in ids}
    for r, pair in enumerate(order(rounds)):
        for name in pair:
            side = sides[name]
            result = run_probe("time", side, ids, workdir / f"{name}-{r}.json",
                               environment(side), extra=("--seconds", seconds))
            for cid in ids:
                times[cid][name].append(result["cases"][cid]["seconds"])
    for t in times.values():
        t["ratios"] = [h / b for b, h in zip(t["base"], t["head"])]
    return times
