"""Circuits from the field and from the user: OpenQASM 2 and 3 files, qiskit circuits,
MQT Bench benchmarks and the circuit library, as lists of ``Instruction`` (``sources``,
``convert``, ``locate``), and ``python -m harness circuit`` (``command``), which runs one
through every backend, validated and timed (docs/architecture.md, "Circuits")."""
