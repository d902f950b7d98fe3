"""The fused backend: a whole circuit through the fusion planner, cache-blocked stages and
packed-SIMD kernels.

``compile(instructions, n, dtype, max_qubits=k)`` checks every instruction, folds its
uncontrolled X gates into the gates after them (:func:`fusion.x_frame`), fuses the
circuit (:func:`fusion.fuse`), cuts it into stages that each cross the memory hierarchy
once (:mod:`.stages`), and returns a program that runs them on a state in place. A stage
copies each chunk of the state into split real/imaginary buffers that sit in L2, applies
its gates there with the kernels of :mod:`.simd`, and copies it back; the chunk
size comes from the L2 size the OS reports. Chunks are shared among numba's threads.
"""

import hashlib
import math

import numba
import numpy as np

from .. import fusion, states, subnormals, tuning
from .._validate import check_gate_on
from ..backend import Backend, FusionFacts
from ..codegen import sources
from ..compiled import threaded
from ..compiled._plan import NUMBA_DTYPES
from ..machine import cache_sizes, isa
from ..runner import KernelRunner, bind_gate, kernel_runner
from . import planner, simd, split, stages

#: Bytes of a packed vector, as in :mod:`simd`: a run is a vector of real parts.
VECTOR_BYTES = 64
#: The widest fused gate for a caller that fixes one rather than let the planner choose
#: (the distributed backend's default): what the fusion cost model judged best on QCBM,
#: QFT, QV and random circuits before the planner chose per circuit.
DEFAULT_MAX_QUBITS = 4
#: How a program holds the state (:mod:`.stages`: interleaved, each stage's chunks copied
#: into split buffers; :mod:`.split`: split across the whole circuit, stages in place).
LAYOUTS = ("staged", "split")
#: The fusion settings it declares, as adapters do (``FUSION``): the widest fused gate.
FUSION = tuple(range(1, fusion.MAX_QUBITS + 1))


def block_key(precision):
    """The tuning constant of the stage size in ``precision``."""
    return f"fused_block_qubits_{precision}"


def block_qubits(dtype):
    """Chunk size (log2 amplitudes): this machine's tuned one, or, untuned, the one whose
    split buffers fill half of L2 (the other half holds the scratch, the matrices and the
    lines passing through)."""
    dtype = np.dtype(dtype)
    half = int(math.log2(cache_sizes()[2] // 2 // dtype.itemsize))
    return tuning.value(block_key(dtype.name), half)


def pass_cost(n, dtype):
    """A pass over an n-qubit state, in the fusion model's unit (complex multiply-adds
    per amplitude): in L2 as :data:`fusion.L2_PASS_COST`, from L3 twice that, from DRAM
    four times (bandwidth ratios of the order the yardsticks measure)."""
    size = (1 << n) * np.dtype(dtype).itemsize
    sizes = cache_sizes()
    factor = 1 if size <= sizes[2] else 2 if size <= sizes.get(3, sizes[2]) else 4
    return factor * fusion.L2_PASS_COST


def modelled_cost(steps, n, dtype):
    """The model's cost of a plan per amplitude: its gates in L2 plus a pass over the
    whole state per step."""
    return sum(fusion.cost(g) for g in stages.gates_of(steps)) + len(steps) * pass_cost(n, dtype)


def default_layout(n, dtype):
    """The layout a program holds the state in unless told: split wherever the state
    fills a register (its stages in place, with no copies, ran QCBM, QFT, QV and random
    circuits at n = 20 in 0.62-0.98x the staged layout's time, docs/circuits.md), else
    staged."""
    return "split" if n >= run_bits(dtype) else "staged"


def run_bits(dtype):
    """log2 of the amplitudes in a run: one vector of real parts."""
    return int(math.log2(VECTOR_BYTES // (np.dtype(dtype).itemsize // 2)))


def lane_qubits(layout, dtype):
    """How many of the lowest qubits are lanes of a register in ``layout``: the split
    layout's run bits (:mod:`.split`); none in the staged one, whose gates never touch
    its buffers' lanes (:mod:`.stages`)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return run_bits(dtype) if layout == "split" else 0


_TEMPLATE = """
def {NAME}(st, outer, rlo, rhi, spec, hshift, T, blo, bhi, bT, ops, offs, m_re, m_im,
           buf_re, buf_im, s_re, s_im):
    R = {R}
    n_workers = buf_re.shape[0]
    nruns = rlo.size * rhi.size
    lmask = rlo.size - 1
""" + sources.worker_chunks(("bre", "buf_re"), ("bim", "buf_im"), ("sre", "s_re"),
                            ("sim", "s_im")) + """\
{GATHER}
            for o in range(ops.shape[0]):
                kind = ops[o, 0]
                K = 1 << ops[o, 1]
                m0 = ops[o, 2]
                oo = ops[o, 3]
                ctrl = ops[o, 4]
                nb = ops[o, 5]
                mask = 0
                for j in range(nb):
                    mask |= 1 << ops[o, {HEAD} + j]
                groups = nruns >> nb
{OPS}
{SCATTER}
"""

#: One gate on every group of its runs: the run indices r with the gate's bits (``mask``)
#: clear, visited in order by carrying through those bits, r0 = r | ctrl setting the
#: control bits. A dense gate as :func:`simd.dense_dispatch` writes it (in registers, or
#: through the scratch), a diagonal one each run times its entry (DIAGONAL).
def _ops():
    lines = simd.dense_dispatch("bre", "bim")
    lines += ["else:", "    DIAGONAL(bre, bim, offs, oo, K, mask, ctrl, groups, m_re, m_im, m0)"]
    return sources.indent(lines, 4)


#: The copy between the state and a chunk's buffers, T runs at a time: one loop per tile.
#: Below the widest tile a lane's amplitudes are less than a cache line, and the tiles of
#: a chunk lie far apart in the state: the gather asks for the lines AHEAD tiles on (on
#: QCBM at 20 qubits that took the copy of such a stage from about 4.3 to 3.0 ms in
#: complex128; the widest tiles gained nothing).
AHEAD = 8
_COPY = """\
for rt in range(0, nruns, {T}):
{FETCH}    {KIND}_{T}(st, base + {LO}[rt & lmask] + {HI}[rt >> hshift], spec, bre, bim, rt * R)
"""
_FETCH = """\
    ahead = rt + {AHEAD}
    if ahead < nruns:
        PREFETCH(st, base + rlo[ahead & lmask] + rhi[ahead >> hshift], spec)
"""


def _copies(kind):
    """The copy in (GATHER, tables rlo, rhi, T) or back (SCATTER, tables blo, bhi, bT)."""
    lo, hi, tile = ("rlo", "rhi", "T") if kind == "GATHER" else ("blo", "bhi", "bT")
    lines = []
    for i, t in enumerate(reversed(simd.TILES)):
        lines.append("else:" if t == 1 else f"{'if' if i == 0 else 'elif'} {tile} == {t}:")
        fetch = _FETCH.format(AHEAD=t * AHEAD) if kind == "GATHER" and t < max(
            simd.TILES) else ""
        lines += ["    " + line
                  for line in _COPY.format(T=t, KIND=kind, FETCH=fetch, LO=lo, HI=hi).splitlines()]
    return sources.indent(lines, 3)


_INTRINSICS = ("DIAGONAL", "PREFETCH")


def _source():
    head = ("from kernels.statevector.fused import simd  "
            f"# digest {simd.source_digest()}\n")
    out = [head]
    for r in simd.RUN_LENGTHS:
        names = {k: f"simd.{k}[{r}]" for k in _INTRINSICS}
        names.update(simd.dense_names(r))
        names.update({f"{k}_{t}": f"simd.{k}[{r}, {t}]" for k in ("GATHER", "SCATTER")
                      for t in simd.TILES})
        body = _TEMPLATE.replace("{OPS}", _ops())
        for k in ("GATHER", "SCATTER"):
            body = body.replace("{" + k + "}", _copies(k))
        body = body.replace("{R}", str(r)).replace("{HEAD}", str(stages.OP_HEAD))
        for name in sorted(names, key=len, reverse=True):
            out.append(f"{name.lower()}_{r} = {names[name]}\n")
            body = body.replace(f"{name}(", f"{name.lower()}_{r}(")
        out.append(sources.serial_and_parallel(f"stage_{r}", body))
    return "".join(out)


_generated = sources.load_module("fused", sources.HEADER + _source())
_LOOPS = {(r, par): getattr(_generated, f"stage_{r}_{'parallel' if par else 'serial'}")
          for r in simd.RUN_LENGTHS for par in (False, True)}


#: Where every other buffer of :func:`staggered` starts past a 4 KiB boundary: half the
#: span of L1's sets (4 KiB on the x86 cores of this decade).
STAGGER = 2048


def staggered(workers, sizes, ftype):
    """Zeroed C-contiguous (workers, size) arrays of ``ftype`` for ``sizes``, in one
    allocation: each starts on the first 4 KiB boundary past the one before, plus
    :data:`STAGGER` bytes for every other one. A gate's runs lie a power of two apart,
    from 4 KiB up in one L1 set: allocated alone (each one page-aligned), a run of the
    real parts and the same run of the imaginary parts fell in one set too, and a
    three-qubit gate's 16 lines overflowed its 12 ways. Staggered, a stage of two- to
    four-qubit gates ran in 0.66-0.83x the time (2-core Xeon, AVX-512, one thread, the
    chunk in L2, both precisions, side by side in one process)."""
    item = np.dtype(ftype).itemsize
    starts, at = [], 0
    for i, size in enumerate(sizes):
        at = -(-at // 4096) * 4096 + (i % 2) * STAGGER
        starts.append(at)
        at += workers * size * item
    raw = np.zeros(at + 4096, np.uint8)
    first = -raw.ctypes.data % 4096  # the first buffer on a 4 KiB boundary
    return tuple(raw[first + start:first + start + workers * size * item].view(ftype)
                 .reshape(workers, size) for start, size in zip(starts, sizes))


class Program:
    """A compiled circuit: ``program(state)`` runs it in place; ``info`` says how."""

    def __init__(self, instructions, n, dtype=np.complex128, max_qubits=None, block=None,
                 layout=None):
        dtype = np.dtype(dtype)
        if dtype.char not in NUMBA_DTYPES:
            raise NotImplementedError(f"fused runs complex128 and complex64, not {dtype}")
        self.n, self.dtype = check_n(n), dtype
        checked = [check_gate_on(self.n, inst.matrix, inst.locs, inst.ctrl_locs,
                                 inst.ctrl_vals or None, dtype)  # ValueError, before any work
                   for inst in instructions]
        self.real = not any(np.any(g.matrix.imag) for g in checked)
        wide = [(i, g) for i, g in enumerate(checked) if len(g.locs) > fusion.MAX_QUBITS]
        if wide:  # the stage kernels are generated for up to 2**MAX_QUBITS columns
            raise NotImplementedError(
                f"fused runs gates on up to {fusion.MAX_QUBITS} targets (any number of "
                f"controls); gate {wide[0][0]} has {len(wide[0][1].locs)}")
        if block is not None and (isinstance(block, bool) or not isinstance(
                block, (int, np.integer)) or block < 1):
            raise ValueError(f"block must be a positive number of qubits (log2 of a chunk's "
                             f"amplitudes) or None (from the L2 size), got {block!r}")
        self.block = block_qubits(dtype) if block is None else int(block)
        n_gates = len(instructions)
        # every uncontrolled X folded into the gates after it (fusion.x_frame): a sweep
        # of a chunk each, that no block would have taken
        instructions = fusion.x_frame(instructions)
        # at each width: fused before the cut into stages (blocks that span a layer) or
        # within each stage (blocks that never widen a stage); the planner prices each
        # plan with this machine's constants and the cheapest runs
        widths = planner.CANDIDATES if max_qubits is None else (max_qubits,)
        if layout not in (None, *LAYOUTS):
            raise ValueError(f"layout must be one of {LAYOUTS} or None (default_layout), "
                             f"got {layout!r}")
        w = run_bits(dtype)
        if layout == "split" and self.n < w:
            raise ValueError(f"the split layout needs at least {w} qubits in {dtype} "
                             f"(one register of amplitudes), got n = {self.n}")
        layouts = (layout or default_layout(self.n, dtype),)
        # merges weighed by what gates cost on this machine, a block by the qubits it
        # mixes: the stages run it as its pieces (fusion.pieces)
        priced = planner.prices(dtype.name)
        plans = []
        for k in widths:
            within = lambda gates, k=k: fusion.fuse(  # noqa: E731
                gates, k, prices=priced, multiplex=True)
            before = fusion.fuse(instructions, k, prices=priced, multiplex=True)
            for x in layouts:
                cut = stages.plan if x == "staged" else split.plan
                extra = {"itemsize": dtype.itemsize} if x == "split" else {}
                plans += [(x, k, cut(instructions, self.n, self.block, w, within, **extra)),
                          (x, k, cut(before, self.n, self.block, w, **extra))]
        if layout is None:
            # a circuit whose staged plan copies no chunk (every gate one pass of the
            # stride kernels, stages.plan: a lone one-qubit gate) needs no rewrite either:
            # where the split layout's two would cost more, the staged runs. Once, not per
            # width: a wider fusion only merges gates into ones a stage would copy
            direct = stages.plan(instructions, self.n, self.block, w,
                                 lambda gates: fusion.fuse(gates, 1, prices=priced))
            if not any(s.chunked for s in direct):
                plans.append(("staged", widths[0], direct))
        self.layout, self.max_qubits, steps = min(
            plans, key=lambda p: planner.seconds(p[2], self.n, dtype))
        ftype = np.empty(0, dtype).real.dtype
        self.steps = []
        for step in steps:
            # each step's generated loops (serial, parallel) found once, here
            if isinstance(step, split.Rewrite):
                self.steps.append(("convert", split.loops("convert", 1 << w), 1 << w,
                                   ((1 << self.n) >> w, step.split)))
                continue
            if isinstance(step, split.Step):
                self.steps.append(("stage", split.loops("stage", 1 << w), 1 << w, (
                    step.outer, step.ops, step.offs, *entries(step.matrix, ftype))))
                continue
            if isinstance(step, stages.Wide):
                g = step.gate
                # threaded: the stride kernels, split across numba's threads where a
                # state is large enough for that to pay
                self.steps.append(bind_gate(threaded, self.n, g.matrix, g.locs, g.ctrl_locs,
                                            g.ctrl_vals or None, dtype=dtype))
                continue
            blo, bhi, _, _, btile = step.back  # the lanes and the table split are the same
            args = (step.outer, *step.tables, blo, bhi, btile, step.ops, step.offs,
                    *entries(step.matrix, ftype))
            run = 1 << step.w
            self.steps.append(("staged", (_LOOPS[run, False], _LOOPS[run, True]), run, args))
        self.stages = [s for s in steps if s.chunked]
        self.info = {
            "max_qubits": self.max_qubits, "chosen": max_qubits is None,
            "block_qubits": min(self.block, self.n),
            "layout": self.layout,
            "run_length": (1 << w if self.layout == "split" else
                           1 << max((s.w for s in self.stages), default=0)),
            "gates": n_gates,
            "fused_gates": len(stages.gates_of(steps)),
            "stages": len(self.stages),
            "wide": sum(1 for s in steps if s.gates and not s.chunked),
            "rewrites": sum(1 for s in steps if isinstance(s, split.Rewrite)),
            "passes": len(steps), "isa": isa(),
            # the cost model's price of the plan, per amplitude (fusion's unit)
            "modelled_cost": modelled_cost([s for s in steps if s.gates], self.n, dtype),
        }
        # what two settings that compile to the same program share: harness circuit
        # shows them as one row naming both
        self.info["digest"] = digest(self.layout, self.block, steps)
        self.work = planner.roofline_work(steps)
        self.info["work"] = self.work._asdict()  # what the roofline is made of
        self.info["planned_seconds"] = planner.seconds(steps, self.n, dtype)
        self._buffers = {}

    def buffers(self, workers):
        if workers not in self._buffers:
            ftype = np.empty(0, self.dtype).real.dtype
            # the split layout works in place, and a plan without stages copies no
            # chunk: no chunk buffers, only the scratch
            size = 1 << min(self.block, self.n) if self.layout == "staged" and self.stages else 0
            scratch = (1 << fusion.MAX_QUBITS) * max(simd.RUN_LENGTHS)
            self._buffers[workers] = staggered(workers, (size, size, scratch, scratch),
                                               ftype)
        return self._buffers[workers]

    def __call__(self, state):
        check_state(state, self.n, self.dtype, self.real, "fused")
        threads = numba.get_num_threads()
        parallel = bool(threads > 1 and self.stages and self.n > self.block)
        buffers = self.buffers(threads if parallel else 1)
        flat = state.view(state.real.dtype)
        for step in self.steps:
            if callable(step):
                step(state)
                continue
            how, loops, run, args = step
            loop = loops[parallel]
            if how == "staged":
                loop(state, *args, *buffers)
            elif how == "convert":
                loop(flat, *args)
            else:  # the floats from R on: every run's imaginary parts (split's doc)
                loop(flat, flat[run:], *args, *buffers[2:])
        return state


def entries(matrix, ftype):
    """(real parts, imaginary parts) of a step's complex ``matrix`` as ``ftype`` arrays on a
    cache line: a lane gate loads its per-lane entries as whole vectors (split.step starts
    each on one), and numpy's own arrays start 16 bytes past a line here, so that every
    such load straddled two lines. Aligned, the three-qubit lane gates of the brickwork
    circuit ran in 0.82x the time (complex64, a stage in L2, one thread)."""
    return tuple(states.aligned(part, ftype) for part in (matrix.real, matrix.imag))


def digest(layout, block, steps):
    """16 hex digits naming a plan: its layout, chunk size and every step's tables,
    gates and matrices. Two plans with one digest run the same arithmetic."""
    h = hashlib.sha256(f"{layout} {block}".encode())

    def feed(value):
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, tuple):  # steps, instructions and their fields
            h.update(f"{type(value).__name__}(".encode())
            for item in value:
                feed(item)
            h.update(b")")
        else:
            h.update(repr(value).encode())
    for step in steps:
        feed(step)
    return h.hexdigest()[:16]


def check_state(state, n, dtype, real, name):
    """ValueError (NotImplementedError for a real state that could hold a real circuit's
    result) unless ``state`` is a contiguous, writeable vector of 2**n amplitudes of
    ``dtype``: what a program checks before it touches the state."""
    shape = (1 << n,)
    flags = getattr(state, "flags", None)
    if isinstance(state, np.ndarray) and state.dtype.char not in NUMBA_DTYPES:
        if state.dtype.kind == "f" and real:  # it could hold the result
            raise NotImplementedError(f"{name} runs complex128 and complex64 states, "
                                      f"not {state.dtype}")
        raise ValueError(f"state of dtype {state.dtype} cannot hold this circuit's "
                         "complex amplitudes")
    if not (isinstance(state, np.ndarray) and state.shape == shape
            and state.dtype == dtype and flags.c_contiguous and flags.writeable):
        raise ValueError(f"state must be a contiguous, writeable array of shape {shape} "
                         f"and dtype {dtype}, got "
                         f"{getattr(state, 'shape', type(state).__name__)} "
                         f"{getattr(state, 'dtype', '')}")


def check_n(n):
    """n as an int; ValueError unless a positive number of qubits."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    return int(n)


def compile(instructions, n, dtype=np.complex128, max_qubits=None, block=None,
            layout=None):
    """The program that runs ``instructions`` on n-qubit states of ``dtype`` in place,
    fused to at most ``max_qubits`` per gate in the ``layout`` (one of :data:`LAYOUTS`);
    None: what the planner prices cheapest on this machine, :mod:`.planner`."""
    return Program(instructions, n, dtype, max_qubits, block, layout)


class FusedRunner(KernelRunner):
    """The fused backend as a backend (kernels.statevector.backend): a circuit compiled
    once at the fusion setting (its default where the default is asked for); what the
    last program did (fused gates, stages, passes, ISA) is in ``info``."""

    def __init__(self, module, precision, fusion=None):
        super().__init__(module, precision)
        self.max_qubits = BACKEND.resolve(fusion)

    def program(self, instructions, n):
        program = compile(instructions, n, self.dtype, max_qubits=self.max_qubits)
        self.info = program.info
        return program


BACKEND = Backend(
    name="fused", role="fusing", precisions=("complex128", "complex64"),
    runner=kernel_runner(__name__, FusedRunner), threads="numba", one_gate=False,
    # default None: the width is chosen per circuit, by the planner's model of this
    # machine (kernels.statevector.fused.planner)
    fusion=FusionFacts(settings=FUSION, default=None,
                       rule=f"kernels.statevector.fusion.fuse at the width "
                            f"({planner.CANDIDATES[0]}-{planner.CANDIDATES[-1]} qubits) the "
                            "planner prices cheapest with this machine's constants, then "
                            "cache-blocked stages of packed-SIMD kernels"),
    tuned=True, flushes_subnormals=subnormals.OURS,
    describe={"driven": "kernels.statevector.fused.compile, once; one call per circuit",
              "isa": isa(), "l2_bytes": str(cache_sizes()[2])})
