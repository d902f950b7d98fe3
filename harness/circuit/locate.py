"""Source lines for messages about an OpenQASM file, from the reference OpenQASM 3
parser (the ``openqasm3`` package, whose grammar also reads OpenQASM 2's statements).

qiskit's loaders give a ``QuantumCircuit`` without source positions, so a refusal
(a reset, a mid-circuit measurement, classical control) is placed by finding its
statement in the parser's syntax tree: the first statement of that kind that acts on
the instruction's qubit, else the first of that kind.
"""

from functools import cached_property

#: qiskit instruction name -> the openqasm3 statement classes that produce it
_STATEMENTS = {
    "measure": ("QuantumMeasurementStatement",),
    "reset": ("QuantumReset",),
    "if_else": ("BranchingStatement",),
    "while_loop": ("WhileLoop",),
    "for_loop": ("ForInLoop",),
    "switch_case": ("SwitchStatement",),
    "box": ("Box",),
}


class Locator:
    """``locator(kind, qubit) -> line or None`` for the program ``text``; ``qubit`` is the
    qiskit qubit index, registers counted in declaration order."""

    def __init__(self, text):
        self.text = text

    @cached_property
    def _program(self):
        try:
            import openqasm3
            return openqasm3.parse(self.text)
        except Exception:  # no tree, no lines: messages then give the position
            return None

    @cached_property
    def _registers(self):
        """[(name, size)] of the quantum registers, in declaration order."""
        out = []
        for st in getattr(self._program, "statements", ()):
            kind = type(st).__name__
            if kind in ("QubitDeclaration",):
                size = getattr(st, "size", None)
                out.append((st.qubit.name, _int(size) if size is not None else 1))
        return out

    def _qubit_names(self, qubit):
        """(register name, index within it) of the qiskit qubit index ``qubit``."""
        start = 0
        for name, size in self._registers:
            if size is None:
                return None
            if qubit < start + size:
                return name, qubit - start
            start += size
        return None

    def __call__(self, kind, qubit=None):
        classes = _STATEMENTS.get(kind)
        program = self._program
        if not classes or program is None:
            return None
        candidates = [st for st in _walk(program.statements) if type(st).__name__ in classes]
        if not candidates:
            return None
        where = self._qubit_names(qubit) if qubit is not None else None
        if where is not None:
            for st in candidates:
                if _acts_on(st, *where):
                    return st.span.start_line
        return candidates[0].span.start_line


def _walk(statements):
    for st in statements:
        yield st
        for attr in ("if_block", "else_block", "block", "body"):
            inner = getattr(st, attr, None)
            if isinstance(inner, list):
                yield from _walk(inner)


def _int(expr):
    value = getattr(expr, "value", None)
    return value if isinstance(value, int) else None


def _acts_on(statement, register, index):
    """Whether the statement's qubit operand is ``register`` whole or ``register[index]``."""
    operand = getattr(statement, "qubits", None)
    if operand is None:
        measure = getattr(statement, "measure", None)
        operand = getattr(measure, "qubit", None)
    operands = operand if isinstance(operand, list) else [operand]
    for op in operands:
        name = getattr(getattr(op, "name", None), "name", getattr(op, "name", None))
        if name != register:
            continue
        indices = getattr(op, "indices", None)
        if not indices:
            return True  # the whole register
        for group in indices:
            for item in group if isinstance(group, list) else [group]:
                if _int(item) == index:
                    return True
    return False


def syntax_error(text):
    """(line, column, what) of the first syntax error ANTLR reports in ``text`` as
    OpenQASM 3, or None. The reference parser's own exception carries no message."""
    try:
        from antlr4 import CommonTokenStream, InputStream
        from antlr4.error.ErrorListener import ErrorListener
        from openqasm3._antlr.qasm3Lexer import qasm3Lexer
        from openqasm3._antlr.qasm3Parser import qasm3Parser
    except ImportError:
        return None

    class First(ErrorListener):
        found = None

        def syntaxError(self, recognizer, symbol, line, column, msg, exc):  # noqa: N802
            if self.found is None:
                self.found = (line, column, msg)

    listener = First()
    lexer = qasm3Lexer(InputStream(text))
    parser = qasm3Parser(CommonTokenStream(lexer))
    for part in (lexer, parser):
        part.removeErrorListeners()
        part.addErrorListener(listener)
    try:
        parser.program()
    except Exception:
        pass
    return listener.found
