"""Forward mode's chunk sweep (ForwardDiff.jl's chunk mode): the same gradient with the
partials of 1, 2, 4, ... up to all n inputs carried per pass over f, and with the
engine's own choice ("default"), on the profile's ``ad_chunk_sizes`` cases."""

from ._ad_setup import Suite, cases, problem_args, validated
from ._once import setup_once

import numpy as np

from harness import registry
from harness.ad.backends import input_size

#: the engine whose gradient takes a chunk of directions (forward mode)
CHUNKED = next(b.name for b in registry.ad().values() if "chunk" in b.options)

CASES = cases("ad_chunk_sizes")

#: A vectorised pass holds dense (chunk, size) partials for every intermediate array;
#: above this per array the sweep point is not run (the engine's default stays below).
MAX_PARTIALS_BYTES = 256 * 2 ** 20


def chunks(cases):
    """Powers of two up to the largest number of inputs swept, each case's number of
    inputs itself (one pass), and "default"."""
    inputs = {input_size(problem_args(case)[1]) for case in cases}
    powers = [1 << k for k in range(max(inputs, default=1).bit_length())]
    return sorted(set(powers) | inputs) + ["default"]


class ForwardChunk(Suite):
    params = (CASES, chunks(CASES))
    param_names = ["case", "chunk"]

    @setup_once
    def setup(self, case, chunk):
        if chunk != "default":
            problem, args = problem_args(case)
            if chunk > input_size(args):
                raise NotImplementedError(f"chunk {chunk} exceeds the {input_size(args)} inputs")
            partials = 8 * chunk * max(np.size(a) for a in args)
            if not problem.loop and partials > MAX_PARTIALS_BYTES:
                raise NotImplementedError(f"chunk {chunk}: {partials >> 20} MiB of partials "
                                          f"per array, over {MAX_PARTIALS_BYTES >> 20} MiB")
        self.runner = validated(case, CHUNKED, chunk=None if chunk == "default" else chunk)

    def time_gradient(self, case, chunk):
        self.runner.gradient()
