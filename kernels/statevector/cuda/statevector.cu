// State-vector gate kernels for kernels/statevector/cuda/__init__.py (CuPy RawModule).
//
// Self-contained on purpose: no #include, not even cupy's complex.cuh, so that the same
// text compiles under NVRTC (what CuPy uses at run time, where only built-in types such
// as double2/float2 exist) and under plain nvcc (what the tests use to check it on
// machines without a GPU). The tests also build it for the host with a C++ compiler and a
// small shim (one thread per block), so device code sticks to blockIdx, threadIdx,
// blockDim, gridDim, __shared__ and __syncthreads. A single file also keeps CuPy's kernel
// cache honest: the cache key is the source text, which would miss edits to an include.
//
// Conventions are the package's: qubit q is bit q of the amplitude index; bit j of a
// matrix row/column index is locs[j]. Indices are 64-bit throughout, and every kernel
// walks its work items with a grid-stride loop, so the grid that cuda.py launches may be
// smaller than the work (it caps the grid for very large states).
//
// Kernel names (extern "C", so that cuda.py can look them up unmangled):
//   single_qubit_{dense,hadamard,diag,phase,antidiag,swap}_{c128,c64}
//   subspace_{4x4,8x8,16x16,32x32}_{c128,c64}

// --- complex arithmetic on double2 / float2 ------------------------------------------
// .x is the real part, .y the imaginary part: the layout of numpy's complex128/complex64,
// so a state's buffer and a numpy complex scalar argument can be read as T directly.

template <class T>
__device__ __forceinline__ T cmul(T a, T b)
{
    T r;
    r.x = a.x * b.x - a.y * b.y;
    r.y = a.x * b.y + a.y * b.x;
    return r;
}

// acc + a * b, written so that the compiler contracts it into fused multiply-adds.
template <class T>
__device__ __forceinline__ T cmac(T acc, T a, T b)
{
    acc.x += a.x * b.x - a.y * b.y;
    acc.y += a.x * b.y + a.y * b.x;
    return acc;
}

__device__ __forceinline__ long long first_thread()
{
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long long thread_stride()
{
    return (long long)gridDim.x * blockDim.x;
}

// --- single-qubit gates ---------------------------------------------------------------
// One work item per amplitude pair (i, i + 2**loc): pair p becomes i by inserting a zero
// bit at position loc. Controls are the seed's ismatch test per pair,
// (i & cmask) == cval; with no controls cmask = cval = 0 and the test always passes.
// The pair update is chosen in Python from the matrix's structure (stride.structure); the
// cheap paths read and write only what they must (phase touches half the amplitudes).

namespace pair_update {

struct dense {
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        T x = *a;
        T y = *b;
        *a = cmac(cmul(u00, x), u01, y);
        *b = cmac(cmul(u10, x), u11, y);
    }
};

struct hadamard {  // u00 * [[1, 1], [1, -1]]: H
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        T x = *a;
        T y = *b;
        T sum, diff;
        sum.x = x.x + y.x;
        sum.y = x.y + y.y;
        diff.x = x.x - y.x;
        diff.y = x.y - y.y;
        *a = cmul(u00, sum);
        *b = cmul(u00, diff);
    }
};

struct diag {  // diag(u00, u11): Z, Rz
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        *a = cmul(u00, *a);
        *b = cmul(u11, *b);
    }
};

struct phase {  // diag(1, u11): T, S, phase
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        *b = cmul(u11, *b);
    }
};

struct antidiag {  // [[0, u01], [u10, 0]]: Y
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        T x = *a;
        *a = cmul(u01, *b);
        *b = cmul(u10, x);
    }
};

struct swap {  // X
    template <class T>
    static __device__ __forceinline__ void update(T* a, T* b, T u00, T u01, T u10, T u11)
    {
        T x = *a;
        *a = *b;
        *b = x;
    }
};

}  // namespace pair_update

template <class Path, class T>
__device__ __forceinline__ void single_qubit(T* st, T u00, T u01, T u10, T u11, int loc,
                                             long long cmask, long long cval,
                                             long long npairs)
{
    const long long s = 1LL << loc;
    for (long long p = first_thread(); p < npairs; p += thread_stride()) {
        const long long i = ((p & ~(s - 1)) << 1) | (p & (s - 1));
        if ((i & cmask) == cval)
            Path::update(st + i, st + i + s, u00, u01, u10, u11);
    }
}

#define SINGLE_QUBIT(PATH, SFX, T)                                                        \
    extern "C" __global__ void single_qubit_##PATH##_##SFX(                               \
        T* st, T u00, T u01, T u10, T u11, int loc, long long cmask, long long cval,      \
        long long npairs)                                                                 \
    {                                                                                     \
        single_qubit<pair_update::PATH>(st, u00, u01, u10, u11, loc, cmask, cval, npairs);             \
    }

#define SINGLE_QUBIT_PATHS(SFX, T)                                                        \
    SINGLE_QUBIT(dense, SFX, T)                                                           \
    SINGLE_QUBIT(hadamard, SFX, T)                                                        \
    SINGLE_QUBIT(diag, SFX, T)                                                            \
    SINGLE_QUBIT(phase, SFX, T)                                                           \
    SINGLE_QUBIT(antidiag, SFX, T)                                                        \
    SINGLE_QUBIT(swap, SFX, T)

SINGLE_QUBIT_PATHS(c128, double2)
SINGLE_QUBIT_PATHS(c64, float2)

// --- k-qubit gates, k = 2..5 -----------------------------------------------------------
// One work item per block of D = 2**k amplitudes: block p becomes its base index b by
// opening zero bits at every target and control position (masks/lens from
// _plan.subspace_plan, contiguous positions moved together), then adding the control
// offset. The block is gathered through offsets (bcomspace order, matching the matrix),
// multiplied and scattered. D is a template constant so that the block lives in
// registers and the loops unroll; the matrix and offsets are shared by every thread of a
// CUDA block, so they are staged in shared memory once (32x32 complex128 is 16 KiB).

template <int D, class T>
__device__ __forceinline__ void subspace(T* st, const T* __restrict__ u,
                                         const long long* __restrict__ offsets,
                                         const long long* __restrict__ masks,
                                         const long long* __restrict__ lens, int ngroups,
                                         long long base_off, long long count)
{
    __shared__ T su[D * D];
    __shared__ long long soff[D];
    for (int t = threadIdx.x; t < D * D; t += blockDim.x)
        su[t] = u[t];
    for (int t = threadIdx.x; t < D; t += blockDim.x)
        soff[t] = offsets[t];
    __syncthreads();

    for (long long p = first_thread(); p < count; p += thread_stride()) {
        long long b = p;
        for (int g = 0; g < ngroups; ++g) {
            const long long m = masks[g];
            b = ((b & ~m) << lens[g]) | (b & m);
        }
        T* blk = st + b + base_off;
        T x[D];
#pragma unroll
        for (int c = 0; c < D; ++c)
            x[c] = blk[soff[c]];
        // Rolled on purpose: unrolled, the compiler hoists all D*D matrix entries out of
        // the grid-stride loop into registers and spills for D >= 8.
#pragma unroll 1
        for (int r = 0; r < D; ++r) {
            T acc = cmul(su[r * D], x[0]);
#pragma unroll
            for (int c = 1; c < D; ++c)
                acc = cmac(acc, su[r * D + c], x[c]);
            blk[soff[r]] = acc;
        }
    }
}

#define SUBSPACE(D, SFX, T)                                                               \
    extern "C" __global__ void subspace_##D##x##D##_##SFX(                                \
        T* st, const T* u, const long long* offsets, const long long* masks,              \
        const long long* lens, int ngroups, long long base_off, long long count)          \
    {                                                                                     \
        subspace<D>(st, u, offsets, masks, lens, ngroups, base_off, count);               \
    }

#define SUBSPACE_SIZES(SFX, T)                                                            \
    SUBSPACE(4, SFX, T)                                                                   \
    SUBSPACE(8, SFX, T)                                                                   \
    SUBSPACE(16, SFX, T)                                                                  \
    SUBSPACE(32, SFX, T)

SUBSPACE_SIZES(c128, double2)
SUBSPACE_SIZES(c64, float2)
