"""Builds reports/out/ from the latest asv results: each figure and table needs some
benchmarks; one whose benchmarks have no results is named on stdout and on the page
instead of breaking the rest."""

from pathlib import Path

from harness import ids, results
from harness.ad import tables as ad_tables
from harness.statevector import tables as sv_tables
from harness.variational import tables as var_tables
from reports import figures_ad, figures_variational, machine, page
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
        ("table", "peer_ratios", "Best own kernel / each peer per gate and n (minimum "
         "times, one thread; below 1: ours is faster)", sv_tables.peer_ratios, [ids.GATE_TIME]),
        ("table", "gate_ranking", "Who is fastest: every backend per gate at the largest n",
         sv_tables.ranking, [ids.GATE_TIME]),
        ("table", "call_overhead", "Cost of the plain kernel call", sv_tables.call_overhead,
         [ids.GATE_CALL, ids.GATE_TIME]),
    ]),
    ("State vector: circuits", [
        ("table", "circuit_ratios", "Best own kernel / each peer per circuit and n",
         lambda res: sv_tables.peer_ratios(res, ids.CIRCUIT_TIME, "circuit"),
         [ids.CIRCUIT_TIME]),
        ("table", "circuit_ranking", "Who is fastest: every backend per circuit at the "
         "largest n", lambda res: sv_tables.ranking(res, ids.CIRCUIT_TIME, "circuit"),
         [ids.CIRCUIT_TIME]),
    ]),
    ("State vector: complex64", [
        ("table", "complex64_ranking", "Who is fastest in complex64, per gate at the "
         "largest n", lambda res: sv_tables.ranking(res, ids.GATE64_TIME), [ids.GATE64_TIME]),
        ("table", "complex64_circuit_ranking", "Who is fastest in complex64, per circuit at "
         "the largest n", lambda res: sv_tables.ranking(res, ids.CIRCUIT64_TIME, "circuit"),
         [ids.CIRCUIT64_TIME]),
    ]),
    ("State vector: memory bandwidth and threads", [
        ("figure", "bandwidth", "bandwidth figure", sv.bandwidth_figure,
         [ids.GATE_TIME, ids.INPLACE_BANDWIDTH]),
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
    ("Variational circuits: gradients through the simulator", [
        ("figure", "variational_gradient", "gradient-time figure",
         figures_variational.gradient_figure, [ids.VARIATIONAL_GRADIENT]),
        ("table", "variational_ratio", "Gradient / energy (one process; lower is better)",
         var_tables.ratios, [ids.VARIATIONAL_RATIO]),
        ("table", "variational_gradients", "Gradient time per method and peer",
         var_tables.gradients, [ids.VARIATIONAL_GRADIENT]),
        ("table", "variational_targets", "Targets of the adjoint method",
         var_tables.targets, [ids.VARIATIONAL_GRADIENT, ids.VARIATIONAL_RATIO]),
        ("figure", "variational_memory", "memory figure", figures_variational.memory_figure,
         [ids.VARIATIONAL_MEMORY]),
        ("table", "variational_memory", "Peak memory of one gradient", var_tables.memory,
         [ids.VARIATIONAL_MEMORY]),
        ("table", "variational_energies", "Energy time per backend", var_tables.energies,
         [ids.VARIATIONAL_ENERGY]),
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
    FileNotFoundError when there are no results at all.

    Every machine under ``results_dir`` (or only ``machine_name``) is reported, each
    figure and table of one machine next to the same one of the others; with several,
    each machine's files go in ``out/<machine>/``."""
    names = [machine_name] if machine_name else results.machines(results_dir)
    loaded = [results.latest(results_dir, name) for name in names or [None]]
    loaded = [(name, res) for name, res in loaded if res.get_all_result_keys()]
    if not loaded:
        raise FileNotFoundError(f"the results in {results_dir} hold no benchmarks; "
                                "run `make bench` first")
    out = Path(out)
    several = len(loaded) > 1
    missing, sections = [], []
    for heading, specs in SECTIONS:
        items = []
        for spec in specs:
            for name, res in loaded:
                where = out / name if several else out
                where.mkdir(parents=True, exist_ok=True)
                made, why = _item(spec, res, where, f"{name}/" if several else "",
                                  f" ({name})" if several else "")
                items += made
                why = [f"{name}: {w}" if several else w for w in why]
                missing += [w for w in why if w not in missing]
        sections.append((heading, items))
    for line in missing:
        say(line)
    index = out / "index.html"
    index.write_text(page.render([(name, machine.machine(name, res)) for name, res in loaded],
                                 machine.versions(loaded[0][1]), machine.peers(),
                                 machine.SETTINGS, missing, sections))
    return index


def _item(spec, res, where, prefix, suffix):
    """(page items, why not) for one figure or table spec on one machine's results."""
    kind, slug, title, fn, needs = spec
    why = _absent(res, needs)
    if why:
        return [], why
    if kind == "figure":
        return [("figure", caption + suffix, prefix + png) for caption, png in fn(res, where)], []
    text = fn(res)
    (where / f"{slug}.md").write_text(f"# {title}{suffix}\n\n{text}\n")
    return [("table", title + suffix, f"{prefix}{slug}.md", text)], []
