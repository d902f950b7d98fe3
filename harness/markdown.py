"""Markdown tables of results: one row per case, one column per backend, shared by the
AD and variational sections of ``python -m harness table`` and the report."""


def columns(rows):
    """The backends of ``rows`` ({case: {backend: value}}) in the order first seen."""
    cols = []
    for row in rows.values():
        cols += [b for b in row if b not in cols]
    return cols


def matrix(rows, cell, heads):
    """A case x backend table: ``heads`` name the parts of a case key (a tuple when there
    are several), ``cell(row, backend)`` formats one entry, "-" where a backend is absent."""
    cols = columns(rows)
    lines = ["| " + " | ".join([*heads, *cols]) + " |", "|---" * (len(heads) + len(cols)) + "|"]
    for case, row in rows.items():
        keys = case if isinstance(case, tuple) else (case,)
        lines.append("| " + " | ".join([*map(str, keys),
                                        *(cell(row, b) if b in row else "-" for b in cols)])
                     + " |")
    return "\n".join(lines)
