"""What the adjoint needs, decided on the lowered function before any code is written.

``prune`` removes operations whose value nothing reads (the objective and the gradient
both run without them). ``plan`` decides, once the objective is typed, what each block
saves: a value computed in a block that runs more than once per call (inside a loop) is
overwritten by the next run, so the block pushes, at its end, what the adjoint reads of
it; a value computed once stays in its local. What is read: a rule's operands as the
rule's code reads them (:mod:`.adjoints`), the shape of every active array (its zero
cotangent), and the flags and counts that replay the control flow.
"""

from .adjoints import SHAPE, VALUE, partial_reads, rule_of
from .ir import Copy, If, Loop, Op, Value


def walk(block):
    """Every statement of ``block`` and of the blocks inside it, in order."""
    for stmt in block.stmts:
        yield stmt
        if isinstance(stmt, If):
            yield from walk(stmt.then)
            yield from walk(stmt.orelse)
        elif isinstance(stmt, Loop):
            yield from walk(stmt.body)


def _operands(stmt):
    if isinstance(stmt, Op):
        return stmt.args
    if isinstance(stmt, Copy):
        return [stmt.src]
    if isinstance(stmt, If):
        return [stmt.test]
    if isinstance(stmt, Loop):
        return stmt.bounds + [c.entry for c in stmt.carried] + [c.end for c in stmt.carried]
    return []


def prune(fn):
    """Drop the operations whose output nothing reads, until none is left."""
    while True:
        used = {id(fn.result)}
        for stmt in walk(fn.body):
            used.update(id(a) for a in _operands(stmt))
        dropped = _drop(fn.body, used)
        if not dropped:
            return fn


def _drop(block, used):
    kept, dropped = [], False
    for stmt in block.stmts:
        if isinstance(stmt, Op) and id(stmt.out) not in used:
            dropped = True
            continue
        if isinstance(stmt, If):
            dropped |= _drop(stmt.then, used) | _drop(stmt.orelse, used)
        elif isinstance(stmt, Loop):
            dropped |= _drop(stmt.body, used)
        kept.append(stmt)
    block.stmts = kept
    return dropped


def differentiable(block):
    """Whether ``block`` holds work the adjoint replays."""
    return any((isinstance(s, Op) and s.adjoint is not None)
               or (isinstance(s, Copy) and s.dst.active and s.src.active)
               or (isinstance(s, Loop) and s.carried and any(c.head.active for c in s.carried))
               for s in walk(block))


class Plan:
    """``saved[id(block)]``: [(value, SHAPE | VALUE)] the block pushes at its end;
    ``where``: for a loop's head, the body (its value at the top of an iteration)."""

    def __init__(self, fn):
        self.saved = {}
        self.heads = {}  # id(head) -> its loop's body
        self.inside = {}  # id(block) -> the blocks it is nested in, innermost first
        self._index(fn.body, [])
        self._reads(fn.body)

    def _index(self, block, outer):
        self.inside[id(block)] = outer
        for stmt in block.stmts:
            if isinstance(stmt, If):
                self._index(stmt.then, [block] + outer)
                self._index(stmt.orelse, [block] + outer)
            elif isinstance(stmt, Loop):
                for c in stmt.carried:
                    self.heads[id(c.head)] = stmt.body
                self._index(stmt.body, [block] + outer)

    def defining(self, value, at):
        """The block whose run last set ``value`` as the adjoint at block ``at`` reads it."""
        body = self.heads.get(id(value))
        if body is not None and (at is body or any(b is body for b in self.inside[id(at)])):
            return body
        return value.block

    def need(self, value, what, at):
        if not isinstance(value, Value):
            return
        block = self.defining(value, at)
        if block is None or block.loop is None:
            return  # a parameter, or computed once: in its local all along
        saved = self.saved.setdefault(id(block), {})
        entry = saved.get(id(value))
        saved[id(value)] = (value, (entry[1] if entry else 0) | what)

    def saves(self, block):
        return list(self.saved.get(id(block), {}).values())

    def available(self, value, at):
        """Whether the adjoint at block ``at`` has ``value`` itself (not just its shape)."""
        block = self.defining(value, at)
        if block is None or block.loop is None:
            return True
        entry = self.saved.get(id(block), {}).get(id(value))
        return entry is not None and entry[1] & VALUE

    def _reads(self, block):
        for stmt in block.stmts:
            if isinstance(stmt, Op):
                if stmt.out.active:
                    self._array_shape(stmt.out, block)
                if stmt.adjoint is not None:
                    self._rule_reads(stmt, block)
            elif isinstance(stmt, Copy):
                if stmt.dst.active and stmt.dst.block is block:
                    self._array_shape(stmt.dst, block)
            elif isinstance(stmt, If):
                self._if_reads(stmt, block)
            elif isinstance(stmt, Loop):
                self._loop_reads(stmt, block)

    def _if_reads(self, stmt, block):
        for part in (stmt.then, stmt.orelse):
            self._reads(part)
            for s in part.stmts:  # the phis, computed in the enclosing block
                if isinstance(s, Copy) and s.dst.active:
                    self._array_shape(s.dst, block)
        if differentiable(stmt.then) or differentiable(stmt.orelse):
            self.need(stmt.flag, VALUE, block)

    def _loop_reads(self, stmt, block):
        self._reads(stmt.body)
        if differentiable(stmt.body) or any(c.head.active for c in stmt.carried):
            self.need(stmt.count, VALUE, block)
        for c in stmt.carried:
            if c.head.active:
                self._array_shape(c.head, block)  # after the loop
                self._array_shape(c.head, stmt.body)  # at the top of each iteration

    def _array_shape(self, value, at):
        if value.kind is not None and value.kind.category == "array":
            self.need(value, SHAPE, at)

    def _rule_reads(self, op, block):
        if op.adjoint == "elementwise":
            for arg, partial in zip(op.args, op.static.partials):
                if partial is None or not arg.active:
                    continue
                ans, positions = partial_reads(partial)
                if ans:
                    self.need(op.out, VALUE, block)
                for k, other in enumerate(op.args):
                    if positions is None or k in positions:
                        self.need(other, VALUE, block)
            return
        for k, what in rule_of(op).reads(op):
            self.need(op.out if k == -1 else op.args[k], what, block)

