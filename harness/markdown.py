"""Markdown tables of results: one row per case, one column per backend, shared by the
AD and variational sections of ``python -m harness table`` and the report; and the one
way a table generated from code is kept in a page (:func:`between`)."""


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


def between(text, begin, end, table, page):
    """``text`` (the page ``page``) with what lies between its lines ``begin`` and ``end``
    replaced by ``table``: a table rendered from code, which a test holds to the page."""
    head, found_begin, rest = text.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found_begin or not found_end:
        raise ValueError(f"{page} lacks the lines {begin} and {end}")
    return f"{head}{begin}\n{table}\n{end}{tail}"
