"""gradbench's protocol (JSON lines between an eval and a tool; gradbench's CONTRIBUTING.md
is the specification): :mod:`.protocol` the tool's side of it, :mod:`.evals` gradbench's
modules in terms of our evals, :mod:`.tool` the command ``python -m harness
gradbench-tool --engine NAME`` that serves them with one of our engines (docs/ad.md,
"gradbench's protocol")."""
