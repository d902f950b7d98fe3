"""``python -m reports``: the seeds' figures and tables from the latest asv results, written
to ``reports/out/`` as PNGs, Markdown tables and an ``index.html`` that ties them together:
the headline (who is fastest per gate and circuit, both precisions) in the first screen,
contents, every section, then the machine, versions, peers and settings.

The tables are harness.tables' (the same ones ``python -m harness table`` prints); this
package adds the figures (each backend in :mod:`reports.palette`'s colour and marker), the
machine and version details, and the page (docs/architecture.md)."""
