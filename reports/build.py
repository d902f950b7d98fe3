"""Builds reports/out/ from the latest asv results: the headline, then each figure and
table, which needs some benchmarks; one whose benchmarks have no results is named on
stdout and on the page instead of breaking the rest."""

from pathlib import Path

from harness import ids, results
from harness.ad import eval_tables
from harness.ad import tables as ad_tables
from harness.distributed import tables as distributed_tables
from harness.statevector import fusion_tables
from harness.statevector import tables as sv_tables
from harness.tables import takes_settings
from harness.variational import tables as var_tables
from reports import figures_ad, figures_variational, machine, page, palette
from reports import figures_statevector as sv

OUT = Path(__file__).resolve().parent / "out"


def _all_gates(res):
    return tuple(dict.fromkeys(g for g, _, _ in results.table(res, ids.GATE_TIME)))


# (heading, [(kind, name, title, function, benchmarks it needs)]); kind "figure": the
# function writes PNGs and returns [(caption, file)], shown under the title; "table": it
# returns Markdown, written to name.md. A function with a ``settings`` keyword gets the
# results' settings map, to mark results measured with different settings.
_settings = sv_tables.with_settings
SECTIONS = (
    ("State vector: gates", [
        ("figure", "gates", "Time per gate against n, relative to qulacs and absolute",
         sv.gate_figures, [ids.GATE_TIME]),
        ("table", "gate_ratios", "Best own kernel vs qulacs (minimum time, one thread)",
         lambda res: sv_tables.gate_ratios(res, gates=_all_gates(res)), [ids.GATE_TIME]),
        ("table", "peer_ratios", "Best own kernel / each peer per gate and n (minimum "
         "times, one thread; below 1: ours is faster)", sv_tables.peer_ratios, [ids.GATE_TIME]),
        ("table", "gate_ranking", "Who is fastest: every backend per gate at the largest n",
         _settings(sv_tables.ranking), [ids.GATE_TIME]),
        ("table", "call_overhead", "Cost of the plain kernel call", sv_tables.call_overhead,
         [ids.GATE_CALL, ids.GATE_TIME]),
    ]),
    ("State vector: circuits", [
        ("table", "circuit_ranking", "Who is fastest: every backend per circuit at the "
         "largest n", _settings(sv_tables.ranking, ids.CIRCUIT_TIME, "circuit"),
         [ids.CIRCUIT_TIME]),
        ("figure", "circuits", "Circuit x backend: time / fastest at each circuit's largest n",
         sv.circuit_figures, [ids.CIRCUIT_TIME]),
        ("table", "circuit_over_fastest", "Circuit x backend: time / fastest at each "
         "circuit's largest n, complex128", _settings(sv_tables.time_over_fastest,
                                                      ids.CIRCUIT_TIME), [ids.CIRCUIT_TIME]),
        ("table", "circuit64_over_fastest", "Circuit x backend: time / fastest at each "
         "circuit's largest n, complex64", _settings(sv_tables.time_over_fastest,
                                                     ids.CIRCUIT64_TIME), [ids.CIRCUIT64_TIME]),
        ("table", "circuit_ratios", "Best own kernel / each peer per circuit and n",
         lambda res: sv_tables.peer_ratios(res, ids.CIRCUIT_TIME, "circuit"),
         [ids.CIRCUIT_TIME]),
    ]),
    ("State vector: complex64", [
        ("table", "complex64_ranking", "Who is fastest in complex64, per gate at the "
         "largest n", _settings(sv_tables.ranking, ids.GATE64_TIME), [ids.GATE64_TIME]),
        ("table", "complex64_circuit_ranking", "Who is fastest in complex64, per circuit at "
         "the largest n", _settings(sv_tables.ranking, ids.CIRCUIT64_TIME, "circuit"),
         [ids.CIRCUIT64_TIME]),
    ]),
    ("State vector: fused circuits", [
        ("table", "fusion_ratios", "Fused backend (best setting) / stride and / each peer "
         "at its best setting and unfused", fusion_tables.ratios,
         [ids.FUSED_TIME]),
        ("table", "fusion_bandwidth", "Fused circuits: effective bandwidth (passes made) "
         "against the yardstick of the memory level the state sits in",
         fusion_tables.bandwidth, [ids.FUSED_TIME, ids.FUSED_PASSES, ids.LEVEL_BANDWIDTH]),
        ("table", "fusion_roofline", "Fused circuits: roofline time / time at the default "
         "(the planner's width) and at each setting", fusion_tables.roofline,
         [ids.FUSED_ROOFLINE]),
    ]),
    ("State vector: distributed over MPI ranks", [
        ("figure", "distributed", "Speed-up and efficiency against MPI ranks",
         sv.distributed_figure, [ids.DISTRIBUTED_TIME]),
        ("table", "distributed_scaling", "Strong and weak scaling: time, speed-up, "
         "efficiency, communication, bytes sent", distributed_tables.scaling,
         [ids.DISTRIBUTED_TIME]),
    ]),
    ("State vector: memory bandwidth and threads", [
        ("figure", "bandwidth", "Effective bandwidth against n", sv.bandwidth_figure,
         [ids.GATE_TIME, ids.INPLACE_BANDWIDTH]),
        ("table", "bandwidth", "Effective bandwidth", sv_tables.bandwidth,
         [ids.GATE_TIME, ids.COPY_BANDWIDTH, ids.INPLACE_BANDWIDTH]),
        ("figure", "threads", "Speed-up against threads", sv.threads_figure,
         [ids.THREADS_TIME]),
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
        ("figure", "ad_chunks", "Gradient time against chunk", figures_ad.chunk_figure,
         [ids.AD_CHUNK]),
        ("table", "ad_chunks", "Forward mode's chunk sweep", ad_tables.ad_chunks,
         [ids.AD_CHUNK]),
        ("table", "ad_targets", "Targets of the AD engines", ad_tables.ad_targets,
         [ids.AD_GRADIENT, ids.AD_SLOWDOWN]),
    ]),
    ("AD: the field's evals (gradbench, ADBench)", [
        ("figure", "ad_evals", "Derivative time over manual, per eval",
         figures_ad.eval_figure, [ids.EVAL_GRADIENT]),
        ("table", "ad_eval_times", "Derivative time per backend (x manual, x objective)",
         eval_tables.eval_times, [ids.EVAL_GRADIENT]),
        ("table", "ad_eval_ratios", "x objective / x manual, sampled in one process",
         eval_tables.eval_ratios, [ids.EVAL_VS_OBJECTIVE]),
        ("table", "ad_eval_memory", "Peak memory per derivative (x objective)",
         eval_tables.eval_memory, [ids.EVAL_MEMORY]),
        ("table", "ad_eval_targets", "Targets on the evals", eval_tables.eval_targets,
         [ids.EVAL_GRADIENT]),
    ]),
    ("Variational circuits: gradients through the simulator", [
        ("figure", "variational_gradient", "Gradient time against n",
         figures_variational.gradient_figure, [ids.VARIATIONAL_GRADIENT]),
        ("table", "variational_ratio", "Gradient / energy (one process; lower is better)",
         var_tables.ratios, [ids.VARIATIONAL_RATIO]),
        ("table", "variational_gradients", "Gradient time per method and peer",
         var_tables.gradients, [ids.VARIATIONAL_GRADIENT]),
        ("table", "variational_targets", "Targets of the adjoint method",
         var_tables.target_table, [ids.VARIATIONAL_GRADIENT, ids.VARIATIONAL_RATIO]),
        ("figure", "variational_memory", "Peak memory against n",
         figures_variational.memory_figure,
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
    settings = {name: sv_tables.recorded_settings(res, results_dir) for name, res in loaded}
    missing, sections = [], []
    for heading, specs in SECTIONS:
        items = []
        for spec in specs:
            for name, res in loaded:
                where = out / name if several else out
                where.mkdir(parents=True, exist_ok=True)
                made, why = _item(spec, res, settings[name], where,
                                  f"{name}/" if several else "", f" ({name})" if several else "")
                items += made
                why = [f"{name}: {w}" if several else w for w in why]
                missing += [w for w in why if w not in missing]
        sections.append((heading, items))
    for line in missing:
        say(line)
    headline = [item for name, res in loaded
                for item in _headline(res, settings[name], f" ({name})" if several else "")]
    (out / "headline.md").write_text("".join(f"# {title}\n\n{text}\n\n"
                                             for title, text in headline))
    index = out / "index.html"
    index.write_text(page.render([(name, machine.machine(name, res)) for name, res in loaded],
                                 machine.versions(loaded[0][1]), machine.peers(),
                                 machine.SETTINGS, missing, sections, headline,
                                 _palette(res for _, res in loaded)))
    return index


#: The headline's tables: (title, suite) where the suite names a key of sv_tables.PRECISIONS.
HEADLINE = (("Gates: fastest at the largest n", "gate"),
            ("Circuits: fastest at the largest n", "circuit"))


def _headline(res, settings, suffix):
    """[(title, Markdown)] of the headline tables that have results."""
    made = []
    for title, what in HEADLINE:
        text = sv_tables.headline(res, what, settings=settings)
        if text:
            made.append((title + suffix, text))
    return made


def _palette(loaded):
    """[(group, [(backend, Style)])] of every known backend, and of backends the
    state-vector results hold that the palette does not know ("other")."""
    groups = {}
    for name, mine in palette.groups().items():
        groups.setdefault(mine[0], []).append((name, palette.style(name)))
    keys = [key for suite in sv_tables.PRECISIONS.values() for _, key in suite]
    seen = dict.fromkeys(b for res in loaded for key in keys
                         for *_, b in sv_tables.table_of(res, key))
    other = [(b, palette.style(b)) for b in seen if b not in palette.groups()]
    return list(groups.items()) + ([("other", other)] if other else [])


def _item(spec, res, settings, where, prefix, suffix):
    """(page items, why not) for one figure or table spec on one machine's results."""
    kind, slug, title, fn, needs = spec
    why = _absent(res, needs)
    if why:
        return [], why
    extra = {"settings": settings} if takes_settings(fn) else {}
    if kind == "figure":
        return [("figures", title + suffix,
                 [(caption, prefix + png) for caption, png in fn(res, where, **extra)])], []
    text = fn(res, **extra)
    (where / f"{slug}.md").write_text(f"# {title}{suffix}\n\n{text}\n")
    return [("table", title + suffix, f"{prefix}{slug}.md", text)], []
