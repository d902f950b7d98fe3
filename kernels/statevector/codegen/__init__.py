"""Code the kernels are generated from rather than written out: numba loop templates
(:mod:`.sources`, written to files numba can cache) and the packed-SIMD intrinsics they
call (:mod:`.simd`, LLVM vector IR)."""
