"""How each engine does on the corpus (tests/ad/corpus.py), as a Markdown table::

    python -m tests.ad.corpus_table              # engine x ok / refused / wrong
    python -m tests.ad.corpus_table --details    # and every refused or wrong case, with the
                                                 # engine's message, and the commonest reasons
"""

import argparse
import collections
import re
import warnings

from kernels.ad import ENGINES

from .corpus import CASES
from .reference import engine_outcome

STATUSES = ("ok", "refused", "wrong")


def _reason(detail):
    """A refusal message without what varies from case to case (where it happened, the advice
    that follows a ';'), so that equal reasons group together."""
    detail = re.sub(r" \((?:forward mode|reverse mode|/|<).*$", "", detail)
    return detail.split(";")[0][:120]


def table(outcomes):
    lines = ["| engine | " + " | ".join(STATUSES) + " | cases |",
             "|---|" + "---:|" * (len(STATUSES) + 1)]
    for engine, results in outcomes.items():
        counts = collections.Counter(o.status for o in results.values())
        cells = [f"{counts[s]} ({counts[s] / len(results):.1%})" for s in STATUSES]
        lines.append(f"| {engine} | " + " | ".join(cells) + f" | {len(results)} |")
    return "\n".join(lines)


def details(outcomes, top=15):
    lines = []
    for engine, results in outcomes.items():
        for status in ("wrong", "refused"):
            listed = [(name, o) for name, o in results.items() if o.status == status]
            if listed:
                lines += ["", f"### {engine}: {status} ({len(listed)})", ""]
                lines += [f"- `{name}`: {o.detail[:240]}" for name, o in listed]
    reasons = {engine: collections.Counter(_reason(o.detail) for o in results.values()
                                           if o.status == "refused")
               for engine, results in outcomes.items()}
    total = sum(reasons.values(), collections.Counter())
    if total:
        lines += ["", f"### commonest refusal reasons (top {top})", "",
                  "| reason | " + " | ".join(outcomes) + " |",
                  "|---|" + "---:|" * len(outcomes)]
        lines += [f"| {reason} | " + " | ".join(str(reasons[e][reason]) for e in outcomes) + " |"
                  for reason, _ in total.most_common(top)]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--details", action="store_true",
                        help="list every refused or wrong case and the commonest reasons")
    parser.add_argument("--engine", action="append", choices=list(ENGINES),
                        help="only this engine (repeatable)")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an engine's warnings are recorded in its outcome
        outcomes = {engine: {c.name: engine_outcome(engine, c) for c in CASES}
                    for engine in args.engine or ENGINES}
    print(f"{len(CASES)} cases (tests/ad/corpus.py)\n")
    print(table(outcomes))
    if args.details:
        print(details(outcomes))


if __name__ == "__main__":
    main()
