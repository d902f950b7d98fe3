"""The compiled engine's intermediate form: a Wengert list in SSA form with structured
control flow, every operation one the emitter knows how to write for numba (a primal
statement and, for a differentiable one, its adjoint).

A list is the one mutable value: ``L.append(x)`` makes a new version of ``L`` (a new
:class:`Value`) that is the same object, so every version of one list has one name in the
generated code (numba types a list from the appends made to its own name), and so has
its cotangent, a list of the elements' cotangents.

Every assignment makes a new :class:`Value`; a loop's carried names get a header value
(``Carried.head``) assigned before the loop and at the end of each iteration, and an
``if``'s phis a value each branch assigns. A value is *active* when it may depend on a
differentiated argument. What the adjoint reads of a value (its contents, or only its
shape, for a zero cotangent or to undo broadcasting) is decided after lowering
(:mod:`.activity`); a loop's body saves that on the tape at the end of each iteration.
"""

from dataclasses import dataclass, field


class Value:
    """One SSA value: its name in the generated code (its cotangent is ``g_<name>``), whether
    it is active, and the block that computes it (``None``: a parameter)."""

    __slots__ = ("name", "active", "block", "kind", "needs", "serial")

    def __init__(self, name, active, block, serial=0):
        self.name, self.active, self.block = name, active, block
        #: when it was made, in lowering's count (every version of a list: the list's)
        self.serial = serial
        self.kind = None  #: its numba type, once the objective is typed (.types.Kind)
        self.needs = 0  #: what the adjoint reads of it: .activity.SHAPE | .activity.VALUE

    @property
    def grad(self):
        return f"g_{self.name}"

    def __repr__(self):
        return self.name


class Const:
    """An operand that is Python text: a literal, ``np``, a global's constant value."""

    __slots__ = ("text",)
    active = False

    def __init__(self, text):
        self.text = text

    @property
    def name(self):
        return self.text

    def __repr__(self):
        return self.text


@dataclass
class Block:
    """Statements run in sequence; ``loop``: the innermost enclosing :class:`Loop`, or
    :data:`ANEW` in a recursive function outside its loops. A block with a loop may run
    more than once per call of the compiled function: what its adjoint reads of it is
    pushed at its end."""

    loop: "Loop | Anew | None"
    stmts: list = field(default_factory=list)


class Anew:
    """The ``loop`` of a recursive function's blocks outside its loops: each call runs them
    anew, as a loop runs its body, and its adjoint is a function of its own, which has
    none of the primal's locals: so they push, as a loop's body does."""

    def __repr__(self):
        return "ANEW"


ANEW = Anew()


@dataclass
class Op:
    """``out = primal`` where ``primal`` is Python text with ``{0}``, ``{1}``, ... for the
    operands ``args``, written for the code at ``line`` (file, line and function, as
    errors name it); ``adjoint`` names the emitter's rule (:mod:`.adjoints`) and
    ``static`` holds what that rule needs besides the operands (an axis, an index's
    layout); ``None``: not differentiable. The adjoint runs where the output is active."""

    line: str
    out: Value
    primal: str
    args: list
    adjoint: str | None = None
    static: object = None
    augmented: bool = False  #: written ``x op= y`` (numpy updates an array x in place)
    #: ``primal`` is a statement updating the list ``args[0]`` in place (an append):
    #: ``out`` is that list's next version, under its name
    inplace: bool = False
    #: makes a new mutable object each time it runs (``[]``): never merged with an equal one
    fresh: bool = False

    @property
    def differentiated(self):
        return self.out.active


@dataclass
class Copy:
    """``dst = src`` on one path into a join point (an ``if``'s phi, a loop's header)."""

    line: int
    dst: Value
    src: object


@dataclass
class If:
    """``if test:`` (``test`` an inactive operand) with a block for each way; the branch
    taken is recorded for the adjoint when either block holds differentiable work."""

    line: int
    test: object
    then: Block
    orelse: Block
    flag: Value


@dataclass
class Carried:
    """A name the body of a loop assigns: ``head`` holds it at the top of each iteration
    (and after the loop), set from ``entry`` before it and from ``end`` at the end of each
    iteration."""

    head: Value
    entry: object
    end: object


@dataclass
class Loop:
    """``for target in range(*bounds)``; ``count`` counts the iterations, for the adjoint to
    run them backwards."""

    line: int
    target: Value
    bounds: list
    body: Block
    carried: list
    count: Value


@dataclass
class Function:
    """A lowered function: its parameters (the differentiated ones first, then the data:
    the bound ones, then the global arrays it reads), its body and the returned
    operand."""

    name: str
    params: list
    data: list
    body: Block
    result: object
    filename: str
    helpers: dict = field(default_factory=dict)  #: generated name -> source of a function
    constants: dict = field(default_factory=dict)  #: data name -> the global array it is
    guards: list = field(default_factory=list)  #: the free names it was compiled with
    #: the recursive functions it calls (its callees' callees included), by generated name
    callees: dict = field(default_factory=dict)


@dataclass
class Callee:
    """A recursive function, compiled as a function of its own (inlined, it would not
    end): its generated ``name`` (the primal; ``_fwd_<name>`` pushes onto the tape and
    returns it, ``_rev_<name>`` pops it and returns the cotangents of the differentiated
    parameters), which of its parameters are differentiated, and its lowered ``body``
    (:class:`Function`, its ``params`` the differentiated ones, ``order`` all of them as
    the function takes them)."""

    name: str
    active: tuple
    body: "Function | None" = None
    order: list = field(default_factory=list)
