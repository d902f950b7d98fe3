"""Tier 1: instructions per call of each case, counted by callgrind.

One callgrind process per revision runs every case, each in a forked child of its own
that builds and warms it up (JIT code loaded, Python's specialising interpreter settled),
then collects only its measured calls (client requests, ``vgctl.c``) and dumps them
under the case id: no case's count depends on another's code. Address-space
randomisation is off, the hash seed fixed, one thread, so a count repeats to the
instruction on the same revision.
"""

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

from harness.gate.runner import GateError, Side, build, environment, run_probe

SHIM = Path(__file__).with_name("vgctl.c")

#: Warm-up calls before a case is counted: Python 3.11 specialises bytecode after it has
#: run some tens of times, and a count taken earlier moves with how often the code ran
#: before (measured: the rational function on the source engine 177k instructions per
#: call after 1 warm-up call, 143k after 5, 126k from 10 on; tr(A @ B) on reverse 551k,
#: 477k, then 433k-437k).
WARMUP = 20


def valgrind():
    """The valgrind command and its version; GateError when it is missing."""
    exe = shutil.which("valgrind")
    if not exe:
        raise GateError("valgrind not found: the instruction counts need it "
                        "(Debian/Ubuntu: apt-get install valgrind)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    return exe, version


def shim(gate_dir):
    """The client-request library, compiled once per source text into ``gate_dir``."""
    source = SHIM.read_bytes()
    lib = Path(gate_dir) / "lib" / f"libqsim_vgctl-{hashlib.sha1(source).hexdigest()[:12]}.so"
    if lib.exists():
        return lib
    lib.parent.mkdir(parents=True, exist_ok=True)
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise GateError("no C compiler (cc) to build the callgrind client-request shim")
    tmp = lib.with_suffix(".tmp")
    result = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(tmp), str(SHIM)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise GateError("cannot build the callgrind client-request shim (is valgrind's "
                        f"<valgrind/callgrind.h> installed?): {result.stderr.strip()[-300:]}")
    tmp.replace(lib)
    return lib


def _no_aslr():
    """A prefix that turns address-space randomisation off, where setarch can."""
    setarch = shutil.which("setarch")
    if not setarch:
        return []
    ok = subprocess.run([setarch, "-R", "true"], capture_output=True).returncode == 0
    return [setarch, "-R"] if ok else []


def count(side, ids, workdir, lib):
    """{case id: {"per_call", "total", "calls", "dump"}} of ``side``, and {case id: the
    numba {address: name} table of its process}; GateError if the run fails or a case
    has no dump."""
    exe, _ = valgrind()
    workdir = Path(workdir)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    prefix = [*_no_aslr(), exe, "--tool=callgrind", "--instr-atstart=no",
              "--collect-atstart=no", f"--callgrind-out-file={workdir}/callgrind.%p"]
    result = run_probe("count", side, ids, workdir / "count.json",
                       environment(side, counted=True), prefix=prefix,
                       extra=("--lib", lib, "--warmup", WARMUP))
    dumps = {}
    for path in workdir.glob("callgrind.*.*"):
        label, total = read_dump(path)
        if label is not None:
            dumps[label] = (total, path)
    out = {}
    for cid, info in result["cases"].items():
        if cid not in dumps:
            raise GateError(f"{side.name}: callgrind wrote no counts for {cid} (see {workdir})")
        total, path = dumps[cid]
        out[cid] = {"per_call": total / info["calls"], "total": total, "calls": info["calls"],
                    "dump": str(path)}
    return out, result.get("numba", {})


_TRIGGER = "desc: Trigger: Client Request: "


def read_dump(path):
    """(label, total instructions) of one callgrind dump (label None: not a case's)."""
    label = total = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(_TRIGGER):
                label = line[len(_TRIGGER):].strip()
            elif line.startswith(("totals:", "summary:")):
                total = int(line.split()[1])
    return (label, total) if label is not None and total is not None else (None, None)


_ROW = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*\S)\s*$")


def functions(dump, numba_names=None):
    """{function: instructions} (self cost) of one dump, from callgrind_annotate. JIT code,
    which callgrind knows only by address, is named from ``numba_names``."""
    annotate = shutil.which("callgrind_annotate")
    if not annotate:
        return {}
    text = subprocess.run([annotate, "--inclusive=no", "--threshold=100", str(dump)],
                          capture_output=True, text=True).stdout
    rows = {}
    body = text.split("file:function", 1)[-1]
    for line in body.splitlines():
        m = _ROW.match(line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        cost, where = int(m.group(1).replace(",", "")), m.group(2)
        name = function_name(where, numba_names or {})
        rows[name] = rows.get(name, 0) + cost
    return rows


def function_name(where, numba_names):
    """A readable, tree-independent name for callgrind_annotate's ``file:function [obj]``."""
    left = where.partition(" [")[0]
    _, _, fn = left.partition(":")
    fn = fn or left
    # callgrind marks recursion levels (name'2) and cycles (<cycle 1>): one function
    fn = fn.split("'", 1)[0].split(" <cycle", 1)[0]
    if re.fullmatch(r"0x[0-9a-fA-F]+", fn):
        known = numba_names.get(f"{int(fn, 16):#x}")
        return known or f"JIT code at {fn}"
    return fn  # not its object file: callgrind_annotate names it on some rows only


def diff(base, head, top=8):
    """The functions whose counts grew most from ``base`` to ``head`` ({name: count}
    each, per call): [(name, base, head, change)], largest growth first."""
    names = set(base) | set(head)
    rows = [(n, base.get(n, 0), head.get(n, 0), head.get(n, 0) - base.get(n, 0)) for n in names]
    rows = [r for r in rows if r[3] > 0]
    return sorted(rows, key=lambda r: -r[3])[:top]


def count_checkout(root, ids, gate_dir):
    """({case: instructions per call}, {case: its build status, where not "ok"}) of the
    checkout at ``root`` as it is (the working tree, not a commit): what the asv history
    records."""
    root = Path(root).resolve()
    side = Side("current", "working tree", root, Path(gate_dir).resolve() / "cache" / "current")
    side.cache.mkdir(parents=True, exist_ok=True)
    workdir = Path(gate_dir) / "run-current"
    workdir.mkdir(parents=True, exist_ok=True)
    built = build(side, ids, workdir, counted=True)
    skipped = {cid: s for cid, s in built.items() if s["status"] != "ok"}
    ok = [cid for cid in ids if cid not in skipped]
    measured, _ = count(side, ok, workdir / "cg", shim(gate_dir)) if ok else ({}, {})
    return {cid: round(m["per_call"], 1) for cid, m in measured.items()}, skipped
