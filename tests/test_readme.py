"""The documentation's Python examples run as written: the README's in order, as one
session (later examples use names from earlier ones), and each page of docs/ the same
way, on its own: they are the first code users copy. The README is a front page: every
docs/ page is linked from it, its targets table is rendered from harness/targets.py, and
it and the docs name the same commands as ``python -m harness --help``."""

import re
from pathlib import Path

import pytest

from harness import targets
from harness.__main__ import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))


def blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def run_session(path, tmp_path, monkeypatch):
    """Every Python block of ``path``, in order, in one namespace, each from a file (the
    source engine reads the functions' source), with the rule table restored after."""
    from kernels.ad import rules
    saved = dict(rules.RULES), set(rules.NONDIFFERENTIABLE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))
    namespace = {"__name__": f"example_{path.stem}"}
    try:
        for index, block in enumerate(blocks(path)):
            script = tmp_path / f"{path.stem}_example_{index}.py"
            script.write_text(block)
            try:
                exec(compile(block, str(script), "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"{path.name} example {index} failed:\n{block}") from exc
    finally:
        rules.RULES.clear()
        rules.RULES.update(saved[0])
        rules.NONDIFFERENTIABLE.clear()
        rules.NONDIFFERENTIABLE.update(saved[1])


def test_the_readme_examples_run(tmp_path, monkeypatch):
    assert len(blocks(README)) >= 4
    run_session(README, tmp_path, monkeypatch)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_the_docs_examples_run(page, tmp_path, monkeypatch):
    run_session(page, tmp_path, monkeypatch)


def test_the_readme_is_a_front_page_linking_every_page():
    text = README.read_text()
    assert len(text) <= 15_000, f"README.md is {len(text)} characters; the manual is docs/"
    for page in PAGES:
        assert f"(docs/{page.name})" in text, f"README.md does not link docs/{page.name}"


def test_the_readme_holds_the_targets_as_the_code_has_them():
    text = README.read_text()
    assert targets.rendered(text) == text, (
        "README.md's targets table differs from harness/targets.py: run "
        "`python -m harness.targets`")


def test_the_docs_and_the_command_line_name_the_same_commands():
    text = README.read_text() + "".join(p.read_text() for p in PAGES)
    named = set(re.findall(r"python -m harness ([a-z][a-z-]*)", text))
    assert named <= set(COMMANDS), f"documented but not a command: {named - set(COMMANDS)}"
    listed = README.read_text()
    missing = [c for c in COMMANDS if f"`{c}`" not in listed]
    assert not missing, f"commands the README does not list: {missing}"
