"""The distributed suite's table: per scaling, circuit, backend and ranks, the time with
its interval, the speed-up and efficiency over one rank, the share of communication and
the bytes each rank sent. Every row was validated in its job before it was timed."""

from harness import ids, results
from harness.distributed.scaling import SCALINGS, size, speedup
from harness.timing import format_seconds


def _keyed(res, benchmark):
    """results.table where ``benchmark`` has results, else {} (a column left empty)."""
    return results.table(res, benchmark) if benchmark in res.get_all_result_keys() else {}


def rows(res):
    """[(scaling, circuit, n run, backend, ranks, seconds, median, speed-up, efficiency,
    comm share, bytes per rank)], one-rank rows included (speed-up 1)."""
    times = results.table(res, ids.DISTRIBUTED_TIME)
    medians = _keyed(res, ids.DISTRIBUTED_MEDIAN)
    comm = _keyed(res, ids.DISTRIBUTED_COMM)
    sent = _keyed(res, ids.DISTRIBUTED_BYTES)
    most = max((key[3] for key in times), default=1)
    out = []
    for key in sorted(times, key=lambda k: (SCALINGS.index(k[0]), k[1], k[2], k[4], k[3])):
        scaling, circuit, n, ranks, backend = key
        one = times.get((scaling, circuit, n, 1, backend))
        gain = speedup(scaling, one, times[key], ranks) if one else (None, None)
        out.append((scaling, circuit, size(scaling, n, ranks, most), backend, ranks,
                    times[key], medians.get(key), *gain, comm.get(key), sent.get(key)))
    return out


def scaling(res):
    """The table, Markdown."""
    lines = ["Strong scaling: the same state over more ranks (speed-up = one rank's time / "
             "this time, efficiency = speed-up / ranks). Weak scaling: a slice of one size "
             "per rank, n growing with the ranks (efficiency = one rank's time / this time). "
             "Each time is the slowest rank's, its interval the minimum to the median of the "
             "job's samples.", "",
             "| scaling | circuit | n | backend | ranks | time | interval | speed-up "
             "| efficiency | communication | MiB sent per rank |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(value, fmt):
        return "-" if value is None else fmt.format(value)
    for (scaling_, circuit, n, backend, ranks, t, median, up, eff, share, sent) in rows(res):
        spread = "-" if median is None else f"{format_seconds(t)} - {format_seconds(median)}"
        lines.append(f"| {scaling_} | {circuit} | {n} | {backend} | {ranks} | "
                     f"{format_seconds(t)} | {spread} | {cell(up, '{:.2f}')} | "
                     f"{cell(eff, '{:.0%}')} | {cell(share, '{:.0%}')} | "
                     f"{cell(None if sent is None else sent / 2**20, '{:.1f}')} |")
    return "\n".join(lines)
