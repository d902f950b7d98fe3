"""ADBench's ``lstm`` (gradbench keeps it unchanged): the loss of a stacked LSTM with
diagonal weights (every product elementwise) predicting a character sequence bit by bit.

Differentiated inputs: ``main_params`` (2l, 4b): for layer k, row 2k the weights and row
2k + 1 the biases of the forget, input and output gates and of the candidate, b each;
``extra_params`` (3, b): the input weights, the output weights and the output bias. Data:
``state`` (2l, b), each layer's initial hidden (row 2k) and cell (row 2k + 1) vectors,
and ``sequence`` (c, b), one character per row as its b bits. For t = 0 .. c - 2, the
input x = sequence[t] * w_in runs through the layers (the forget and output gates read the
layer's input, the input gate and the candidate its previous hidden state: ADBench's
definition), the prediction is y = x * w_out + b_out, and

    loss = -sum_t sum_j sequence[t+1, j] (y_j - log(sum_i exp(y_i) + 2)) / ((c - 1) b).

gradbench draws the parameters and state uniformly from [0, 1) and takes the first c
characters of a text (Shakespeare's sonnets, b = 14 bits per character) for l in 2, 4, 6
and c in 1024, 4096, 8192. The text is not at hand here: the sequence is characters drawn
from printable ASCII, coded in the same 14 bits.
"""

import numpy as np

from .._problem import Problem
from ._sizes import grid, parse

BITS = 14  #: b: bits per character (the code points of gradbench's text fit in 14)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm(main_params, extra_params, *, state, sequence):
    layers, b = len(main_params) // 2, main_params.shape[1] // 4
    w_in, w_out, b_out = extra_params[0], extra_params[1], extra_params[2]
    hidden = [state[2 * k] for k in range(layers)]
    cell = [state[2 * k + 1] for k in range(layers)]
    total = 0.0
    for t in range(len(sequence) - 1):
        x = sequence[t] * w_in
        new_hidden, new_cell = [], []
        for k in range(layers):
            w, bias = main_params[2 * k], main_params[2 * k + 1]
            forget = _sigmoid(x * w[:b] + bias[:b])
            ingate = _sigmoid(hidden[k] * w[b:2 * b] + bias[b:2 * b])
            outgate = _sigmoid(x * w[2 * b:3 * b] + bias[2 * b:3 * b])
            change = np.tanh(hidden[k] * w[3 * b:] + bias[3 * b:])
            c = cell[k] * forget + ingate * change
            x = outgate * np.tanh(c)
            new_hidden.append(x)
            new_cell.append(c)
        hidden, cell = new_hidden, new_cell
        y = x * w_out + b_out
        total = total + np.sum(sequence[t + 1] * (y - np.log(np.sum(np.exp(y)) + 2.0)))
    return -total / ((len(sequence) - 1) * b)


def lstm_manual(main_params, extra_params, *, state, sequence):
    """The loss forward, keeping each step's gates, then back-propagation through time by
    hand: the cotangents of every layer's hidden and cell state carried backwards."""
    layers, b = len(main_params) // 2, main_params.shape[1] // 4
    w_in, w_out, b_out = extra_params
    W, B = main_params[0::2], main_params[1::2]  # (layers, 4b) each
    hidden = [state[2 * k].copy() for k in range(layers)]
    cell = [state[2 * k + 1].copy() for k in range(layers)]
    steps = len(sequence) - 1
    scale = -1.0 / (steps * b)
    tape, total = [], 0.0
    for t in range(steps):
        x = sequence[t] * w_in
        layers_t = []
        for k in range(layers):
            wf, wi, wo, wg = W[k, :b], W[k, b:2 * b], W[k, 2 * b:3 * b], W[k, 3 * b:]
            bf, bi, bo, bg = B[k, :b], B[k, b:2 * b], B[k, 2 * b:3 * b], B[k, 3 * b:]
            h_prev, c_prev = hidden[k], cell[k]
            f = 1.0 / (1.0 + np.exp(-(x * wf + bf)))
            i = 1.0 / (1.0 + np.exp(-(h_prev * wi + bi)))
            o = 1.0 / (1.0 + np.exp(-(x * wo + bo)))
            g = np.tanh(h_prev * wg + bg)
            c = c_prev * f + i * g
            tc = np.tanh(c)
            h = o * tc
            layers_t.append((x, h_prev, c_prev, f, i, o, g, tc))
            hidden[k], cell[k] = h, c
            x = h
        y = x * w_out + b_out
        e = np.exp(y)
        s = e.sum() + 2.0
        target = sequence[t + 1]
        total += float(np.sum(target * (y - np.log(s))))
        tape.append((layers_t, x, e / s, target))
    value = scale * total
    gW, gB = np.zeros_like(W), np.zeros_like(B)
    g_in, g_out, g_bout = np.zeros(b), np.zeros(b), np.zeros(b)
    dh = [np.zeros(b) for _ in range(layers)]
    dc = [np.zeros(b) for _ in range(layers)]
    for t in range(steps - 1, -1, -1):
        layers_t, x_top, softmax, target = tape[t]
        # d loss / d y = scale (target - sum(target) exp(y) / (sum exp(y) + 2))
        dy = scale * (target - target.sum() * softmax)
        g_out += dy * x_top
        g_bout += dy
        dx = dy * w_out  # the cotangent of the top layer's new hidden state
        for k in range(layers - 1, -1, -1):
            x, h_prev, c_prev, f, i, o, g, tc = layers_t[k]
            wf, wi, wo, wg = W[k, :b], W[k, b:2 * b], W[k, 2 * b:3 * b], W[k, 3 * b:]
            d_h = dh[k] + dx
            do = d_h * tc
            d_c = dc[k] + d_h * o * (1.0 - tc * tc)
            df, di, dg = d_c * c_prev, d_c * g, d_c * i
            # through the nonlinearities to the gates' pre-activations
            zf, zi, zo, zg = df * f * (1 - f), di * i * (1 - i), do * o * (1 - o), \
                dg * (1 - g * g)
            gW[k, :b] += zf * x
            gW[k, b:2 * b] += zi * h_prev
            gW[k, 2 * b:3 * b] += zo * x
            gW[k, 3 * b:] += zg * h_prev
            gB[k] += np.concatenate((zf, zi, zo, zg))
            dh[k] = zi * wi + zg * wg  # to this layer's previous hidden state
            dc[k] = d_c * f
            dx = zf * wf + zo * wo  # to this layer's input: the layer below's new hidden
        g_in += dx * sequence[t]
    grad_main = np.empty_like(main_params)
    grad_main[0::2], grad_main[1::2] = gW, gB
    return value, (grad_main, np.stack((g_in, g_out, g_bout)))


def lstm_data(size, rng):
    dims = parse(size)
    layers, chars = dims["l"], dims["c"]
    codes = rng.integers(32, 127, chars)  # printable ASCII
    bits = (codes[:, None] >> np.arange(BITS - 1, -1, -1)) & 1  # most significant first
    return {"state": rng.random((2 * layers, BITS)), "sequence": bits.astype(float)}


def lstm_args(size, rng, **data):
    layers = parse(size)["l"]
    return rng.random((2 * layers, 4 * BITS)), rng.random((3, BITS))


PROBLEM = Problem(
    "lstm", lstm, lstm_manual, lstm_args, grid(l=(2, 4, 6), c=(1024, 4096, 8192)), False,
    "ADBench lstm: a stacked diagonal LSTM's loss over c characters of 14 bits, l layers",
    make_data=lstm_data, origin="adbench")
