"""The numba kernels, generated from templates (:mod:`kernels.statevector.codegen`):
``loop`` (the generic subspace loop, any k), ``unrolled`` (2x2, 4x4, 8x8 products),
``stride`` (the one-qubit stride loop specialised on the matrix, packed SIMD) and
``threaded`` (their parallel versions)."""
