"""Perf-accepted trailers: read from the commits in base..head only, matched by glob,
and a trailer without a case or a reason accepts nothing."""

from harness.gate import accept
from tests.gate.gitrepo import commit, git


def test_trailers_in_range(tmp_path):
    git(tmp_path, "init", "-q")
    base = commit(tmp_path, "base", {"a.txt": "1"},
                  trailers=["Perf-accepted: gate/*: before the range, not counted"])
    commit(tmp_path, "slower H", {"a.txt": "2"},
           trailers=["Perf-accepted: gate/H/*/n14: exact rounding costs a multiply"])
    head = commit(tmp_path, "two more", {"a.txt": "3"},
                  trailers=["Perf-accepted: ad/trmul/reverse/n30: tape checks",
                            "Perf-accepted: no reason given",
                            "Perf-accepted: ad/x:"])
    found, malformed = accept.trailers(tmp_path, base, head)
    assert [(a.pattern, a.reason) for a in found] == [
        ("ad/trmul/reverse/n30", "tape checks"),
        ("gate/H/*/n14", "exact rounding costs a multiply")]
    assert len(malformed) == 2 and all("Perf-accepted" in m for m in malformed)
    assert accept.match("gate/H/stride/n14", found).subject == "slower H"
    assert accept.match("gate/X/stride/n14", found) is None
    assert accept.match("ad/trmul/reverse/n30", found).reason == "tape checks"
    assert accept.trailers(tmp_path, head, head) == ([], [])
