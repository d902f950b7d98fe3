"""Sizes of evals with several dimensions, named as gradbench describes its runs
(``"d=2,k=5"``): the label is what tables print, and :func:`parse` gives the numbers."""


def label(**dims):
    return ",".join(f"{name}={value}" for name, value in dims.items())


def parse(size):
    """``{"d": 2, "k": 5}`` from ``"d=2,k=5"``; ValueError naming a malformed label."""
    try:
        return {name: int(value) for name, value in
                (part.split("=") for part in size.split(","))}
    except (AttributeError, ValueError):
        raise ValueError(f"size {size!r} is not a label like 'd=2,k=5'") from None


def grid(**axes):
    """Labels of every combination of ``axes`` (name -> values), smallest product first
    (gradbench's order), ties in the order given."""
    combos = [{}]
    for name, values in axes.items():
        combos = [dict(c, **{name: v}) for c in combos for v in values]
    combos.sort(key=lambda c: _product(c.values()))
    return tuple(label(**c) for c in combos)


def _product(values):
    out = 1
    for v in values:
        out *= v
    return out
