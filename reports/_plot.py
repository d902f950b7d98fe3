"""What every figure shares: the Agg backend (reports are built on machines with no screen),
one colour per backend across all figures, and saving."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

# fixed colours, so that a backend looks the same in every figure of the page
_PALETTE = plt.get_cmap("tab10").colors
_KNOWN = ("naive", "subspace", "loop", "unrolled", "stride", "threaded", "cuda", "qulacs")


def colour(backend):
    if backend in _KNOWN:
        return _PALETTE[_KNOWN.index(backend)]
    return _PALETTE[sum(map(ord, str(backend))) % len(_PALETTE)]


def grid(count, width=4.8, height=3.6):
    """A figure with ``count`` panels on a grid at most three wide; unused panels hidden."""
    cols = min(count, 3)
    rows = -(-count // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:count])


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")
    plt.close(fig)
    return path.name
