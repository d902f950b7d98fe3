"""Python code from the source engine's SSA form: a primal that computes the value and
records what the adjoint needs, and the adjoint, a closure that replays it in reverse.

The adjoint is generated first, walking each block backwards: it decides which values each
block inside a loop must push on its loop's stack (those its adjoint reads), which branches
and loops must be recorded at all (those a gradient flows through), and where each gradient
variable starts. A gradient is assigned directly at its first contribution when that
contribution is certain to run (straight-line code: no ``None`` test, no accumulation), and
set to ``None`` before the first construct (a branch, a loop, a ``None`` test) that may
contribute to it otherwise. Gradients that may be ``None`` are tested before their
pullback runs; gradients that may be sparse (indexing's Scatter) are made dense first.

While it is generated, the adjoint notes how it names each value: for its numbers (a vjp
that reads it), for its type and shape only (``acc``'s third argument, an argument or
output a vjp never reads: rules/reads.py says which) or as an argument or output of a
call dispatched at run time, whose pullback only a rule reads. The primal then keeps
each value as little as that allows (a value's *keep*): a loop's body pushes a shape-only
value's ``like`` (runtime.like), a zero-stride stand-in, and code that runs once per call
frees each value after its last use in the primal, or swaps it for its like there, so
that the adjoint's closure holds only what it reads.
"""

import ast
import linecache
from collections import Counter
from typing import NamedTuple

from ..rules import reads as _reads
from .ir import Build, Copy, If, Loop, Op, Plain, Ref, Unpack, Value

#: How the adjoint names a value: for its numbers, or only for its type and shape. (A
#: third way, an argument or output of a call dispatched at run time, is a Reader.)
FULL, SHAPE = "full", "shape"


def _loads(lines):
    """Names a sequence of generated lines reads."""
    tree = _tree(lines)
    if tree is None:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _names(lines):
    """Names a sequence of generated lines reads or assigns."""
    tree = _tree(lines)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree else set()


def _tree(lines):
    if not lines:
        return None
    base = min(d for d, _ in lines)
    return ast.parse("\n".join("    " * (d - base) + t for d, t in lines))


def _has_code(lines):
    return any(not t.startswith("#") for _, t in lines)


def _tuple(items):
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


class _StreamGrad(NamedTuple):
    """A loop's stream in the adjoint: the sequence, the element value and the variable
    ``grad`` that gathers the element cotangents into the sequence's."""

    seq: Ref
    elem: Value
    grad: str


class Reader(NamedTuple):
    """A value named as argument ``position`` (-1: the output) of the call whose pullback
    is ``back`` and whose differentiated arguments are the bits of ``parents``: read for
    its numbers only where ``back`` is a rule whose vjps read it (runtime.like_unless)."""

    back: Value
    position: int
    parents: int


def _keeps(named, lines):
    """Each value name the adjoint ``lines`` load -> FULL, SHAPE or a tuple of Readers,
    from ``named``, the (name, how) the adjoint noted as it named them. A name loaded more
    often than noted was named somewhere no note was made: FULL, the safe answer."""
    tree = _tree(lines)
    loads = Counter(n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load)) if tree else Counter()
    hows = {}
    for name, how in named:
        hows.setdefault(name, []).append(how)
    keeps = {}
    for name, count in loads.items():
        found = hows.get(name, ())
        if len(found) != count or FULL in found:
            keeps[name] = FULL
        else:
            readers = tuple(h for h in found if h != SHAPE)
            keeps[name] = readers or SHAPE
    return keeps


class _Adjoint:
    def __init__(self, f):
        self.f, self.h, self.names = f, f.helper, f.names
        self.out, self.depth = [], 0
        self.state = {}  # Value -> True: its gradient is set and not None; False: may be None
        self.sparse = set()  # Values whose gradient may be a Scatter
        self.block_depth = {}
        self.pending = [set()]  # gradients to set to None before the construct being built
        self.comment = self.line = None
        self.readers = {}  # a loop's stack -> the name of its reader in the adjoint
        self.named = []  # (value name, FULL | SHAPE | Reader): each time the adjoint names one

    def name(self, ref, how):
        """Note that the adjoint names ``ref`` (a Ref or a Value) ``how``; its text."""
        v = ref.value if isinstance(ref, Ref) else ref
        if v is not None:
            self.named.append((v.name, how))
        return str(ref)

    def reader(self, stack):
        """The adjoint reads a loop's stack from its end through an iterator made when the
        adjoint starts, never popping it: the adjoint can be replayed (jacobian pulls back
        each output row through one primal run)."""
        if stack not in self.readers:
            self.readers[stack] = self.names.numbered("_rd")
        return self.readers[stack]

    def g(self, v):
        if v.grad is None:
            v.grad = self.names.exact(("_g" if v.name[0] == "_" else "_g_") + v.name)
        return v.grad

    def emit(self, text):
        if self.comment is not None:
            self.out.append((self.depth, f"# line {self.comment}"))
            self.comment = None
        self.out.append((self.depth, text))

    def nested(self, build):
        """Lines of a construct one level deeper; gradients it first sets that belong to
        this level are set to None just before it."""
        outer, self.out = self.out, []
        self.depth += 1
        self.pending.append(set())
        build()
        inner, pending = self.out, self.pending.pop()
        self.depth -= 1
        self.out = outer
        mine = [v for v in pending if self.block_depth.get(v.owner) == self.depth]
        for v in sorted(mine, key=lambda v: v.name):
            self.emit(f"{self.g(v)} = None")
        self.pending[-1].update(v for v in pending if v not in mine)
        return inner

    def splice(self, header, inner):
        self.emit(header)
        self.out.extend(inner)

    def contribute(self, ref, ct, definite, dense, shaped=False):
        """Add the cotangent expression ``ct`` to ``ref``'s gradient (``shaped``: ``ct`` has
        the value's shape already, so its first contribution needs no accumulate)."""
        v = ref.value
        if v is None or not v.active:
            return
        g, state = self.g(v), self.state.get(v)
        if not dense:
            self.sparse.add(v)
        if state is None and self.block_depth.get(v.owner) == self.depth:
            self.emit(f"{g} = {ct}" if shaped
                      else f"{g} = {self.h('acc')}(None, {ct}, {self.name(v, SHAPE)})")
            self.state[v] = definite
            return
        if state is None:
            self.pending[-1].add(v)
            self.state[v] = False
        self.emit(f"{g} = {self.h('acc')}({g}, {ct}, {self.name(v, SHAPE)})")

    def guarded(self, v, build):
        """Run ``build`` where ``v``'s gradient is known to be set, testing it if needed."""
        state = self.state.get(v)
        if state is None:
            return
        if state:
            build()
            return
        inner = self.nested(build)
        if _has_code(inner):
            self.splice(f"if {self.g(v)} is not None:", inner)

    def restore(self, block, inner):
        """Prepend the pop of what ``block`` saved (blocks inside a loop only)."""
        if block.loop is not None and _has_code(inner):
            loads = _loads(inner)
            block.saved = [v for v in block.defs if v.name in loads]
            if block.saved:
                names = ", ".join(v.name for v in block.saved)
                inner.insert(0, (self.depth + 1,
                                  f"{names} = {self.reader(block.loop.stack)}()"))
        return inner

    # -- statements, in reverse ----------------------------------------------------------------

    def block(self, b):
        self.block_depth[b] = self.depth
        for s in reversed(b.stmts):
            if s.line != self.line and not isinstance(s, Copy):
                self.comment = self.line = s.line
            if isinstance(s, Op):
                self.guarded(s.out, lambda s=s: self.op(s))
            elif isinstance(s, Build):
                self.guarded(s.out, lambda s=s: self.build(s))
            elif isinstance(s, Unpack):
                self.unpack(s)
            elif isinstance(s, Copy):
                self.copy(s)
            elif isinstance(s, If):
                self.branches(s)
            elif isinstance(s, Loop):
                self.loop(s)
            else:
                assert isinstance(s, Plain)
        self.comment = None

    def op(self, s):
        g = self.g(s.out)
        if s.out in self.sparse:
            self.emit(f"{g} = {self.h('dense')}({g})")
        if s.vjps is not None:
            for a, vjp in zip(s.args, s.vjps):
                if vjp is not None and a.active:
                    self.contribute(a, f"{vjp}({g}, {self.static_args(s, vjp)})", True,
                                    not s.scatter, s.exact)
            return
        refs = s.args + [r for _, r in s.kwargs]
        active = tuple(i for i, r in enumerate(refs) if r.active)
        if not active:
            return
        which = active[0] if len(active) == 1 else active
        call = f"{self.h('pull')}({self.name(s.back, FULL)}, {g}, {self.dynamic_args(s, which)})"
        if len(active) == 1:
            self.contribute(refs[active[0]], call, True, True, True)
            return
        c = self.names.numbered("_c")
        self.emit(f"{c} = {call}")
        for j, i in enumerate(active):
            self.contribute(refs[i], f"{c}[{j}]", True, True, True)

    def static_args(self, s, vjp):
        """``ans, *args, **kwargs`` of a call of ``vjp``, each noted as what it reads."""
        ans_read, positions = _reads.reads(self.f.helpers[vjp], 1)
        texts = [self.name(s.out, FULL if ans_read else SHAPE)]
        texts += [self.name(a, FULL if positions is None or i in positions else SHAPE)
                  for i, a in enumerate(s.args)]
        return ", ".join(texts + [f"{k}={self.name(v, FULL)}" for k, v in s.kwargs])

    def dynamic_args(self, s, which):
        """``ans, which, *args, **kwargs`` of ``pull`` for a call dispatched at run time."""
        parents = sum(1 << i for i, a in enumerate(s.args) if a.active)
        texts = [self.name(s.out, Reader(s.back, -1, parents)), str(which)]
        texts += [self.name(a, Reader(s.back, i, parents)) for i, a in enumerate(s.args)]
        return ", ".join(texts + [f"{k}={self.name(v, FULL)}" for k, v in s.kwargs])

    def build(self, s):
        g = self.g(s.out)
        for i, item in enumerate(s.items):
            self.contribute(item, f"{g}[{i}]", False, False)

    def unpack(self, s):
        grads = [self.g(v) if self.state.get(v) is not None else "None" for v in s.outs]
        if any(g != "None" for g in grads):
            self.contribute(s.src, f"{self.h('pack')}({self.name(s.src, FULL)}, "
                            f"{_tuple(grads)})", False, False)

    def copy(self, s):
        state = self.state.get(s.dst)
        if state is not None:
            self.contribute(s.src, self.g(s.dst), state, s.dst not in self.sparse, True)

    def branches(self, s):
        parts = []
        for i, b in enumerate(s.blocks):
            inner = self.nested(lambda b=b: self.block(b))
            if _has_code(inner):
                parts.append((i, self.restore(b, inner)))
        for j, (i, inner) in enumerate(parts):
            self.splice(f"{'if' if j == 0 else 'elif'} {self.name(s.branch, FULL)} == {i}:",
                        inner)
        s.recorded = bool(parts)

    def loop(self, s):
        if all(self.state.get(c.after) is None for c in s.carried):
            return  # nothing computed in the loop reaches the result
        s.recorded = True
        # A header gradient is carried from one iteration of the adjoint to the one before:
        # assume it set and dense when it is so after the loop, check that the body keeps
        # it so, and generate again without the assumption where it does not.
        sure = {c.head: self.state.get(c.after) is True and c.after not in self.sparse
                for c in s.carried if c.head.active}
        state, sparse, n_out = dict(self.state), set(self.sparse), len(self.out)
        pending, n_named = set(self.pending[-1]), len(self.named)
        while True:
            inner, k, streams = self._loop(s, sure)
            wrong = [h for h in sure if sure[h] and (self.state.get(h) is not True
                                                     or h in self.sparse)]
            if not wrong:
                break
            self.state, self.sparse = dict(state), set(sparse)
            del self.out[n_out:], self.named[n_named:]
            self.pending[-1] = set(pending)
            sure.update(dict.fromkeys(wrong, False))
        self.splice(f"for {k} in range({self.name(s.count, FULL)} - 1, -1, -1):", inner)
        for st in streams:
            self.contribute(st.seq, st.grad, False, False)
        for c in s.carried:
            if c.entry is not None and c.head.active:
                self.contribute(c.entry, self.g(c.head), sure[c.head],
                                c.head not in self.sparse, True)

    def _loop(self, s, sure):
        """The adjoint of loop ``s``'s body, run backwards; its loop variable and the
        :class:`_StreamGrad` of each stream."""
        k = self.names.numbered("_k")
        streams = [_StreamGrad(st.seq, st.elem, self.names.numbered("_gs")) for st in s.streams]
        carried = [c for c in s.carried if c.head.active]
        for c in carried:
            self.emit(f"{self.g(c.head)} = {self.g(c.after) if c.after in self.state else None}")
        for st in streams:
            self.emit(f"{st.grad} = None")

        def body():
            self.block_depth[s.body] = self.depth
            for c in carried:
                h = c.head
                if c.end is not None:
                    self.contribute(c.end, self.g(h), sure[h], sure[h], True)
                self.state.pop(h, None)  # restarts: the body's uses of h set it
                if not sure[h]:
                    self.sparse.add(h)
            self.block(s.body)
            for c in carried:
                if c.head not in self.state:
                    self.emit(f"{self.g(c.head)} = None")
            for st in streams:
                if st.elem in self.state:
                    self.emit(f"{st.grad} = {self.h('acc_item')}({st.grad}, "
                              f"{self.name(st.seq, FULL)}, {k}, {self.g(st.elem)})")

        return self.restore(s.body, self.nested(body)), k, streams

    def run(self, seed):
        f = self.f
        self.block_depth[f.body] = 0
        if f.result.active:
            self.emit(f"{self.g(f.result.value)} = {seed}")
            self.state[f.result.value] = True
        self.block(f.body)
        self.emit("return " + _tuple([self.g(p) if p in self.state else "None"
                                     for p in f.params]))
        return self.out


class _Primal:
    def __init__(self, f, keeps):
        self.f, self.out, self.depth, self.line, self.stacks = f, [], 0, None, {}
        self.keeps, self.result = keeps, None
        self.source = linecache.getlines(f.filename)

    def emit(self, text):
        self.out.append((self.depth, text))

    def block(self, b):
        start, starts = len(self.out), []
        for s in b.stmts:
            starts.append(len(self.out))
            if s.line != self.line and not isinstance(s, Copy):  # a join: the line goes on
                self.line = s.line
                text = self.source[s.line - 1].strip() if s.line <= len(self.source) else ""
                self.emit(f"# line {s.line}: {text[:72]}{'...' if len(text) > 72 else ''}")
            if isinstance(s, Plain):
                self.emit(s.text)
            elif isinstance(s, Op) and s.vjps is not None:
                self.emit(f"{s.out} = {s.primal}")
            elif isinstance(s, Op):
                args = ([s.callee] if s.callee else []) + [str(a) for a in s.args]
                args += [f"{k}={v}" for k, v in s.kwargs] + ([s.extra] if s.extra else [])
                self.emit(f"{s.out}, {s.back} = {s.via}({', '.join(args)})")
            elif isinstance(s, Build):
                items = [str(a) for a in s.items]
                self.emit(f"{s.out} = " + (_tuple(items) if s.brackets == "()" else
                                           f"[{', '.join(items)}]"))
            elif isinstance(s, Unpack):
                self.emit(f"{', '.join(v.name for v in s.outs)}"
                          f"{',' if len(s.outs) == 1 else ''} = {s.src}")
            elif isinstance(s, Copy):
                self.emit(f"{s.dst} = {s.src}")
            elif isinstance(s, If):
                self.branches(s)
            else:
                self.loop(s)
        if b.saved:
            self.stacks[b.loop.stack] = True
            names = [self.kept(v) or v.name for v in b.saved]
            self.emit(f"{b.loop.stack}.append({names[0] if len(names) == 1 else _tuple(names)})")
        elif b.loop is None:
            self.release(b, starts)
        return len(self.out) > start

    def kept(self, v):
        """What the primal keeps of ``v`` for the adjoint, as Python text (None: ``v``
        itself)."""
        keep = self.keeps.get(v.name, FULL)
        if keep == SHAPE:
            call = f"{self.f.helper('like')}({v})"
        elif keep == FULL or any(r.back.owner is not v.owner for r in keep):
            return None  # (a pullback recorded elsewhere: the last one when this runs)
        else:
            readers = ", ".join(f"({r.back}, {r.position}, {r.parents})" for r in keep)
            call = f"{self.f.helper('like_unless')}({v}, {readers})"
        # the type tested inline: most values of a scalar loop are floats, and a call per
        # value and iteration would cost such a loop a tenth of its time
        h = self.f.helper
        return f"({call} if {h('type')}({v}) in {h('liked')} else {v})"

    def release(self, b, starts):
        """After each value's last use in ``b``, a block that runs at most once per call,
        free it if the adjoint does not name it, or keep only what the adjoint reads. The
        result is kept until the return (``returned``)."""
        last = {}
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(self.out)
            for name in _names(self.out[start:end]):
                last[name] = k
        partial = set()  # an if's values assigned on some of its paths only
        for s in b.stmts:
            if isinstance(s, If):
                assigned = [{c.dst for c in block.stmts if isinstance(c, Copy)}
                            for block in s.blocks]
                partial |= set.union(*assigned) - set.intersection(*assigned)
        swaps, dels = {}, {}  # statement -> what follows it
        for v in b.defs:
            if v.name not in last or v in partial or v in self.f.params:
                continue
            if v is self.f.result.value:
                self.result = v
            elif v.name not in self.keeps:
                dels.setdefault(last[v.name], []).append(v.name)
            elif (text := self.kept(v)) is not None:
                swaps.setdefault(last[v.name], []).append(f"{v} = {text}")
        for k in sorted(swaps.keys() | dels.keys(), reverse=True):
            end = starts[k + 1] if k + 1 < len(starts) else len(self.out)
            lines = swaps.get(k, []) + ([f"del {', '.join(dels[k])}"] if k in dels else [])
            self.out[end:end] = [(self.depth, t) for t in lines]

    def returned(self):
        """The name the primal returns its result by: the result itself, or a second
        name for it where the adjoint keeps only its like (the primal's caller has it)."""
        v = self.result
        text = None if v is None or v.name not in self.keeps else self.kept(v)
        if text is None:
            return str(self.f.result)
        name = self.f.names.exact("_value")
        self.emit(f"{name} = {v}")
        self.emit(f"{v} = {text}")
        return name

    def indented(self, build):
        self.depth += 1
        if not build():
            self.emit("pass")
        self.depth -= 1

    def branches(self, s):
        for i, (test, b) in enumerate(zip(s.tests, s.blocks)):
            if test is None and not b.stmts and not s.recorded:
                continue
            self.emit("else:" if test is None else f"{'if' if i == 0 else 'elif'} {test}:")

            def build(i=i, b=b):
                if s.recorded:
                    self.emit(f"{s.branch} = {i}")
                return self.block(b) or s.recorded
            self.indented(build)

    def loop(self, s):
        for c in s.carried:
            self.emit(f"{c.head} = {c.entry}")
        if s.recorded:
            self.emit(f"{s.count} = 0")
        self.emit(s.header)

        def build():
            wrote = self.block(s.body)
            for c in s.carried:
                if c.end is not None:
                    self.emit(f"{c.head} = {c.end}")
                    wrote = True
            if s.recorded:
                self.emit(f"{s.count} += 1")
            if s.exit is not None:
                self.emit(f"if {s.exit}:")
                self.emit("    break")
            return wrote or s.recorded or s.exit is not None
        self.indented(build)
        for c in s.carried:
            self.emit(f"{c.after} = {c.head}")


def generate(f):
    """The source text of a factory ``_make(*helpers, *freevars)`` returning the primal,
    which returns ``(value, adjoint)``; ``adjoint(g)`` returns one cotangent per parameter."""
    names = f.names
    seed, adjoint_name = names.exact("_g"), names.exact("_adjoint")
    maker = _Adjoint(f)
    adjoint = maker.run(seed)  # first: decides what the primal records
    readers = maker.readers
    primal = _Primal(f, _keeps(maker.named, adjoint))
    primal.depth = 2
    primal.block(f.body)
    returned = primal.returned()
    lines = [(0, f"# {f.name}: primal and adjoint generated by kernels.ad.source from "
                 f"{f.filename}, line {f.line}"),
             (0, f"def _make({', '.join(list(f.helpers) + f.freevars)}):"),
             (1, f"def {f.name}({f.signature}):")]
    lines += [(2, f"{stack} = []") for stack in primal.stacks]
    lines += primal.out
    lines += [(2, f"def {adjoint_name}({seed}):")]
    lines += [(3, f"{reader} = reversed({stack}).__next__") for stack, reader in readers.items()]
    lines += [(d + 3, t) for d, t in adjoint]
    lines += [(2, f"return {returned}, {adjoint_name}"), (1, f"return {f.name}")]
    return "\n".join("    " * d + t for d, t in lines) + "\n"
