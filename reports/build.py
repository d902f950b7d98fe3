"""Builds reports/out/ from the latest asv results: each figure and table needs some
benchmarks; one whose benchmarks have no results is named on stdout and on the page
instead of breaking the rest."""

from pathlib import Path

from harness import ids, results
from harness.ad import tables as ad_tables
from harness.statevector import tables as sv_tables
from reports import figures_ad, machine, page
from reports import figures_statevector as sv

OUT = Path(__file__).resolve().parent / "out"


def _all_gates(res):
    return tuple(dict.fromkeys(g for g, _, _ in results.table(res, ids.GATE_TIME)))


# (heading, [(kind, name, title, function, benchmarks it needs)]); kind "figure": the
# function writes PNGs and returns [(caption, file)]; "table": it returns Markdown,
# written to name.md
SECTIONS = (
    ("State vector: gates", [
        ("figure", "gates", "gate figures", sv.gate_figures, [ids.GATE_TIME]),
        ("table", "gate_ratios", "Best own kernel vs qulacs (minimum time, one thread)",
         lambda res: sv_tables.gate_ratios(res, gates=_all_gates(res)), [ids.GATE_TIME]),
        ("table", "call_overhead", "Cost of the plain kernel call", sv_tables.call_overhead,
         [ids.GATE_CALL, ids.GATE_TIME]),
    ]),
    ("State vector: memory bandwidth and threads", [
        ("figure", "bandwidth", "bandwidth figure", sv.bandwidth_figure,
         [ids.GATE_TIME, ids.COPY_BANDWIDTH]),
        ("table", "bandwidth", "Effective bandwidth", sv_tables.bandwidth,
         [ids.GATE_TIME, ids.COPY_BANDWIDTH, ids.INPLACE_BANDWIDTH]),
        ("figure", "threads", "thread-scaling figure", sv.threads_figure, [ids.THREADS_TIME]),
        ("table", "thread_scaling", "Thread scaling", sv_tables.thread_scaling, [ids.THREADS_TIME]),
    ]),
    ("Automatic differentiation", [
        ("table", "ad_speedups", "Speed-up of each engine against each peer "
         "(peer time / engine time; above 1: the engine is faster)", ad_tables.ad_speedups,
         [ids.AD_GRADIENT]),
        ("table", "ad_slowdown", "Slowdown ratio: gradient time / objective time "
         "(one process; lower is better)", ad_tables.ad_slowdown, [ids.AD_SLOWDOWN]),
        ("table", "ad_trmul", "tr(A @ B) 30x30 against the hand-written gradient",
         ad_tables.ad_trmul, [ids.AD_GRADIENT]),
        ("table", "ad_gradients", "Gradient time per backend", ad_tables.ad_gradients,
         [ids.AD_GRADIENT]),
        ("table", "ad_vs_manual", "Gradient / manual gradient (one process)",
         ad_tables.ad_vs_manual, [ids.AD_VS_MANUAL]),
        ("table", "ad_objectives", "Objective time per backend", ad_tables.ad_objectives,
         [ids.AD_OBJECTIVE]),
        ("figure", "ad_chunks", "chunk-sweep figure", figures_ad.chunk_figure,
         [ids.AD_CHUNK]),
        ("table", "ad_chunks", "Forward mode's chunk sweep", ad_tables.ad_chunks,
         [ids.AD_CHUNK]),
        ("table", "ad_targets", "Targets of the AD engines", ad_tables.ad_targets,
         [ids.AD_GRADIENT, ids.AD_SLOWDOWN]),
    ]),
)


def _absent(res, needs):
    """Why the benchmarks in ``needs`` cannot be used, or [] when every one has at least
    one result; a class with no results at all is named as a class (what a user re-runs)."""
    keys = set(res.get_all_result_keys())
    why = []
    for key in needs:
        cls = key.rsplit(".", 1)[0]
        suite = key if any(k.startswith(cls + ".") for k in keys) else cls
        if key not in keys:
            why.append(f"no results for {suite}: run make bench")
        elif not results.table(res, key):
            why.append(f"no results for {suite}: every combination failed or was skipped")
    return why


def build(results_dir=results.RESULTS_DIR, machine_name=None, out=OUT, say=print):
    """Write the figures, tables and index.html; return the page's path. Raises
    FileNotFoundError when there are no results at all."""
    name, res = results.latest(results_dir, machine_name)
    if not res.get_all_result_keys():
        raise FileNotFoundError(f"the results of machine {name!r} in {results_dir} hold no "
                                "benchmarks; run `make bench` first")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    missing, sections = [], []
    for heading, specs in SECTIONS:
        items = []
        for kind, slug, title, fn, needs in specs:
            why = _absent(res, needs)
            if why:
                missing += [w for w in why if w not in missing]
                continue
            if kind == "figure":
                items += [("figure", caption, png) for caption, png in fn(res, out)]
            else:
                text = fn(res)
                (out / f"{slug}.md").write_text(f"# {title}\n\n{text}\n")
                items.append(("table", title, f"{slug}.md", text))
        sections.append((heading, items))
    for line in missing:
        say(line)
    index = out / "index.html"
    index.write_text(page.render(machine.machine(name, res), machine.versions(res),
                                 machine.SETTINGS, missing, sections))
    return index
