"""What every figure shares: the Agg backend (reports are built on machines with no screen),
a grid of panels, and saving; each backend's colour and marker are :mod:`reports.palette`'s."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


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
