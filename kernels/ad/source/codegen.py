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
"""

import ast
import linecache
from typing import NamedTuple

from .ir import Build, Copy, If, Loop, Op, Plain, Ref, Unpack, Value


def _loads(lines):
    """Names a sequence of generated lines reads."""
    if not lines:
        return set()
    base = min(d for d, _ in lines)
    tree = ast.parse("\n".join("    " * (d - base) + t for d, t in lines))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


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
            self.emit(f"{g} = {ct}" if shaped else f"{g} = {self.h('acc')}(None, {ct}, {v})")
            self.state[v] = definite
            return
        if state is None:
            self.pending[-1].add(v)
            self.state[v] = False
        self.emit(f"{g} = {self.h('acc')}({g}, {ct}, {v})")

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
        kwargs = [f"{k}={v}" for k, v in s.kwargs]
        if s.vjps is not None:
            args = ", ".join([str(a) for a in s.args] + kwargs)
            for a, vjp in zip(s.args, s.vjps):
                if vjp is not None and a.active:
                    self.contribute(a, f"{vjp}({g}, {s.out}, {args})", True, not s.scatter,
                                    s.exact)
            return
        refs = s.args + [r for _, r in s.kwargs]
        active = tuple(i for i, r in enumerate(refs) if r.active)
        if not active:
            return
        args = [str(a) for a in s.args] + kwargs
        if len(active) == 1:
            self.contribute(refs[active[0]], f"{self.h('pull')}({s.back}, {g}, {s.out}, "
                            f"{active[0]}, {', '.join(args)})", True, True, True)
            return
        c = self.names.numbered("_c")
        self.emit(f"{c} = {self.h('pull')}({s.back}, {g}, {s.out}, {active}, {', '.join(args)})")
        for j, i in enumerate(active):
            self.contribute(refs[i], f"{c}[{j}]", True, True, True)

    def build(self, s):
        g = self.g(s.out)
        for i, item in enumerate(s.items):
            self.contribute(item, f"{g}[{i}]", False, False)

    def unpack(self, s):
        grads = [self.g(v) if self.state.get(v) is not None else "None" for v in s.outs]
        if any(g != "None" for g in grads):
            self.contribute(s.src, f"{self.h('pack')}({s.src}, {_tuple(grads)})", False, False)

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
            self.splice(f"{'if' if j == 0 else 'elif'} {s.branch} == {i}:", inner)
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
        pending = set(self.pending[-1])
        while True:
            inner, k, streams = self._loop(s, sure)
            wrong = [h for h in sure if sure[h] and (self.state.get(h) is not True
                                                     or h in self.sparse)]
            if not wrong:
                break
            self.state, self.sparse = dict(state), set(sparse)
            del self.out[n_out:]
            self.pending[-1] = set(pending)
            sure.update(dict.fromkeys(wrong, False))
        self.splice(f"for {k} in range({s.count} - 1, -1, -1):", inner)
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
                    self.emit(f"{st.grad} = {self.h('acc_item')}({st.grad}, {st.seq}, {k}, "
                              f"{self.g(st.elem)})")

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
    def __init__(self, f):
        self.f, self.out, self.depth, self.line, self.stacks = f, [], 0, None, {}
        self.source = linecache.getlines(f.filename)

    def emit(self, text):
        self.out.append((self.depth, text))

    def block(self, b):
        start = len(self.out)
        for s in b.stmts:
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
            names = [v.name for v in b.saved]
            self.emit(f"{b.loop.stack}.append({names[0] if len(names) == 1 else _tuple(names)})")
        return len(self.out) > start

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
    primal = _Primal(f)
    primal.depth = 2
    primal.block(f.body)
    lines = [(0, f"# {f.name}: primal and adjoint generated by kernels.ad.source from "
                 f"{f.filename}, line {f.line}"),
             (0, f"def _make({', '.join(list(f.helpers) + f.freevars)}):"),
             (1, f"def {f.name}({f.signature}):")]
    lines += [(2, f"{stack} = []") for stack in primal.stacks]
    lines += primal.out
    lines += [(2, f"def {adjoint_name}({seed}):")]
    lines += [(3, f"{reader} = reversed({stack}).__next__") for stack, reader in readers.items()]
    lines += [(d + 3, t) for d, t in adjoint]
    lines += [(2, f"return {f.result}, {adjoint_name}"), (1, f"return {f.name}")]
    return "\n".join("    " * d + t for d, t in lines) + "\n"
