"""gradbench's ``gmm``: the log posterior of a Gaussian mixture model with a Wishart prior
on its precision matrices (ADBench's GMM objective, with gradbench's three corrections:
one sign error between likelihood and prior, the precision matrices' transpose, and the
prior over the precision matrices rather than the covariances).

Differentiated inputs: ``alpha`` (k,) the weights' logits, ``mu`` (k, d) the means,
``q`` (k, d) the logarithms of the diagonal of each precision factor Q_k, and ``lower``
(gradbench's ``l``, (k, d(d-1)/2)) its strictly lower part, column by column. Data: the
points ``x`` (n, d), the prior's extra degrees of freedom ``m`` and its precision
``gamma``. With Q_k lower triangular (diagonal exp(q_k)) and the precision Q_k^T Q_k,

    f = -n d/2 log(2 pi) + sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2)
        - n logsumexp(alpha)
        - sum_k (gamma^2/2 (|exp(q_k)|^2 + |l_k|^2) - m sum(q_k))
        + k (nu d log(gamma / sqrt 2) - log Gamma_d(nu / 2)),    nu = d + m + 1.

gradbench draws alpha, mu, q, l and x from a standard normal (seed 31337), with n = 1000,
m = 0, gamma = 1, and sweeps d over 2, 10, 20, 32, 64 and k over 5, 10, 25, 50, 100.
"""

import numpy as np

from .._problem import Problem
from ._sizes import grid, parse

POINTS = 1000  #: gradbench's n


def _lower(lower, d):
    """The strictly lower triangular (k, d, d) matrices ``lower`` fills column by column."""
    k = len(lower)
    columns, start = [], 0
    for c in range(d):
        count = d - 1 - c
        columns.append(np.concatenate((np.zeros((k, c + 1)), lower[:, start:start + count]),
                                      axis=1))
        start += count
    return np.stack(columns, axis=2)


def _log_gamma_half(a):
    """log Gamma(a) for a positive multiple of 1/2, as a sum of logarithms (numpy has no
    gammaln): Gamma(a) = 1 2 ... (a-1) for an integer, sqrt(pi) (1/2)(3/2)...(a-1) else."""
    if a == int(a):
        return np.sum(np.log(np.linspace(1.0, a - 1.0, int(a) - 1)))
    return 0.5 * np.log(np.pi) + np.sum(np.log(np.linspace(0.5, a - 1.0, int(a - 0.5))))


def _log_multigamma(a, p):
    """log of the multivariate gamma function Gamma_p(a)."""
    out = p * (p - 1) / 4 * np.log(np.pi)
    for j in range(1, p + 1):
        out = out + _log_gamma_half(a + (1 - j) / 2)
    return out


def _logsumexp(v, axis):
    top = np.max(v, axis=axis)
    return top + np.log(np.sum(np.exp(v - np.expand_dims(top, axis)), axis=axis))


def gmm(alpha, mu, q, lower, *, x, m, gamma):
    n, d = x.shape
    k = len(alpha)
    qdiag = np.exp(q)
    sum_q = np.sum(q, axis=1)
    xc = x[None, :, :] - mu[:, None, :]  # (k, n, d)
    Qxc = qdiag[:, None, :] * xc + xc @ np.transpose(_lower(lower, d), (0, 2, 1))
    inner = (alpha + sum_q)[:, None] - 0.5 * np.sum(Qxc * Qxc, axis=2)  # (k, n)
    nu = d + m + 1
    prior = -np.sum(0.5 * gamma * gamma * (np.sum(qdiag * qdiag, axis=1)
                                           + np.sum(lower * lower, axis=1)) - m * sum_q)
    constant = (-n * d * 0.5 * np.log(2 * np.pi)
                + k * (nu * d * np.log(gamma / np.sqrt(2.0)) - _log_multigamma(0.5 * nu, d)))
    return constant + np.sum(_logsumexp(inner, 0)) - n * _logsumexp(alpha, 0) + prior


def gmm_manual(alpha, mu, q, lower, *, x, m, gamma):
    n, d = x.shape
    k = len(alpha)
    qdiag = np.exp(q)
    sum_q = q.sum(axis=1)
    rows, cols = np.triu_indices(d, 1)[::-1]  # the lower entries, column by column
    Q = np.zeros((k, d, d))
    Q[:, rows, cols] = lower
    Q[:, np.arange(d), np.arange(d)] = qdiag
    xc = x[None, :, :] - mu[:, None, :]
    r = xc @ np.transpose(Q, (0, 2, 1))  # r[k, i] = Q_k (x_i - mu_k)
    inner = (alpha + sum_q)[:, None] - 0.5 * np.einsum("kid,kid->ki", r, r)
    top = inner.max(axis=0)
    e = np.exp(inner - top)
    s = e.sum(axis=0)
    w = e / s  # responsibilities: the cotangent of inner
    amax = alpha.max()
    ea = np.exp(alpha - amax)
    nu = d + m + 1
    value = (-n * d * 0.5 * np.log(2 * np.pi) + np.sum(top + np.log(s))
             - n * (amax + np.log(ea.sum()))
             - np.sum(0.5 * gamma ** 2 * ((qdiag ** 2).sum(axis=1)
                                         + (lower ** 2).sum(axis=1))
                      - m * sum_q)
             + k * (nu * d * np.log(gamma / np.sqrt(2.0)) - _log_multigamma(0.5 * nu, d)))
    # inner_ki depends on r_ki through -|r|^2/2, and r_ki = Q_k (x_i - mu_k)
    wk = w.sum(axis=1)
    wr = w[:, :, None] * r
    g_alpha = wk - n * ea / ea.sum()
    g_mu = np.einsum("kd,kde->ke", wr.sum(axis=1), Q)  # sum_i w Q^T r
    g_Q = -np.transpose(wr, (0, 2, 1)) @ xc  # -sum_i w r (x_i - mu)^T
    g_q = (wk[:, None] + qdiag * np.diagonal(g_Q, axis1=1, axis2=2)
           - gamma ** 2 * qdiag ** 2 + m)
    g_l = g_Q[:, rows, cols] - gamma ** 2 * lower
    return float(value), (g_alpha, g_mu, g_q, g_l)


def gmm_args(size, rng, **data):
    dims = parse(size)
    d, k = dims["d"], dims["k"]
    return (rng.standard_normal(k), rng.standard_normal((k, d)), rng.standard_normal((k, d)),
            rng.standard_normal((k, d * (d - 1) // 2)))


def gmm_data(size, rng):
    return {"x": rng.standard_normal((POINTS, parse(size)["d"])), "m": 0, "gamma": 1.0}


PROBLEM = Problem(
    "gmm", gmm, gmm_manual, gmm_args,
    grid(d=(2, 10, 20, 32, 64), k=(5, 10, 25, 50, 100)), False,
    "gradbench gmm: log posterior of a Gaussian mixture (n = 1000 points in d dimensions, "
    "k components) with a Wishart prior",
    make_data=gmm_data, origin="gradbench")
