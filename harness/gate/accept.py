"""Accepting a regression on purpose: a commit between base and head carries the trailer

    Perf-accepted: <case id or glob>: <reason>

(``git commit --trailer "Perf-accepted: gate/H/*/n14: exact H needs the extra rounding
step"``). A matching regression is reported as accepted, with the reason and the commit,
and does not fail the gate. A trailer without a reason accepts nothing and is reported.
"""

from fnmatch import fnmatchcase
from typing import NamedTuple

from harness.gate.trees import git

TRAILER = "Perf-accepted"


class Acceptance(NamedTuple):
    pattern: str
    reason: str
    commit: str
    subject: str


def trailers(repo, base, head):
    """(acceptances, malformed trailer lines) on the commits in base..head."""
    sep, end = "\x1f", "\x1e"
    log = git(repo, "log", f"--format=%H{sep}%s{sep}%(trailers:key={TRAILER},valueonly,"
                           f"separator=%x1d){end}", f"{base}..{head}")
    found, malformed = [], []
    for record in log.split(end):
        record = record.strip()
        if not record:
            continue
        sha, subject, values = (record.split(sep) + ["", ""])[:3]
        for value in filter(None, (v.strip() for v in values.split("\x1d"))):
            pattern, colon, reason = value.partition(":")
            if not colon or not pattern.strip() or not reason.strip():
                malformed.append(f"{sha[:10]}: {TRAILER}: {value}")
                continue
            found.append(Acceptance(pattern.strip(), reason.strip(), sha, subject))
    return found, malformed


def match(case_id, acceptances):
    """The first acceptance whose pattern matches ``case_id``, or None."""
    return next((a for a in acceptances if fnmatchcase(case_id, a.pattern)), None)
