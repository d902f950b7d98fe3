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
from .ir import Carried, Copy, If, Loop, Op, Value


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
        # an append stays while its list is read in any version (after an if appending on
        # one path, the list read is not the version either path made)
        lists = {getattr(a, "serial", None) for a in [fn.result] + [
            a for stmt in walk(fn.body) for a in _operands(stmt)]}
        dropped = _drop(fn.body, used, lists)
        if not dropped:
            return fn


def _drop(block, used, lists):
    kept, dropped = [], False
    for stmt in block.stmts:
        # an augmented assignment stays, read or not: where it updates an array in place,
        # the names that see the update are why it is refused (once its type is known)
        if (isinstance(stmt, Op) and id(stmt.out) not in used and not stmt.augmented
                and not (stmt.inplace and stmt.out.serial in lists)):
            dropped = True
            continue
        if isinstance(stmt, If):
            dropped |= _drop(stmt.then, used, lists) | _drop(stmt.orelse, used, lists)
        elif isinstance(stmt, Loop):
            dropped |= _drop(stmt.body, used, lists)
        kept.append(stmt)
    block.stmts = kept
    return dropped


def hoist(fn):
    """Move out of each loop the slices of values computed before it (``x[1:]`` of a
    parameter): they are the same every iteration, so they are computed once, saved never,
    and their adjoint adds the summed cotangent once after the loop's. Only slices, which
    cannot raise: an operation that may fail stays where a loop that runs no iteration
    would not run it."""
    _hoist(fn.body)
    return fn


def _hoist(block):
    out = []
    for stmt in block.stmts:
        if isinstance(stmt, If):
            _hoist(stmt.then)
            _hoist(stmt.orelse)
        elif isinstance(stmt, Loop):
            _hoist(stmt.body)
            inside = {id(c.head) for c in stmt.carried} | {id(stmt.target)}
            inside.update(id(v) for s in walk(stmt.body) for v in defined(s))
            kept = []
            for s in stmt.body.stmts:
                if (isinstance(s, Op) and s.adjoint == "getitem"
                        and "int" not in s.static[0]
                        and not any(id(a) in inside for a in s.args)):
                    s.out.block = block
                    out.append(s)
                    inside.discard(id(s.out))
                else:
                    kept.append(s)
            stmt.body.stmts = kept
        out.append(stmt)
    block.stmts = out


def defined(stmt):
    """The values ``stmt`` itself sets (not those of the blocks inside it)."""
    if isinstance(stmt, Op):
        return [stmt.out]
    if isinstance(stmt, Copy):
        return [stmt.dst]
    if isinstance(stmt, Loop):
        return [stmt.target, stmt.count] + [c.head for c in stmt.carried]
    if isinstance(stmt, If):
        return [stmt.flag]
    return []


def merge(fn):
    """Compute an operation once where the same one, on the same operands, was computed
    before it in its block or an enclosing one (the four ``x[1:]`` of an inlined helper
    called four times): its uses read the first, and its adjoint runs once, on the
    summed cotangent."""
    same = {}
    _merge(fn.body, {}, same)
    if same:
        for stmt in walk(fn.body):
            _substitute(stmt, same)
        fn.result = same.get(id(fn.result), fn.result)
    return fn


def _key(op):
    return (op.primal, op.adjoint, repr(op.static),
            tuple(id(a) if isinstance(a, Value) else a.text for a in op.args))


def _merge(block, seen, same):
    seen = dict(seen)
    kept = []
    for stmt in block.stmts:
        if isinstance(stmt, Op):
            _substitute(stmt, same)
            if stmt.fresh or stmt.inplace:  # a new list each time, or a change to one
                kept.append(stmt)
                continue
            key = _key(stmt)
            if key in seen:
                same[id(stmt.out)] = seen[key]
                continue
            seen[key] = stmt.out
        elif isinstance(stmt, If):
            _substitute(stmt, same)
            _merge(stmt.then, seen, same)
            _merge(stmt.orelse, seen, same)
        elif isinstance(stmt, Loop):
            _substitute(stmt, same)
            _merge(stmt.body, seen, same)
        kept.append(stmt)
    block.stmts = kept


def _substitute(stmt, same):
    if isinstance(stmt, Op):
        stmt.args = [same.get(id(a), a) for a in stmt.args]
    elif isinstance(stmt, Copy):
        stmt.src = same.get(id(stmt.src), stmt.src)
    elif isinstance(stmt, If):
        stmt.test = same.get(id(stmt.test), stmt.test)
    elif isinstance(stmt, Loop):
        stmt.bounds = [same.get(id(b), b) for b in stmt.bounds]
        stmt.carried = [Carried(c.head, same.get(id(c.entry), c.entry),
                                same.get(id(c.end), c.end)) for c in stmt.carried]


def differentiable(block):
    """Whether ``block`` holds work the adjoint replays."""
    return any((isinstance(s, Op) and s.differentiated)
               or (isinstance(s, Copy) and s.dst.active and s.src.active)
               or (isinstance(s, Loop) and s.carried and any(c.head.active for c in s.carried))
               for s in walk(block))


class Plan:
    """``saved[id(block)]``: [(value, SHAPE | VALUE)] the block pushes at its end;
    ``where``: for a loop's head, the body (its value at the top of an iteration).

    A list's "shape" is its length, which a later append changes under the same name: so
    the primal notes it in a variable of each version's own (:meth:`length`) where the
    version is made, and the tape keeps that.

    A view (an element or a slice) of an array that stays as it is (a parameter's, a
    datum's, one computed outside every loop: nothing here writes into an array), or of
    such a view, is not pushed: the adjoint takes it again from its base, after its
    block's pops (:meth:`recomputed`), and the tape keeps only its indices. lstm's weights,
    sliced from the parameters in every step, were a third of its pushes."""

    def __init__(self, fn):
        self.saved = {}
        self.lengths = {}  # id(list version) -> the name of the variable of its length
        self.heads = {}  # id(head) -> its loop's body
        self.inside = {}  # id(block) -> the blocks it is nested in, innermost first
        self.uses = {}  # id(value) -> its reads (2 for one in another block: maybe many)
        self.computed = {id(s.out) for s in walk(fn.body) if isinstance(s, Op)}
        self.views = {id(s.out): s for s in walk(fn.body) if isinstance(s, Op)
                      and s.adjoint == "getitem" and _kind_is(s.args[0], "array")}
        self.again = {}  # id(block) -> {id(view): its op}, the views taken again there
        self._index(fn.body, [])
        self._count(fn.body)
        self.uses[id(fn.result)] = 2
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

    def _count(self, block):
        for stmt in block.stmts:
            for a in _operands(stmt):
                if isinstance(a, Value):
                    self.uses[id(a)] = self.uses.get(id(a), 0) + (
                        1 if a.block is block and id(a) not in self.heads else 2)
            if isinstance(stmt, If):
                self._count(stmt.then)
                self._count(stmt.orelse)
            elif isinstance(stmt, Loop):
                self._count(stmt.body)

    def fusable(self, value):
        """Whether the cotangent of ``value`` may stay an expression until the adjoint of
        the operation computing it reads it: a float or an array read once, computed by an
        operation (not a phi or a loop's head, whose cotangents are read by name)."""
        # read once, in the block computing it: its cotangent is that one term
        return (self.uses.get(id(value), 0) == 1 and id(value) in self.computed
                and value.kind is not None and value.kind.category in ("float", "array"))

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
        if self._stable_view(value):
            view = self.views[id(value)]
            self.again.setdefault(id(block), {})[id(value)] = view
            for a in view.args:  # its base and its indices, where its block takes it
                self.need(a, VALUE, block)
            return
        saved = self.saved.setdefault(id(block), {})
        entry = saved.get(id(value))
        saved[id(value)] = (value, (entry[1] if entry else 0) | what)

    def length(self, value):
        """The name of the variable holding the length of the list version ``value``."""
        found = self.lengths.get(id(value))
        if found is None:
            found = self.lengths[id(value)] = f"n_{value.name}_{len(self.lengths)}"
        return found

    def _stable_view(self, value):
        """Whether ``value`` is a view of an array no later statement changes (see the
        class): a parameter's or datum's, one computed outside the loops, or such a view's."""
        view = self.views.get(id(value))
        if view is None or id(value) in self.heads:
            return False
        base = view.args[0]
        if not isinstance(base, Value) or base.block is None:
            return True
        if id(base) in self.heads:  # a loop's head changes in every iteration
            return False
        return base.block.loop is None or self._stable_view(base)

    def recomputed(self, block):
        """The views ``block``'s adjoint takes again (after its pops), in the primal's
        order: each after the view it is taken from."""
        found = self.again.get(id(block), {})
        return [s for s in block.stmts if isinstance(s, Op) and id(s.out) in found]

    def saves(self, block):
        return list(self.saved.get(id(block), {}).values())

    def available(self, value, at):
        """Whether the adjoint at block ``at`` has ``value`` itself (not just its shape)."""
        block = self.defining(value, at)
        if block is None or block.loop is None or id(value) in self.again.get(id(block), {}):
            return True
        entry = self.saved.get(id(block), {}).get(id(value))
        return entry is not None and entry[1] & VALUE

    def _reads(self, block):
        for stmt in block.stmts:
            if isinstance(stmt, Op):
                if stmt.out.active:
                    self._array_shape(stmt.out, block)
                if stmt.differentiated:
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
        """What a zero cotangent of ``value`` is made from: an array's shape, a list's
        length."""
        if value.kind is not None and value.kind.category in ("array", "list"):
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


def _kind_is(ref, category):
    return getattr(ref, "kind", None) is not None and ref.kind.category == category
