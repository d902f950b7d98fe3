"""The README's Python examples run as written, in order, as one session (later examples
use names from earlier ones): they are the first code users copy."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_examples_run(tmp_path, monkeypatch):
    from kernels.ad import rules
    assert len(BLOCKS) >= 4
    saved = dict(rules.RULES), set(rules.NONDIFFERENTIABLE)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme_example"}
    try:
        for index, block in enumerate(BLOCKS):
            # A file, not a string: the source engine reads the functions' source.
            script = tmp_path / f"readme_example_{index}.py"
            script.write_text(block)
            try:
                exec(compile(block, str(script), "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"README example {index} failed:\n{block}") from exc
    finally:
        rules.RULES.clear()
        rules.RULES.update(saved[0])
        rules.NONDIFFERENTIABLE.clear()
        rules.NONDIFFERENTIABLE.update(saved[1])
