"""Strong and weak scaling, as the distributed suite runs them and the report reads them:
which n a job of R ranks runs, and the speed-up and efficiency over one rank."""

SCALINGS = ("strong", "weak")


def size(scaling, n, ranks, most):
    """The qubits a job of ``ranks`` runs when ``most`` is the largest rank count: n
    (strong: the same state over more ranks), or n less the qubits ``most`` ranks hold
    over ``ranks`` (weak: n at the most ranks, a slice of one size throughout)."""
    if scaling == "strong":
        return n
    return n - (most.bit_length() - ranks.bit_length())


def speedup(scaling, one, seconds, ranks):
    """(speed-up, efficiency) of a time over the one-rank time ``one``: strong scaling's
    speed-up is one / seconds and its efficiency that over the ranks; weak scaling's
    efficiency is one / seconds (the same work per rank), its speed-up that times ranks."""
    ratio = one / seconds
    return (ratio, ratio / ranks) if scaling == "strong" else (ratio * ranks, ratio)
