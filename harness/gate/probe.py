"""The gate's benchmark process: measures cases in one revision's tree.

    python probe.py MODE --root TREE --out FILE [--case ID ...] [--lib LIB]

It runs as a script, never as ``harness.gate.probe``, so that the only project code it
imports is the revision's (``kernels`` from TREE); the case table comes from the file
beside it, the tree the gate was started from. The project is usually installed in
editable mode, and setuptools' editable finder, consulted after ``sys.path``, supplies
from the installed checkout any project package or module the tree lacks (a package an
old revision did not have yet): a silent mix of two revisions. :func:`isolate` removes
that finder first, and the output lists where every project module came from, which the
gate checks (``tests/gate/test_probe.py`` shows the mix without it).

Modes (each writes JSON to FILE):

* ``build``: every case built, warmed up (numba compiles into the tree's cache) and
  checked against the reference; its status (ok, missing, failed) and fingerprint;
* ``count``: under callgrind: each case built and warmed up alone in a forked child, then
  only its ``calls`` measured calls collected (client requests through LIB) and dumped
  under the case id; also, per case, the addresses of the numba functions, to name JIT
  code in callgrind's output;
* ``time``: the minimum wall time of one call of each case;
* ``opcodes``: Python bytecodes executed per function during the measured calls, the
  deterministic Python-level profile of a regression.
"""

import argparse
import ctypes
import gc
import importlib.util
import json
import os
import sys
import traceback
from collections import Counter
from pathlib import Path

PACKAGES = ("kernels", "adapters", "harness")
HERE = Path(__file__).resolve().parent
#: Third-party modules the cases use, imported once before any case: a case's child would
#: otherwise import them again under callgrind (seconds each). They are this environment's,
#: the same for both revisions, so they tie no case's count to another's code.
PRELOAD = ("numba", "scipy.special")


def preload():
    """Import :data:`PRELOAD` and start numba's JIT (its LLVM target and code generator)
    on a function of the probe's own, so that no case's child starts it again: under
    callgrind that took a tier-1 run of 57 cases from 426 s to 337 s."""
    for name in PRELOAD:
        importlib.import_module(name)
    import numba
    numba.njit(lambda x: x + 1)(1)


def _is_checkout(path):
    p = Path(path or ".")
    return (p / "kernels" / "__init__.py").is_file() and (p / "harness").is_dir()


def isolate(root):
    """Make ``import kernels`` (and the other project packages) load from ``root``."""
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not type(f).__module__.startswith("__editable__")
                        and not getattr(f, "__module__", "").startswith("__editable__")]
    sys.path_hooks[:] = [h for h in sys.path_hooks
                         if not getattr(h, "__module__", "").startswith("__editable__")]
    sys.path_importer_cache.clear()
    # a lenient editable install adds the installed checkout itself to sys.path
    sys.path[:] = [p for p in sys.path if not _is_checkout(p) and Path(p or ".").resolve() != HERE]
    sys.path.insert(0, str(root))
    for name in list(sys.modules):
        if name.split(".")[0] in PACKAGES:
            del sys.modules[name]


def provenance(root, measured):
    """{module: file} of every loaded project module, those not under ``root``, and those
    under it but outside the packages ``measured`` (harness.gate.runner.MEASURED: what a
    case may load from its revision's tree)."""
    files = {name: getattr(m, "__file__", None) for name, m in sorted(sys.modules.items())
             if name.split(".")[0] in PACKAGES}
    root = str(Path(root).resolve())
    stray = {n: f for n, f in files.items()
             if f is not None and not str(Path(f).resolve()).startswith(root + os.sep)}
    outside = {n: f for n, f in files.items()
               if n not in stray and n.split(".")[0] not in measured}
    return {"modules": files, "stray": stray, "outside": outside}


def load(name, path):
    """The driver's module at ``path`` under a private name (never the revision's)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _set_threads(threads):
    import numba
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def _workload(cases, cid):
    case = cases.CASES[cid]
    _set_threads(case.threads)
    return case, cases.build(case)


def mode_build(cases, ids, opts):
    out = {}
    for cid in ids:
        try:
            case, work = _workload(cases, cid)
            work.check()
            for _ in range(2):  # warm-up: JIT compilation, first-call caches
                work.run()
            out[cid] = {"status": "ok", "fingerprint": work.fingerprint}
        except cases.Missing as exc:
            out[cid] = {"status": "missing", "reason": str(exc)}
        except NotImplementedError as exc:
            out[cid] = {"status": "missing", "reason": f"not available here: {exc}"}
        except Exception as exc:  # noqa: BLE001 - any failure fails the case, with its trace
            out[cid] = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}",
                        "trace": traceback.format_exc(limit=8)}
    return {"cases": out}


class _Callgrind:
    """Client requests of callgrind through a small shared library (vgctl.c); outside
    valgrind they do nothing."""

    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib)
        self.lib.qsim_dump.argtypes = [ctypes.c_char_p]

    def measure(self, label, fn, calls):
        gc.collect()  # the collector's counters start every measurement at zero
        self.lib.qsim_start()
        self.lib.qsim_toggle()
        for _ in range(calls):
            fn()
        self.lib.qsim_toggle()
        self.lib.qsim_dump(label.encode())
        self.lib.qsim_stop()


def numba_functions():
    """{address: name} of every compiled numba function of the revision's kernels (its
    native function and its Python wrapper), to name JIT code that callgrind knows only
    by address."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return {}
    names = {}
    for modname, module in list(sys.modules.items()):
        if not (modname.startswith("kernels") or modname.startswith("_qsim_generated")):
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, Dispatcher):
                continue
            for cres in obj.overloads.values():
                # overloads of one function share its name: their counts add up
                label = obj.py_func.__qualname__
                try:
                    fn = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
                    wrapper = cres.library.get_pointer_to_function(
                        cres.fndesc.llvm_cpython_wrapper_name)
                except Exception:  # noqa: BLE001 - a name is a courtesy, never a failure
                    continue
                names[f"{fn:#x}"] = f"numba:{label}"
                names[f"{wrapper:#x}"] = f"numba wrapper:{label}"
    return names


def in_child(fn, *args):
    """``fn(*args)`` in a forked copy of this process; its JSON-able result, or raises
    RuntimeError with the child's error. A child that dies takes nothing else with it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        code = 0
        try:
            payload = {"ok": fn(*args)}
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            payload, code = {"error": f"{type(exc).__name__}: {exc}",
                             "trace": traceback.format_exc(limit=8)}, 1
        with os.fdopen(write, "w") as pipe:
            json.dump(payload, pipe)
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    payload = json.loads(text) if text else {"error": "the child died without a word"}
    if "error" in payload:
        raise RuntimeError(f"{payload['error']}\n{payload.get('trace', '')}")
    return payload["ok"]


def _alone(cases, cid, warmup, measure, *args):
    """``measure(*args, run, calls)`` of one case, in a forked child that imports, builds
    and warms up that case alone: the process it is measured in holds nothing of any
    other case. Warming every case in one parent and forking each measurement from it
    made a count depend on the other cases' code through the allocator: glibc's free
    lists at the fork were the sum of every warm-up, so a change to one backend's kernels
    moved tr(A @ B)'s count by 1-2%, all of it in ``_int_malloc``."""
    def one():
        case, work = _workload(cases, cid)
        for _ in range(warmup):  # JIT code loaded, caches filled, bytecode specialised
            work.run()
        return measure(*args, work.run, case.calls)
    return in_child(one)


def mode_count(cases, ids, opts):
    grind = _Callgrind(opts.lib)
    tables = Path(opts.out).with_suffix(".numba")
    tables.mkdir(exist_ok=True)

    def measure(cid, table, run, calls):
        grind.measure(cid, run, calls)
        # the child's JIT code (it compiled or loaded this case's), to a file: read in
        # the parent after every case, so no case's table is in the heap the next forks
        table.write_text(json.dumps(numba_functions()))

    for i, cid in enumerate(ids):
        _alone(cases, cid, opts.warmup, measure, cid, tables / f"{i}.json")
    return {"cases": {cid: {"calls": cases.CASES[cid].calls} for cid in ids},
            "numba": {cid: json.loads((tables / f"{i}.json").read_text())
                      for i, cid in enumerate(ids)}}


def mode_time(cases, ids, opts):
    # the project's one timing helper (it imports nothing of the project)
    timing = load("_qsim_gate_timing", HERE.parent / "timing.py")
    out = {}
    for cid in ids:
        case, work = _workload(cases, cid)
        work.run()
        # the minimum over samples of ~20 ms each, for ~opts.seconds per case
        out[cid] = {"seconds": timing.best_seconds(work.run, repeat=10_000,
                                                   max_seconds=opts.seconds, min_sample=0.02)}
    return {"cases": out}


def _code_key(code, root):
    path = Path(code.co_filename)
    try:
        where = str(path.resolve().relative_to(root))
    except ValueError:
        parts = path.parts
        where = "/".join(parts[parts.index("site-packages") + 1:]) if "site-packages" in parts \
            else path.name
    # no line number: a function keeps its name when code above it moves
    return f"{where}:{code.co_qualname}"


def mode_opcodes(cases, ids, opts):
    root = Path(opts.root).resolve()
    return {"cases": {cid: _alone(cases, cid, opts.warmup, _opcodes, root) for cid in ids}}


def _opcodes(root, fn, calls):
    """{function: bytecodes executed per call} over ``calls`` calls of ``fn``."""
    counts = Counter()

    def local(frame, event, arg):
        if event == "opcode":
            counts[frame.f_code] += 1
        return local

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        return local

    gc.collect()
    sys.settrace(trace)
    try:
        for _ in range(calls):
            fn()
    finally:
        sys.settrace(None)
    per_call = Counter()
    for code, n in counts.items():
        per_call[_code_key(code, root)] += n / calls
    return dict(per_call)


MODES = {"build": mode_build, "count": mode_count, "time": mode_time, "opcodes": mode_opcodes}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--root", required=True, help="the revision's tree")
    parser.add_argument("--out", required=True, help="where the JSON result goes")
    parser.add_argument("--case", action="append", default=[], help="case id (repeatable)")
    parser.add_argument("--lib", help="the client-request library (count mode)")
    parser.add_argument("--warmup", type=int, default=2, help="calls before measuring")
    parser.add_argument("--seconds", type=float, default=0.3, help="time mode: per case")
    parser.add_argument("--measured", action="append", default=[],
                        help="a package the cases may load from the tree (repeatable)")
    opts = parser.parse_args(argv)
    root = Path(opts.root).resolve()
    isolate(root)
    preload()
    cases = load("_qsim_gate_cases", HERE / "cases.py")
    unknown = [c for c in opts.case if c not in cases.CASES]
    if unknown:
        parser.error(f"unknown case ids: {unknown}")
    result = MODES[opts.mode](cases, opts.case, opts)
    result["provenance"] = provenance(root, opts.measured)
    result["python"] = sys.version
    Path(opts.out).write_text(json.dumps(result, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
