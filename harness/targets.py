"""The targets the project holds its backends to, in one table of data: each a bound on a
ratio measured in the results, which ``python -m harness table`` and the report read
back as met, missed or not measured. Like the profiles, this is configuration: a target
names the backends it compares (the sources are the issues that set them).
"""

from pathlib import Path
from typing import NamedTuple

from adapters.simulators import lightning_sim
from harness.markdown import between


class Ratio(NamedTuple):
    """``numerator / denominator`` on ``case`` within ``bound`` (``at_most`` or not);
    ``measured`` names the result it is read from: "vs_manual" (both sides against the
    hand-written gradient, sampled in one process, else the quotient of minimum times)
    or "gradient" (the quotient of minimum gradient times)."""

    numerator: str
    denominator: str
    case: tuple
    bound: float
    at_most: bool = True
    measured: str = "vs_manual"


#: The AD engines on the seeds' problems: tr(A @ B) 30x30 against the hand-written
#: gradient and torch (the YAAD seed), forward mode against finite differences and AlgoPy
#: on the Ackley loop (the ForwardDiff seed, which compares at n >= 1600: at n = 16
#: differences beat any AD in Python).
AD = (
    Ratio("reverse", "manual", ("trmul", 30), 2.0),
    Ratio("source", "manual", ("trmul", 30), 1.3),
    Ratio("reverse", "torch", ("trmul", 30), 1 / 3),
    Ratio("source", "torch", ("trmul", 30), 1 / 3),
)
#: (peer, bound): the peer's gradient over forward mode's best chunk on the Ackley loop,
#: at least the bound (AlgoPy: "far ahead")
AD_FORWARD_AHEAD_OF = (("finite", 8.0), ("algopy", 10.0))
AD_FORWARD_CASE, AD_FORWARD_FROM = "ackley_loop", 1600
#: (backends, case, bound): gradient / objective in one process, at most the bound
AD_SLOWDOWN = (("reverse", "source"), ("ackley", 16000), 10.0)

#: The evals: gradient / objective at gradbench's middle size of these, for these engines,
#: at most the bound; and (suite, engines, peer): no engine slower than the peer on any
#: eval run (the gradient evals against torch, the Jacobian evals against jacfwd).
EVALS = ("llsq", "lse", "gmm", "ode")
EVAL_ENGINES, EVAL_MAX_VS_OBJECTIVE = ("reverse", "source"), 4.0
EVAL_PEERS = (("gradient", ("reverse", "source"), "torch"),
              ("jacobian", ("forward",), "torch:jacfwd"))

#: Our engines that compile (each backend declares ``compiles``): the gradient over the
#: engine's own objective (compiled the same way) on every eval it runs, at most the eval's
#: bound (3 on det, lstm and ode, 3.5 on gmm, as gradbench's best compiled tools; else 4),
#: and over each compiling peer's gradient (jax.jit: compile excluded on both sides) at
#: most 1 on every eval both run.
COMPILED_VS_OWN = {"det": 3.0, "lstm": 3.0, "ode": 3.0, "gmm": 3.5}
COMPILED_VS_OWN_ELSE = 4.0

#: Circuit gradients: the adjoint method's gradient / energy at n >= 12, at most 4 (Yao.jl's
#: 4.2x, the adjoint method's 3-4x in theory); adjoint / lightning's adjoint at most 1.
VARIATIONAL_METHOD = "adjoint"
VARIATIONAL_RATIO, VARIATIONAL_RATIO_FROM = 4.0, 12
# the peer by its adapter's declared name (its adjoint is the declared "gradients" setting)
VARIATIONAL_PEER, VARIATIONAL_PEER_QUBITS = lightning_sim.NAME, (14, 20)


#: The README's lines between which :func:`markdown` renders every target.
BEGIN, END = "<!-- targets:begin -->", "<!-- targets:end -->"
PAGE = Path(__file__).resolve().parents[1] / "README.md"


def _bound(at_most, bound):
    return f"{'<=' if at_most else '>='} {bound:.3g}"


def markdown():
    """Every target as one Markdown table: what is measured, the bound, and the page that
    says how it is measured (the report's targets tables read the same rows)."""
    rows = [(f"{t.numerator} / {t.denominator}, {t.case[0]} {t.case[1]}",
             _bound(t.at_most, t.bound), "docs/ad.md") for t in AD]
    rows += [(f"{peer} / forward mode at its best chunk, {AD_FORWARD_CASE} n >= "
              f"{AD_FORWARD_FROM}", _bound(False, bound), "docs/ad.md")
             for peer, bound in AD_FORWARD_AHEAD_OF]
    engines, case, bound = AD_SLOWDOWN
    rows.append((f"{' and '.join(engines)} gradient / objective, {case[0]} {case[1]}",
                 _bound(True, bound), "docs/ad.md"))
    rows.append((f"{' and '.join(EVAL_ENGINES)} gradient / objective at gradbench's middle "
                 f"size of {', '.join(EVALS)}", _bound(True, EVAL_MAX_VS_OBJECTIVE),
                 "docs/ad.md"))
    rows += [(f"{' and '.join(engines)} / {peer} on every {kind} eval run",
              _bound(True, 1.0), "docs/ad.md") for kind, engines, peer in EVAL_PEERS]
    rows += [(f"a compiling engine's gradient / its own objective on {name}",
              _bound(True, bound), "docs/ad.md") for name, bound in COMPILED_VS_OWN.items()]
    rows.append(("a compiling engine's gradient / its own objective on every other eval",
                 _bound(True, COMPILED_VS_OWN_ELSE), "docs/ad.md"))
    rows.append(("a compiling engine / a compiling peer on every gradient eval both run",
                 _bound(True, 1.0), "docs/ad.md"))
    rows.append((f"{VARIATIONAL_METHOD} gradient / energy, n >= {VARIATIONAL_RATIO_FROM}",
                 _bound(True, VARIATIONAL_RATIO), "docs/ad.md"))
    rows.append((f"{VARIATIONAL_METHOD} / {VARIATIONAL_PEER}'s adjoint, n = "
                 f"{', '.join(map(str, VARIATIONAL_PEER_QUBITS))}", _bound(True, 1.0),
                 "docs/ad.md"))
    lines = ["| target | bound | how it is measured |", "|---|---|---|"]
    lines += [f"| {what} | {bound} | [{page}]({page}) |" for what, bound, page in rows]
    return "\n".join(lines)


def rendered(text):
    """``text`` (the README) with its targets table replaced by :func:`markdown`'s."""
    return between(text, BEGIN, END, markdown(), PAGE)


if __name__ == "__main__":
    PAGE.write_text(rendered(PAGE.read_text()))
