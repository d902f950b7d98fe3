"""The fused backend: a whole circuit through the fusion planner
(:mod:`kernels.statevector.fusion`), cut into cache-blocked stages (:mod:`.stages`) whose
gates run as packed-SIMD kernels (:mod:`.simd`, emitted as LLVM vector IR), compiled into
one program (:mod:`.program`)."""

from .program import (  # noqa: F401 - the backend's API
    BACKEND,
    DEFAULT_MAX_QUBITS,
    FUSION,
    VECTOR_BYTES,
    FusedRunner,
    Program,
    block_key,
    block_qubits,
    compile,
    modelled_cost,
    pass_cost,
    run_bits,
)
