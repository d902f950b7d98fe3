"""Where every public function of numpy (``np.*``, ``np.linalg.*``, ``np.fft.*``) stands
that has no rule: a plain value (its result carries no derivative: integers, booleans,
queries), a constructor (it makes an array from shapes, numbers or files, so no traced
array reaches it), or refused, with the reason ``rules.lookup`` gives in its error.
``tests/ad/test_namespace.py`` fails when a public function is in none of the places.
"""

import numpy as np

from .table import defnondiff, defrefused


def _np(*names, module=np):
    """The functions ``names`` of ``module`` (None for one this numpy lacks)."""
    return [getattr(module, name, None) for name in names]


# -- plain values: integers, booleans, indices, dtype queries --------------------------------
defnondiff(*filter(None, _np(
    "argpartition", "nanargmax", "nanargmin", "lexsort", "digitize", "isin", "isneginf",
    "isposinf", "isnat", "ravel_multi_index", "unravel_index", "diag_indices",
    "diag_indices_from", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "mask_indices", "indices", "ix_", "can_cast", "promote_types",
    "min_scalar_type", "common_type", "mintypecode", "isdtype", "issubdtype", "iterable",
    "typename", "isfortran", "broadcast_shapes", "array_equiv", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "left_shift", "right_shift", "invert", "gcd", "lcm",
    "bitwise_count", "packbits", "unpackbits")), np.linalg.matrix_rank)

#: functions that make a new array from shapes, numbers or files (np.zeros(n), np.eye(n),
#: np.fft.fftfreq(n, d)): nothing traced to differentiate. (A traced number reaching one
#: of numpy's C constructors is refused as an escape; fftfreq's arithmetic on d is
#: differentiated as written.)
CONSTRUCTORS = set(filter(None, _np(
    "arange", "empty", "eye", "identity", "ones", "zeros", "full", "tri", "frombuffer",
    "fromfile", "fromfunction", "fromiter", "fromregex", "fromstring", "from_dlpack",
    "load", "loadtxt", "genfromtxt", "bartlett", "blackman", "hamming", "hanning",
    "kaiser") + _np("fftfreq", "rfftfreq", module=np.fft)))

# a traced number given to one is refused with the reason (np.full(3, s): np.full_like has
# a rule for its fill value)
defrefused("a constructor from shapes, numbers or files: no rule for a traced argument "
           "(np.full_like has one for its fill value)", *CONSTRUCTORS)

# -- refused, with the reason ---------------------------------------------------------------
defrefused("not numeric: printing, files, configuration or dates", *_np(
    "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
    "format_float_positional", "format_float_scientific", "save", "savetxt", "savez",
    "savez_compressed", "set_printoptions", "get_printoptions", "printoptions",
    "setbufsize", "getbufsize", "seterr", "geterr", "seterrcall", "geterrcall",
    "show_config", "show_runtime", "get_include", "info", "test", "datetime_as_string",
    "datetime_data", "busday_count", "busday_offset", "is_busday", "nested_iters",
    "einsum_path"), np.linalg.test, np.fft.test)
defrefused("in-place: it writes into its first argument; build a new array with np.where "
           "or indexing", *_np("copyto", "fill_diagonal", "place", "put", "put_along_axis",
                               "putmask"))
defrefused("several outputs: no rule yet", *_np("divmod", "frexp", "modf", "broadcast_arrays",
                                                "meshgrid", "unstack"))
defrefused("calls a Python function per piece: write it with numpy operations", *_np(
    "apply_along_axis", "apply_over_axes", "piecewise", "frompyfunc"))
defrefused("an order statistic: no rule yet (np.sort, indexing and np.median have rules)",
           *_np("percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile"))
defrefused("a set operation: no rule yet (equal values merge)", *_np(
    "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "intersect1d", "union1d", "setdiff1d", "setxor1d"))
defrefused("counts or bins: no derivative rule (bin edges move with the data)", *_np(
    "histogram", "histogram2d", "histogramdd", "histogram_bin_edges", "bincount"))
defrefused("np.matrix is not supported: use 2-D arrays", *_np("asmatrix", "bmat"))
defrefused("a polynomial's coefficients: no rule yet (np.polyval has one)", *_np(
    "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub",
    "roots"))
defrefused("no rule yet: use np.concatenate, np.stack or indexing", *_np(
    "block", "delete", "insert", "resize", "trim_zeros", "require"))
defrefused("no rule yet: use boolean or advanced indexing (x[mask], x[idx])", *_np(
    "choose", "compress", "extract", "take_along_axis"))
defrefused("no rule yet: use np.einsum or @", *_np("matvec", "vecmat", "vecdot"),
           *_np("vecdot", "multi_dot", "tensorinv", "tensorsolve", module=np.linalg))
defrefused("no rule yet", *_np(
    "corrcoef", "cov", "diagflat", "ediff1d", "geomspace", "logspace", "i0",
    "ldexp", "nanstd", "nanvar", "nextafter", "spacing", "sort_complex", "unwrap",
    "vander"))
defrefused("no rule yet: write it with np.linalg.norm, np.trace, np.diagonal or np.cross "
           "over the last axes", *_np("cross", "diagonal", "trace", "matrix_norm",
                                      "vector_norm", module=np.linalg))
defrefused("no rule yet: eig's derivative needs distinct eigenvalues (np.linalg.eigh has "
           "one for symmetric matrices)", np.linalg.eig, np.linalg.eigvals)
defrefused("no rule yet: it needs singular values (np.linalg.svd has a rule)",
           np.linalg.cond, getattr(np.linalg, "svdvals", None))
defrefused("no rule yet: solve the normal equations or use np.linalg.pinv", np.linalg.lstsq)
defrefused("no rule yet: QR's derivative is not implemented", np.linalg.qr)
defrefused("no rule yet: the real and Hermitian transforms other than rfft", *_np(
    "hfft", "ihfft", "irfft", "irfft2", "irfftn", "rfft2", "rfftn", module=np.fft))
