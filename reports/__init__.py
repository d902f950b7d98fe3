"""``python -m reports``: the seeds' figures and tables from the latest asv results, written
to ``reports/out/`` as PNGs, Markdown tables and an ``index.html`` that ties them together.

The tables are harness.tables' (the same ones ``python -m harness table`` prints); this
package adds the figures, the machine and version details, and the page."""
