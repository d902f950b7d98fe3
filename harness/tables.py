"""``python -m harness table``: the headline numbers of the latest results as Markdown,
the state-vector sections (``harness.statevector.tables``), the AD ones
(``harness.ad.tables``, ``harness.ad.eval_tables``), then the variational ones; the
report shows the same tables.

A section function that takes a ``settings`` keyword gets the results' settings map
(``harness.statevector.tables.recorded_settings``) and marks results measured with
different settings."""

import inspect

from harness import results
from harness.ad import eval_tables
from harness.ad import tables as ad_tables
from harness.statevector import fusion_tables
from harness.statevector import tables as sv_tables
from harness.variational import tables as var_tables

SECTIONS = (*sv_tables.SECTIONS, *fusion_tables.SECTIONS, *ad_tables.SECTIONS,
            *eval_tables.SECTIONS, *var_tables.SECTIONS)


def takes_settings(fn):
    """Whether section function ``fn`` accepts the settings map."""
    return "settings" in inspect.signature(fn).parameters


def report(machine=None, results_dir=results.RESULTS_DIR):
    name, res = results.latest(results_dir, machine=machine)
    print(f"machine {name}, commit {res.commit_hash[:8]}\n")
    settings = sv_tables.recorded_settings(res, results_dir)
    for title, fn in SECTIONS:
        print(f"## {title}\n")
        try:
            text = fn(res, settings=settings) if takes_settings(fn) else fn(res)
        except KeyError as exc:
            text = f"(no results for {exc})"
        print(text or "(no results)")
        print()
    return 0


def command(opts):
    """``python -m harness table``: the latest results of ``opts.machine`` (default this
    host's)."""
    return report(opts.machine)
