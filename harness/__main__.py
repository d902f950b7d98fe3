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
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

from harness import profiles

ROOT = Path(__file__).resolve().parent.parent


def _asv(args, profile, env=None):
    env = dict(os.environ, **(env or {}))
    env["QSIM_BENCH_PROFILE"] = profile
    subprocess.run([sys.executable, "-m", "asv", "machine", "--yes"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    # forkserver: asv forks each parameter set's process from one that has imported the
    # suites (numba, qulacs) once, instead of starting Python afresh hundreds of times.
    # Safe here because importing the suites starts no threads (numba's and OpenMP's
    # pools start at the first parallel call, in the forked process).
    cmd = [sys.executable, "-m", "asv", "run", "-E", f"existing:{sys.executable}",
           "--launch-method", "forkserver", *args]
    print("+", " ".join(cmd), f"(QSIM_BENCH_PROFILE={profile})", flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def cmd_quick(opts):
    args = ["--quick", "--dry-run", "--show-stderr"]
    args += ["--bench", opts.bench] if opts.bench else []
    code = _asv(args, "quick")
    if code:
        print(f"asv reported failed benchmarks (exit {code})", file=sys.stderr)
    return code


def cmd_bench(opts):
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()
    # asv's headline number is the median; samples are kept so that tables and reports
    # can use the minimum, the statistic of the seeds and the peers
    args = ["--set-commit-hash", commit, "--show-stderr", "--record-samples"]
    if opts.bench:
        args += ["--bench", opts.bench]
    code = _asv(args, opts.profile)
    _record_settings()
    print(f"\nasv results (commit {commit[:8]}, profile {opts.profile}) are in "
          f"{ROOT / 'results'}; `python -m harness table` prints the headline numbers.")
    return code


def _record_settings():
    """The settings of every state-vector result (harness.settings), written beside the
    results file asv just wrote; a failure here is reported, never fatal."""
    from harness import results, settings
    try:
        _, res = results.latest()
        path = settings.write_for_results(results.path_of(res), results.param_names())
        print(f"settings of each result: {path}")
    except Exception as exc:
        print(f"settings not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)


def cmd_validate(opts):
    from harness import threads
    threads.pin_env(1)
    from harness.validate import validate_all
    return validate_all(opts.qubits)


def cmd_threshold(opts):
    from harness.statevector.threshold import report
    return report(opts.qubits)


def cmd_table(opts):
    from harness.tables import report
    return report(opts.machine)


def cmd_gate(opts):
    if opts.list:
        from harness.gate import decide
        from harness.gate.cases import CASES
        stored = decide.load()
        for case in CASES.values():
            tol, source = decide.tolerance(case.id, case.tier, stored)
            blocking = "" if case.tier == 1 else (
                ", blocking" if decide.may_block(case.id, stored) else ", report only")
            print(f"tier {case.tier}  {case.id:<32} tolerance {tol:.1%} ({source}{blocking})")
        return 0
    if not opts.base:
        print("gate: could not run: --base REV is required", file=sys.stderr)
        return 2
    from harness.gate.command import main
    return main(opts)


def cmd_calibrate(opts):
    from harness.gate.calibrate import main
    return main(opts)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("validate", help="check every backend against the reference")
    p.add_argument("--qubits", type=int, nargs="+", default=[1, 4, 9, 13])
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("quick", help="smoke run: every asv benchmark once, nothing saved")
    p.add_argument("--bench", help="regular expression selecting benchmarks")
    p.set_defaults(func=cmd_quick)
    p = sub.add_parser("bench", help="the asv sweep, saved to results/")
    p.add_argument("--profile", default=os.environ.get("PROFILE") or "default",
                   choices=sorted(profiles.PROFILES))
    p.add_argument("--bench", help="regular expression selecting benchmarks")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("threshold", help="measure the threaded kernel's serial/parallel crossover")
    p.add_argument("--qubits", type=int, nargs="+", default=list(range(8, 21)))
    p.set_defaults(func=cmd_threshold)
    p = sub.add_parser("table", help="headline numbers of the latest results, as Markdown")
    p.add_argument("--machine", help="asv machine name (default: this host's)")
    p.set_defaults(func=cmd_table)
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
    p.set_defaults(func=cmd_gate)
    from harness.circuit.command import add_parser as add_circuit_parser
    add_circuit_parser(sub)
    p = sub.add_parser("calibrate", help="A/A gate runs: the spreads behind the tolerances")
    p.add_argument("--rev", default="HEAD")
    p.add_argument("--perturb", action="store_true", help="heads that only move the heap layout")
    p.add_argument("--case", action="append", help="only case ids matching this glob")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--tier", choices=["1", "2", "all"], default="all")
    p.add_argument("--write", action="store_true",
                   help="store the spreads in harness/gate/tolerances.json")
    p.set_defaults(func=cmd_calibrate)
    opts = parser.parse_args(argv)
    return opts.func(opts)


if __name__ == "__main__":
    sys.exit(main())
