"""The one palette of the report: each backend's colour and marker, the same on every figure
and in the page's key.

The backends are not typed here: they are every state-vector backend
(``harness.statevector.backends.names()``: the kernels, then every simulator adapter and
plugin, installed or not), then the AD backends and the variational ones not already
listed. Each figure shows one of these groups (a peer such as qulacs is in two), so the
pairs are handed out in that order, each backend taking the first colour that no backend
sharing a group with it has taken (where one is left), and the next marker in turn that
makes its (colour, marker) pair unused. So every known backend has its own pair, and a
figure draws two backends in one colour only when their groups hold more backends than
there are ``COLOURS``. A name outside the list (a plugin's result read where the plugin is
not installed) gets a pair from a hash of its name: the same in every process, but possibly
a known backend's too.
"""

import functools
import hashlib
from typing import NamedTuple

from matplotlib import colormaps
from matplotlib.colors import to_hex

from harness.ad.backends import names as ad_names
from harness.statevector.backends import names as sv_names
from harness.variational.backends import names as variational_names

# tab10, Dark2, the darkest navy, olive, red, purple and gold of tab20b and Paired's dark
# violet, without tab10's and Dark2's greys (the figures draw their yardsticks in grey): 22
# colours saturated enough to read as thin lines on white, which tab20's pale half is not
# (21 state-vector backends share the circuit figures)
COLOURS = tuple(to_hex(c) for name, keep in (("tab10", (0, 1, 2, 3, 4, 5, 6, 8, 9)),
                                             ("Dark2", range(7)),
                                             ("tab20b", (0, 4, 12, 16, 8)), ("Paired", (9,)))
                for c in (colormaps[name].colors[i] for i in keep))  # in keep's order
#: matplotlib marker -> the glyph the page's key shows for it
GLYPHS = {"o": "\u25cf", "s": "\u25a0", "^": "\u25b2", "D": "\u25c6", "v": "\u25bc",
          "P": "\u271a", "X": "\u2716"}
MARKERS = tuple(GLYPHS)


class Style(NamedTuple):
    colour: str  # "#rrggbb"
    marker: str  # a matplotlib marker

    @property
    def glyph(self):
        return GLYPHS[self.marker]


def _pair(i):
    return Style(COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)])


@functools.cache
def groups():
    """{backend: (its groups)} in palette order: "state vector" (kernels, then simulator
    adapters and plugins), "AD", "variational"."""
    found = {}
    for group, names in (("state vector", sv_names()), ("AD", ad_names()),
                         ("variational", variational_names())):
        for name in names:
            found.setdefault(name, ())
            if group not in found[name]:
                found[name] += (group,)
    return found


def assign(groups_of):
    """{backend: Style} for ``groups_of`` ({backend: groups}, in order), as the module
    docstring says: colours distinct within each group while they last, pairs distinct."""
    styles = {}
    for name, mine in groups_of.items():
        taken = [styles[other].colour for other in styles if set(groups_of[other]) & set(mine)]
        pairs = set(styles.values())
        # the first colour no neighbour has (else the one fewest have) that still has an
        # unused marker; once all len(COLOURS) * len(MARKERS) pairs are used, pairs repeat
        open_ = [c for c in COLOURS if any((c, m) not in pairs for m in MARKERS)]
        if not open_:
            styles[name] = _pair(len(styles))
            continue
        colour = min(open_, key=lambda c: (taken.count(c), COLOURS.index(c)))
        # markers vary from one backend to the next too, telling similar hues apart
        turn = len(styles) % len(MARKERS)
        markers = MARKERS[turn:] + MARKERS[:turn]
        styles[name] = Style(colour, next(m for m in markers if (colour, m) not in pairs))
    return styles


@functools.cache
def table():
    """{backend: Style} of every known backend, in palette order."""
    return assign(groups())


def style(backend):
    """The colour and marker of ``backend``; a name not in :func:`table` gets a pair from
    its name's hash (stable across processes, unlike ``hash()``)."""
    known = table().get(backend)
    if known is not None:
        return known
    digest = hashlib.sha256(str(backend).encode()).digest()
    return _pair(int.from_bytes(digest[:8], "big"))


def colour(backend):
    return style(backend).colour


def plot_style(backend):
    """matplotlib keyword arguments drawing ``backend`` in its colour and marker."""
    colour_, marker = style(backend)
    return {"color": colour_, "marker": marker}
