"""README.md's coverage table is the registry's (kernels/ad/coverage.py), never a
hand-kept copy that drifts; this test mentions README so that README checks run it."""

import pytest

from kernels.ad import coverage, rules


def test_readme_table_is_the_generated_one():
    pytest.importorskip("scipy.special")  # the table lists scipy.special's rules
    text = coverage.README.read_text()
    assert coverage.START in text and coverage.END in text
    assert coverage.current(text) == coverage.markdown(), (
        "README.md's coverage table differs from the registry: run "
        "`python -m kernels.ad.coverage --write`")


def test_every_rule_family_has_a_row():
    families = {r.family for r in rules.RULES.values() if r.family.startswith(
        "kernels.ad.rules.")}
    assert families <= set(coverage.FAMILIES), families - set(coverage.FAMILIES)


def test_replace_keeps_the_text_around_the_markers():
    text = f"before\n{coverage.START}\nold\n{coverage.END}\nafter\n"
    want = f"before\n{coverage.START}\nnew\n{coverage.END}\nafter\n"
    assert coverage.replace(text, "new\n") == want
    with pytest.raises(ValueError, match="markers"):
        coverage.replace("no markers", "new\n")
