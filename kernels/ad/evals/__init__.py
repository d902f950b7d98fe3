"""The field's AD evals, under gradbench's names (gradbench and ADBench define them; the
code here is written from their definitions): each module holds one eval's objective as a
numpy user writes it, a hand-written derivative (the golden reference and the speed
baseline) and a generator of inputs with the eval's shapes and sizes.

``PROBLEMS`` lists them in gradbench's order; :mod:`kernels.ad.problems` registers them
beside the seeds' problems.
"""

from . import ba, det, gmm, ht, kmeans, llsq, lse, lstm, ode, particle, saddle

PROBLEMS = [*(m.PROBLEM for m in (llsq, lse, det, ode, kmeans, gmm, lstm, ba, ht)),
            ba.SPARSE, kmeans.DIRECTION, particle.PROBLEM, saddle.PROBLEM]
