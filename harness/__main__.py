"""``python -m harness COMMAND``: the harness's command line (the Makefile calls it).

  validate   run every backend on every benchmarked gate and circuit, and every AD
             backend on every AD problem, check each result against the reference,
             print the tables; exit 1 on any wrong result
  quick      every asv benchmark once (--quick) on the small profile, nothing saved;
             exit non-zero if any benchmark failed
  bench      the asv sweep (profile default or full), results saved to results/
  threshold  measure where the parallel stride loop starts to beat the serial one
  table      the latest results' headline numbers as Markdown (ratios vs qulacs,
             bandwidth, thread scaling; AD gradient times vs manual, slowdown ratios,
             the chunk sweep, the AD targets)
  gate       compare the gated benchmarks of two revisions (instruction counts, wall
             time); exit 0 no regression, 1 a regression, 2 could not run
  circuit    one circuit (an OpenQASM 2/3 file, mqt:NAME, lib:NAME) through every
             backend, each validated against the reference, then timed interleaved;
             exit 0 all agree, 1 a wrong state, 2 bad input
  calibrate  A/A gate runs of one revision against itself: the spreads that set the
             gate's tolerances (harness/gate/tolerances.json)
  tune       measure this machine's constants for the kernels, the fused planner and
             the roofline, and cache them (kernels.statevector.tuning)
  predict    what a circuit would take over R ranks on a described cluster, split into
             compute (measured here) and communication (the exchange plan over the link)
  gradbench-tool
             one of our AD engines as a gradbench tool: gradbench's messages on stdin,
             one JSON line each on stdout (docs/ad.md)
  evals      the field's AD evals through every AD backend and any gradbench tool
             (--gradbench-tool "CMD"), each validated against the hand-written
             derivative, then timed in alternation; exit 0 all right, 1 a wrong result,
             2 bad input
  record     store what exists already (asv results folders, circuit and evals JSON,
             gate.json) in the results store, each run once (circuit, evals, gate and
             bench record what they measure themselves, unless --no-record)
  export     every run in the store, one canonical JSON line each; import: back
  token      tokens that write to a store (scoped to a machine, or admin) or read it
  serve      the comparison service over a store: the JSON API under /api/v1, its
             OpenAPI document, and the pages (runs, a run, compare, history, rankings,
             machines), on 127.0.0.1:8000
  submit     send runs to a comparison service, keeping what it could not send
"""

import argparse
import importlib
import os
import sys

from harness import profiles, threads
from harness.circuit.arguments import circuit_arguments
from harness.distributed.arguments import predict_arguments
from harness.recording.arguments import recording_arguments
from harness.service.arguments import service_arguments
from harness.store.arguments import store_arguments

#: command -> (module, function of the parsed options that runs it, whether threads are
#: pinned to one first). A command's module is imported when it runs, so that one
#: command does not load every tool another needs, and threads can be pinned before
#: numpy loads.
COMMANDS = {
    "validate": ("harness.validate", "command", True),
    "quick": ("harness.bench", "quick", False),
    "bench": ("harness.bench", "bench", False),
    "threshold": ("harness.statevector.threshold", "command", False),
    "table": ("harness.tables", "command", False),
    "gate": ("harness.gate.command", "command", False),
    "circuit": ("harness.circuit.entry", "main", False),
    "calibrate": ("harness.gate.calibrate", "main", False),
    "predict": ("harness.distributed.predict", "main", False),
    "tune": ("harness.tune.command", "command", False),
    "gradbench-tool": ("harness.gradbench.tool", "main", True),
    "evals": ("harness.ad.command", "main", True),
    "record": ("harness.store.command", "record", False),
    "export": ("harness.store.command", "export", False),
    "import": ("harness.store.command", "import_", False),
    "token": ("harness.store.command", "token", False),
    "serve": ("harness.service.serve", "main", False),
    "submit": ("harness.service.client", "main", False),
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("validate", help="check every backend against the reference")
    p.add_argument("--qubits", type=int, nargs="+", default=[1, 4, 9, 13])
    p.set_defaults(command="validate")
    p = sub.add_parser("quick", help="smoke run: every asv benchmark once, nothing saved")
    p.add_argument("--bench", help="regular expression selecting benchmarks")
    p.set_defaults(command="quick")
    p = sub.add_parser("bench", help="the asv sweep, saved to results/")
    p.add_argument("--profile", default=os.environ.get("PROFILE") or "default",
                   choices=sorted(profiles.PROFILES))
    p.add_argument("--bench", help="regular expression selecting benchmarks")
    recording_arguments(p)
    p.set_defaults(command="bench")
    p = sub.add_parser("threshold", help="measure the threaded kernel's serial/parallel crossover")
    p.add_argument("--qubits", type=int, nargs="+", default=list(range(8, 21)))
    p.set_defaults(command="threshold")
    p = sub.add_parser("table", help="headline numbers of the latest results, as Markdown")
    p.add_argument("--machine", help="asv machine name (default: this host's)")
    p.set_defaults(command="table")
    p = sub.add_parser("gate", help="compare two revisions; exit 1 on a regression, 2 if it "
                                    "could not run")
    p.add_argument("--base", help="the revision compared against (e.g. HEAD~1, origin/main)")
    p.add_argument("--head", default="HEAD", help="the revision judged (default HEAD)")
    p.add_argument("--case", action="append", help="only case ids matching this glob "
                   "(repeatable); --list shows them")
    p.add_argument("--tier", choices=["1", "2", "all"], default="all")
    p.add_argument("--rounds", type=int, help="tier-2 paired rounds (default 16)")
    p.add_argument("--out", help="report folder (default reports/out)")
    p.add_argument("--repo", help="the git repository (default this checkout)")
    p.add_argument("--list", action="store_true", help="list the gated cases and exit")
    p.add_argument("--even-if-identical", action="store_true",
                   help="measure even where the revisions' kernels/ are the same")
    recording_arguments(p)
    p.set_defaults(command="gate")
    circuit_arguments(sub.add_parser("circuit", help="one circuit (OpenQASM file, "
                                     "mqt:NAME, lib:NAME) through every backend, "
                                     "validated and timed"))
    p = sub.add_parser("calibrate", help="A/A gate runs: the spreads behind the tolerances")
    p.add_argument("--rev", default="HEAD")
    p.add_argument("--perturb", action="store_true", help="heads that only move the heap layout")
    p.add_argument("--case", action="append", help="only case ids matching this glob")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--tier", choices=["1", "2", "all"], default="all")
    p.add_argument("--write", action="store_true",
                   help="store the spreads in harness/gate/tolerances.json")
    p.set_defaults(command="calibrate")
    predict_arguments(sub.add_parser("predict", help="a circuit over R ranks on a described "
                                     "cluster: compute and communication, predicted"))
    p = sub.add_parser("tune", help="measure this machine's constants and cache them")
    p.add_argument("--if-missing", action="store_true",
                   help="only where this machine has no tuning yet")
    p.set_defaults(command="tune")
    p = sub.add_parser("gradbench-tool", help="one of our AD engines as a gradbench tool "
                       "(JSON lines on stdin and stdout)")
    p.add_argument("--engine", required=True, help="forward, reverse, source or finite")
    p.set_defaults(command="gradbench-tool")
    p = sub.add_parser("evals", help="the AD evals through every AD backend and gradbench "
                       "tool, validated, then timed")
    p.add_argument("--eval", action="append", help="an eval (default: all of them)")
    p.add_argument("--size", default="smallest", help="smallest (default), middle, "
                   "largest, all, or one of the eval's sizes as written (d=2,k=5)")
    p.add_argument("--backend", action="append",
                   help="an AD backend (default: every one; a tool's are added)")
    p.add_argument("--gradbench-tool", action="append", metavar="CMD",
                   help="the command that starts a tool speaking gradbench's protocol")
    p.add_argument("--rounds", type=int, default=7, help="timing rounds (default 7)")
    p.add_argument("--budget", type=float, default=3.0,
                   help="no timing round is started past this many seconds of a case")
    p.add_argument("--max-seconds", type=float, default=10.0,
                   help="skip a backend whose first derivative is predicted to take longer")
    p.add_argument("--json", help="write the results as JSON here")
    recording_arguments(p)
    p.set_defaults(command="evals")
    store_arguments(sub)
    service_arguments(sub)
    opts = parser.parse_args(argv)
    opts.argv = list(sys.argv[1:] if argv is None else argv)  # a job started anew gets them
    module, function, pin = COMMANDS[opts.command]
    if pin:  # before numpy, numba and BLAS load their thread pools
        threads.pin_env(1)
    return getattr(importlib.import_module(module), function)(opts)


if __name__ == "__main__":
    sys.exit(main())
