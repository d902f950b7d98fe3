"""The coverage table of the rule registry, generated: which functions each rule family
differentiates, which give plain values, which are constructors, and which are refused and
why. docs/ad.md holds its output at its end ("The numpy coverage table"), between marker
comments; ``tests/ad/test_coverage.py`` fails when the two differ.

    python -m kernels.ad.coverage --markdown     # print the table
    python -m kernels.ad.coverage --write        # refresh docs/ad.md between the markers
"""

import argparse
import pathlib
import sys

import numpy as np

from . import rules
from .rules import namespace as _namespace

START, END = "<!-- ad-coverage:start -->", "<!-- ad-coverage:end -->"
#: the page that holds the table between the markers
PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "ad.md"
README = PAGE  # the name tests/ad/test_coverage.py reads the page by

#: family module -> its row's title, in the table's order
FAMILIES = {
    "kernels.ad.rules.elementwise": "elementwise",
    "kernels.ad.rules.reduce": "reductions",
    "kernels.ad.rules.nan": "NaN-skipping reductions and more",
    "kernels.ad.rules.shape": "shapes and indexing",
    "kernels.ad.rules.join": "joins and splits",
    "kernels.ad.rules.products": "products",
    "kernels.ad.rules.series": "polynomials and sequences",
    "kernels.ad.rules.linalg": "`np.linalg`",
    "kernels.ad.rules.fft": "`np.fft`",
    "kernels.ad.rules.scipy": "`scipy.special` (once imported)",
}


def _load_optional():
    """Register the families of optional packages that are installed (scipy.special), so
    that the table does not depend on what a session happened to import."""
    try:
        import scipy.special  # noqa: F401
    except ImportError:  # pragma: no cover - scipy is optional
        pass
    rules.register_late()


def _public_names():
    """id(object) -> its name in numpy's namespaces (``r_``, ``linalg.test``: objects
    without a ``__name__`` of their own), top level first, and the first of aliases in
    alphabetical order (``arcsin``, not numpy 2's ``asin``)."""
    names = {}
    for module, prefix in [(np, ""), (np.linalg, "linalg."), (np.fft, "fft.")]:
        for name in dir(module):
            if not name.startswith("_"):
                names.setdefault(id(getattr(module, name)), prefix + name)
    return names


def _short(fn, _names=[]):  # noqa: B006 - built once
    """``sin``, ``linalg.inv``, ``fft.fft``, ``scipy.special.expit``; None for the engines'
    own primitives and Python's operators (the prose tables cover those)."""
    if not _names:
        _names.append(_public_names())
    if id(fn) in _names[0]:
        return _names[0][id(fn)]
    name = rules._name(fn)
    if name.startswith("numpy."):
        return name[len("numpy."):]
    if name.startswith("scipy."):
        return name
    return None


def _cell(names):
    return " ".join(f"`{n}`" for n in sorted(set(names), key=str.lower)) or "-"


def rows():
    """(kind, what, functions) for every line of the table."""
    _load_optional()
    families = {family: [] for family in FAMILIES}
    for fn, rule in rules.RULES.items():
        short = _short(fn)
        if short is not None and rule.family in families:
            families[rule.family].append(short)
    for fn in rules.CANONICAL:
        short = _short(fn)
        if short is not None and fn not in rules.RULES:
            families["kernels.ad.rules.join"].append(short)
    out = [("differentiated", title, families[family]) for family, title in FAMILIES.items()]
    methods = [f"x.{m}()" for m in rules.METHODS] + [f"x.{a}" for a in rules.ATTRIBUTES]
    out.append(("differentiated", "methods and attributes of traced values", methods))
    out.append(("plain value", "attributes of traced values", [f"x.{q}" for q in
                                                               rules.QUERIES]))
    out.append(("plain value", "results without a derivative",
                [s for s in map(_short, rules.NONDIFFERENTIABLE) if s]))
    out.append(("constructor", "arrays from shapes, numbers or files",
                [s for s in map(_short, _namespace.CONSTRUCTORS) if s]))
    by_reason = {}
    for fn, reason in rules.REFUSED.items():
        if fn not in _namespace.CONSTRUCTORS:  # (their own row above)
            by_reason.setdefault(reason, []).append(_short(fn))
    out += [("refused", reason, names) for reason, names in sorted(by_reason.items())]
    return out


def markdown():
    lines = ["| kind | what | functions |", "|---|---|---|"]
    lines += [f"| {kind} | {what} | {_cell(names)} |" for kind, what, names in rows()]
    return "\n".join(lines) + "\n"


def replace(text, table):
    """``text`` with the table between the markers replaced (ValueError without them)."""
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"docs/ad.md lacks the markers {START} ... {END}")
    return f"{head}{START}\n{table}{END}{tail}"


def current(text):
    """The table between the markers of ``text``."""
    return text.partition(START)[2].partition(END)[0].lstrip("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table")
    parser.add_argument("--write", action="store_true", help="refresh docs/ad.md")
    args = parser.parse_args(argv)
    table = markdown()
    if args.write:
        PAGE.write_text(replace(PAGE.read_text(), table))
    if args.markdown or not args.write:
        sys.stdout.write(table)


if __name__ == "__main__":
    main()
