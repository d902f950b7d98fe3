"""``python -m reports [--results DIR] [--machine NAME] [--out DIR]``: build the report page
from the latest asv results; exit 1 only when there are no results at all."""

import argparse
import sys
from pathlib import Path

from harness import results
from reports import build, screenshots


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m reports", description=__doc__)
    parser.add_argument("--results", default=results.RESULTS_DIR, help="asv results folder")
    parser.add_argument("--machine", help="asv machine name (default: this host's)")
    parser.add_argument("--out", default=build.OUT, help="output folder")
    parser.add_argument("--no-screenshots", action="store_true",
                        help="skip the browser screenshots of the page and the dashboard")
    opts = parser.parse_args(argv)
    try:
        index = build.build(opts.results, opts.machine, opts.out)
    except FileNotFoundError as exc:
        print(f"no report: {exc}", file=sys.stderr)
        return 1
    if not opts.no_screenshots:
        saved, missing = screenshots.take(opts.out)
        for path in saved:
            print(f"screenshot: {Path(path).resolve()}")
        for reason in missing:
            print(reason)
    print(f"report: {index.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
