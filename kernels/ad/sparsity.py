"""Sparse Jacobians by compression (Curtis, Powell and Reid): ``jacobian(f, x,
sparsity=P)`` of the forward, reverse and source engines.

``P`` says which entries of the Jacobian may be nonzero, as a matrix of ``f(x).size``
rows and ``x.size`` columns (both flattened in C order). Columns that share no row can be
seeded together: one forward direction that is the sum of their unit vectors gives each
row its one entry among them. Rows that share no column can be pulled back together: one
reverse cotangent that is the sum of their one-hots. Greedy colouring (largest degree
first) finds such groups, so a Jacobian costs as many passes as colours, not as
``x.size`` or ``f(x).size``: about 15 forward directions for ADBench's bundle adjustment
at any size, where each residual reads one camera's 11 parameters, one point's 3 and one
weight.

A pattern that leaves out an entry f depends on would give a wrong Jacobian without a
word, so every sparse Jacobian carries one more product along a random direction: the
engine's own J v (forward) or u^T J (reverse) against the assembled matrix's. A mismatch
past rounding is a ValueError naming the first row or column where they differ. The
result is a ``scipy.sparse.csr_matrix`` of shape ``(f(x).size, x.size)`` holding an entry
for every entry of the pattern (a zero where the derivative happens to be zero).
"""

import numpy as np

from .modes import FORWARD, REVERSE


def _sp():
    """scipy.sparse, imported when a sparse Jacobian is first asked for: importing the
    engines never imports scipy (its rules register when the user imports it)."""
    import scipy.sparse
    return scipy.sparse

#: a probe's seed: the same check on every call
_PROBE_SEED = 20261128
#: the probe's tolerance, relative to the row's (column's) sum of |J| |v| and |J v|
_RTOL = 1e-8


def matrix(values, rows, cols, shape):
    """The CSR matrix of ``shape`` holding ``values`` at (``rows``, ``cols``): how a
    hand-written sparse Jacobian is stored (its entries are then its pattern)."""
    return _sp().csr_matrix((values, (rows, cols)), shape=shape)


class Sparsity:
    """A Jacobian's pattern made ready: ``P`` (boolean CSR, ``rows x cols``) and its two
    colourings, each found once when first asked for. Pass one to ``jacobian`` for
    repeated Jacobians of one pattern: a raw pattern is coloured anew each call."""

    def __init__(self, sparsity, rows=None, cols=None, columns=None):
        """``columns``: a colour per column known from the problem's structure (ba's:
        one per camera parameter), checked here in place of the greedy colouring, which
        needs the columns' conflicts (P^T P: too many at ADBench's largest sizes)."""
        self.P = _pattern(sparsity, rows, cols)
        self._columns = self._rows = None
        if columns is not None:
            self._columns = _checked(self.P, columns)

    @property
    def shape(self):
        return self.P.shape

    @property
    def columns(self):
        """(colour of each column, count): the forward directions."""
        if self._columns is None:
            self._columns = colours(self.P)
        return self._columns

    @property
    def rows(self):
        """(colour of each row, count): the reverse cotangents."""
        if self._rows is None:
            self._rows = colours(self.P.T.tocsr())
        return self._rows

    def cheaper(self):
        """The mode of fewer passes (forward on a tie). A side needs at least as many
        colours as the other side's fullest line has entries, so a colouring already
        found often decides without finding the other (the rows of ba share its cameras'
        columns: colouring them takes P P^T, minutes at ba2)."""
        if self._columns is not None and self._columns[1] <= _fullest(self.P.tocsc()):
            return FORWARD
        if self._rows is not None and self._rows[1] < _fullest(self.P):
            return REVERSE
        return FORWARD if self.columns[1] <= self.rows[1] else REVERSE


def _fullest(P):
    """The most entries of one row of a CSR matrix (of one column of a CSC one)."""
    return int(np.diff(P.indptr).max(initial=0))


def of(sparsity, rows, cols):
    """``sparsity`` (a :class:`Sparsity` or a pattern, see :func:`_pattern`) ready for a
    Jacobian of ``rows x cols``."""
    if isinstance(sparsity, Sparsity):
        if sparsity.shape != (rows, cols):
            raise ValueError(f"the sparsity pattern has shape {sparsity.shape}; this "
                             f"Jacobian is {rows} x {cols} (f(x).size x x.size)")
        return sparsity
    return Sparsity(sparsity, rows, cols)


def _pattern(sparsity, rows, cols):
    """``sparsity`` as a boolean CSR matrix (sorted indices): a scipy.sparse matrix (its
    stored entries, zeros included) or an array whose nonzero entries are the pattern, of
    ``rows x cols`` entries (shaped so, or f(x).shape + x.shape; None: as given);
    TypeError or ValueError naming what is wrong."""
    sp = _sp()
    if sp.issparse(sparsity):
        if rows is not None and sparsity.shape != (rows, cols):
            raise ValueError(f"the sparsity pattern has shape {sparsity.shape}; this "
                             f"Jacobian is {rows} x {cols} (f(x).size x x.size)")
        found = sp.csr_matrix(sparsity, copy=True)
        found.data = np.ones(found.nnz, dtype=bool)
    else:
        try:
            dense = np.asarray(sparsity)
        except Exception as exc:  # noqa: BLE001 - whatever it was, say so
            raise TypeError(f"the sparsity pattern must be a scipy.sparse matrix or an "
                            f"array: {exc}") from None
        if dense.dtype.kind not in "biuf":
            raise TypeError(f"the sparsity pattern must be boolean or numeric, got "
                            f"dtype {dense.dtype}")
        if rows is None:
            if dense.ndim != 2:
                raise ValueError(f"a sparsity pattern made apart from a Jacobian is a "
                                 f"matrix, got shape {dense.shape}")
            rows, cols = dense.shape
        if dense.size != rows * cols:
            raise ValueError(f"the sparsity pattern has shape {dense.shape}; this Jacobian "
                             f"is {rows} x {cols} (f(x).size x x.size)")
        found = sp.csr_matrix(dense.reshape(rows, cols) != 0)
    found.sum_duplicates()
    found.sort_indices()
    return found


def _checked(P, colour):
    """(colour, count) of a given column colouring, ValueError naming a row where two
    columns of one colour meet (they could not share a direction)."""
    colour = np.asarray(colour)
    if colour.shape != (P.shape[1],) or colour.dtype.kind not in "iu" or (
            colour.size and colour.min() < 0):
        raise ValueError(f"columns must give each of the {P.shape[1]} columns a colour "
                         f">= 0, got {colour.dtype} of shape {colour.shape}")
    count = int(colour.max()) + 1 if colour.size else 0
    coo = P.tocoo()
    pairs = coo.row.astype(np.int64) * max(count, 1) + colour[coo.col]
    unique, first = np.unique(pairs, return_index=True)
    if unique.size != pairs.size:
        clash = np.setdiff1d(np.arange(pairs.size), first)[0]
        raise ValueError(f"the column colouring gives row {coo.row[clash]} two columns of "
                         f"colour {colour[coo.col[clash]]}")
    return colour.astype(np.intp), count


def colours(P):
    """A colour per column of the CSR pattern ``P`` such that no two columns of one colour
    share a row (greedy, the columns of most conflicts first), and the number of colours."""
    n = P.shape[1]
    conflicts = (P.T.astype(np.int32) @ P.astype(np.int32)).tocsr()  # columns sharing a row
    colour = np.full(n, -1, dtype=np.intp)
    degree = np.diff(conflicts.indptr)
    used = np.zeros(n + 1, dtype=bool)
    indptr, indices = conflicts.indptr, conflicts.indices
    for j in np.argsort(-degree, kind="stable"):
        near = colour[indices[indptr[j]:indptr[j + 1]]]
        near = near[near >= 0]
        used[near] = True
        colour[j] = int(np.argmin(used))  # the first colour no neighbour has
        used[near] = False
    return colour, int(colour.max()) + 1 if n else 0


def seeds(colour, count, size, probe=None):
    """``count`` unit directions summed per colour (``count x size``), then the probe's row
    when ``probe`` is given."""
    block = np.zeros((count + (probe is not None), size))
    block[colour, np.arange(size)] = 1.0
    if probe is not None:
        block[-1] = probe
    return block


def probe(size):
    """The random direction of the check: magnitudes in [1, 2), random signs (a left-out
    entry then shows unless its contribution cancels another's exactly)."""
    rng = np.random.default_rng(_PROBE_SEED)
    return rng.uniform(1.0, 2.0, size) * rng.choice((-1.0, 1.0), size)


def passes(S, mode):
    """The seeds of a sparse Jacobian's passes in ``mode`` (``S`` a :class:`Sparsity`):
    the unit vectors of each colour summed (of columns: forward directions over x; of
    rows: reverse cotangents over f(x)), then the check's random one; (colours + 1) x
    x.size or f(x).size."""
    colour, count = S.columns if mode == FORWARD else S.rows
    size = S.shape[1] if mode == FORWARD else S.shape[0]
    return seeds(colour, count, size, probe(size))


def assemble(S, compressed, mode, engine):
    """The Jacobian from the products of :func:`passes`' seeds (``compressed``: one row
    per seed, J s in forward mode, s^T J in reverse, the probe's last): each entry of the
    pattern read from its colour's product; ValueError where the probe's disagrees."""
    coo = S.P.tocoo()
    if mode == FORWARD:
        values = compressed[S.columns[0][coo.col], coo.row]
    else:
        values = compressed[S.rows[0][coo.row], coo.col]
    J = _sp().csr_matrix((values, (coo.row, coo.col)), shape=S.shape)
    if mode == FORWARD:
        _check(J, probe(S.shape[1]), compressed[-1], engine, "row", "column")
    else:
        _check(J.T.tocsr(), probe(S.shape[0]), compressed[-1], engine, "column", "row")
    return J


def _check(J, v, measured, engine, line, other):
    """``J @ v`` (assembled) against ``measured`` (the engine's own product)."""
    assembled = J @ v
    scale = abs(J) @ abs(v) + abs(measured)
    bad = np.flatnonzero(~(abs(assembled - measured) <= _RTOL * scale + 1e-15 * scale.max(
        initial=0.0)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{engine}: the sparsity pattern leaves out an entry f depends on: in {line} {i}"
            f" (flat index) the pattern's entries give {float(assembled[i])!r} along a random"
            f" direction, the whole {line} gives {float(measured[i])!r} ({bad.size} {line}(s) "
            f"differ); add the {other}s that {line} depends on to the pattern")
