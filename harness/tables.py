"""``python -m harness table``: the headline numbers of the latest results as Markdown,
the state-vector sections (``harness.statevector.tables``), the AD ones
(``harness.ad.tables``), then the variational ones; the report shows the same tables."""

from harness import results
from harness.ad import tables as ad_tables
from harness.statevector import tables as sv_tables
from harness.variational import tables as var_tables

SECTIONS = sv_tables.SECTIONS + ad_tables.SECTIONS + var_tables.SECTIONS


def report(machine=None):
    name, res = results.latest(machine=machine)
    print(f"machine {name}, commit {res.commit_hash[:8]}\n")
    for title, fn in SECTIONS:
        print(f"## {title}\n")
        try:
            print(fn(res))
        except KeyError as exc:
            print(f"(no results for {exc})")
        print()
    return 0
