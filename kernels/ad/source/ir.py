"""The source engine's intermediate form: a Wengert list in SSA form, with structured
control flow.

Every assignment makes a new :class:`Value` (``s = s + e`` makes ``s_1`` from ``s``), so
the adjoint can read every intermediate the primal computed; a value is *active* when it may
depend on the differentiated arguments. Blocks nest like the source (branches, loop bodies);
a value belongs to the block that computes it, and a block that runs more than once per
call (inside a loop) saves, at its end, the values its adjoint reads (``Block.saved``).
Join points get fresh values assigned on every incoming path (:class:`Copy`): the phis
after an ``if``, and a loop's header values, carried from one iteration to the next
(:class:`Carried`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .scope import Names


class Value:
    """One SSA value: its Python name in the generated code and its gradient's name."""

    __slots__ = ("name", "active", "owner", "grad")

    def __init__(self, name, active, owner):
        self.name, self.active, self.owner, self.grad = name, active, owner, None

    def __repr__(self):
        return self.name


class Ref:
    """An operand: a :class:`Value`, or Python text for a constant (a literal, a global)."""

    __slots__ = ("value", "text")

    def __init__(self, value=None, text=None):
        self.value, self.text = value, text if value is None else value.name

    @property
    def active(self):
        return self.value is not None and self.value.active

    def __str__(self):
        return self.text


class Block:
    """Statements run in sequence; ``loop`` is the innermost enclosing :class:`Loop`."""

    __slots__ = ("stmts", "loop", "defs", "saved")

    def __init__(self, loop):
        self.stmts, self.loop, self.defs, self.saved = [], loop, [], []


class Stmt:
    __slots__ = ("line",)


class Plain(Stmt):
    """Python run as written (renamed): values that cannot carry a derivative."""

    __slots__ = ("text",)

    def __init__(self, line, text):
        self.line, self.text = line, text


class Op(Stmt):
    """``out = fn(args)``, one primitive. ``static``: the rule is known now (operators,
    ``.T``, array methods) and ``vjps`` names the helper per argument (``scatter``: its
    cotangents may be sparse, as indexing's are; ``exact``: they have their argument's
    shape, no broadcasting to undo). Otherwise a call
    dispatched at run time, ``out, back = via(callee, args...)``, whose pullback ``back``
    the adjoint hands to the runtime's ``pull``."""

    __slots__ = ("out", "primal", "args", "kwargs", "vjps", "scatter", "exact", "via",
                 "callee", "extra", "back")

    def __init__(self, line, out, args, kwargs=(), primal=None, vjps=None, scatter=False,
                 exact=False, via=None, callee=None, extra="", back=None):
        self.line, self.out, self.args, self.kwargs = line, out, list(args), list(kwargs)
        self.primal, self.vjps, self.scatter, self.exact = primal, vjps, scatter, exact
        self.via, self.callee, self.extra, self.back = via, callee, extra, back


class Build(Stmt):
    """``out = [a, b, ...]`` or a tuple: the cotangent is a list, split element-wise."""

    __slots__ = ("out", "items", "brackets")

    def __init__(self, line, out, items, brackets):
        self.line, self.out, self.items, self.brackets = line, out, items, brackets


class Unpack(Stmt):
    """``a, b = src``: the element cotangents are packed back into one for ``src``."""

    __slots__ = ("outs", "src")

    def __init__(self, line, outs, src):
        self.line, self.outs, self.src = line, outs, src


class Copy(Stmt):
    """``dst = src`` on one path into a join point (an ``if``'s phi)."""

    __slots__ = ("dst", "src")

    def __init__(self, line, dst, src):
        self.line, self.dst, self.src = line, dst, src


class If(Stmt):
    """Branches with their tests (None: ``else``); ``branch`` records which one ran."""

    __slots__ = ("tests", "blocks", "branch", "recorded")

    def __init__(self, line, tests, blocks, branch):
        self.line, self.tests, self.blocks, self.branch = line, tests, blocks, branch
        self.recorded = False


class Carried(NamedTuple):
    """A name assigned in a loop's body and live around it: the value ``head`` it has at
    the top of each iteration, set from ``entry`` before the loop (None: unassigned there)
    and from ``end`` at the end of each iteration (None: the body leaves it ``head``), and
    the value ``after`` it has once the loop is done."""

    head: Value
    entry: Ref | None
    end: Ref | None
    after: Value


class Stream(NamedTuple):
    """An active sequence ``seq`` a for loop walks and the target value ``elem`` that holds
    its current element (the adjoint gathers the element cotangents into one for ``seq``)."""

    seq: Ref
    elem: Value


class Loop(Stmt):
    """``for``/``while``. ``header``: the Python header line, given the body's values.
    ``carried``: a :class:`Carried` per name assigned in the body; ``streams``: a
    :class:`Stream` for each active sequence whose elements the targets are; ``count``
    counts iterations, ``stack`` holds what the body's blocks save; ``exit``: the flag a
    ``break`` sets (the primal breaks after recording the iteration)."""

    __slots__ = ("header", "body", "carried", "streams", "count", "stack", "exit", "recorded")

    def __init__(self, line, header, body, carried, streams, count, stack):
        self.line, self.header, self.body, self.carried = line, header, body, carried
        self.streams, self.count, self.stack = streams, count, stack
        self.exit, self.recorded = None, False


@dataclass(slots=True)
class Function:
    """A lowered function: its generated ``name`` and parameter list (``signature``, as
    Python text), its parameters' values, body, returned Ref and the runtime objects the
    generated code refers to (``helpers``: generated name -> object; ``helper(key)`` binds
    one more and gives its name; ``freevars``: the closure's names; ``names`` hands out
    names free in the user's code); ``filename`` and ``line`` locate its source."""

    name: str
    signature: str
    params: list[Value]
    body: Block
    result: Ref
    helpers: dict[str, Any]
    freevars: list[str]
    filename: str
    line: int
    names: "Names"
    helper: Callable[..., str]
