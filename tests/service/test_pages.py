"""Every page of a running server in headless Chromium that can reach nothing but
127.0.0.1: it renders with no script error, its plots hold the points its API route
returns, it asks for nothing from another host, and a name carrying markup is shown as
text, never run. Screenshots of each page go to reports/out/service/ for a person to
look at."""

import urllib.parse
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import numpy as np
import orjson
import pytest

from harness import browser
from harness.store import database, schema
from tests.service.live import ROOT, Server, add
from tests.store import runs as make

SHOTS = ROOT / "reports" / "out" / "service"
FIXTURES = Path(__file__).with_name("fixtures")
#: names a hostile submission could carry; any of them run as markup sets window.pwned
MARKUP = {"machine": "<img src=x onerror=\"window.pwned='machine'\">",
          "backend": "<script>window.pwned='backend'</script>",
          "case": "\"><svg onload=\"window.pwned='case'\">",
          "reason": "</td><td><iframe src=javascript:window.pwned='reason'>"}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    """A server over a store holding: 20 real runs of one circuit, two machines (one of
    them named in markup) with a baseline each, an evals run, a run of hostile names."""
    store = database.Store(tmp_path_factory.mktemp("pages") / "results.db")
    runs = [add(store, orjson.loads(line)) for line in
            (FIXTURES / "qcbm12_20_runs.jsonl").read_bytes().splitlines()]
    hostile = make.machine(MARKUP["machine"], cores=16)
    rng = np.random.default_rng(11)
    for m in (make.machine("laptop", cores=4), hostile):
        add(store, make.sample_run(rng, machine_doc=m, backends=("fused", "qsim", "qulacs")))
    bad = make.sample_run(rng, machine_doc=hostile, when=make.started(9),
                          backends=("fused", MARKUP["backend"], "qulacs"))
    bad["results"][0]["benchmark"]["case"] = MARKUP["case"]
    bad["results"].append(make.result({"suite": "circuit", "case": MARKUP["case"],
                                       "params": {}}, "cirq", None, status="skipped",
                                      reason=MARKUP["reason"]))
    hostile_run = add(store, bad)
    evals = [make.result({"suite": "evals", "case": "ode", "params": {"size": "10000"}},
                         name, t, role=role) for name, t, role in
             (("numpy", 1e-3, "objective"), ("manual", 4e-3, "baseline"),
              ("reverse", 6e-3, "engine"), ("source", 5e-3, "engine"))]
    add(store, {"machine": make.machine("laptop", cores=4), "commit": "e" * 40,
                "command": "evals", "started": make.started(10), "results": evals})
    server = Server(store.url)
    with browser.session(1280, 900) as driver:
        yield {"server": server, "driver": driver, "runs": runs, "hostile": hostile_run,
               "store": store}
    server.stop()
    store.close()


def api(site, path, **params):
    return httpx.get(f"{site['server'].url}/api/v1/{path}", params=params).json()


def show(site, path, name):
    """Open ``path``; wait for its scripts; return what it drew and every URL it asked
    for. Fails on a script error; saves the page's screenshot as NAME.png."""
    driver = site["driver"]
    browser.requested_urls(driver)  # drain the log
    driver.get(site["server"].url + path)
    browser.wait_for(driver, "window.qsad && window.qsad.ready")
    errors = driver.execute_script("return window.qsad.errors")
    assert errors == [], errors
    logged = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert logged == [], logged
    assert driver.execute_script("return window.pwned === undefined"), path
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    browser.set_viewport(driver, 1280, min(max(900, height), 4000))
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    browser.set_viewport(driver, 1280, 900)
    requested = browser.requested_urls(driver)
    hosts = {urlsplit(u).hostname for u in requested if not u.startswith("data:")}
    assert hosts == {"127.0.0.1"}, requested
    return requested


def plotted(site, name):
    return site["driver"].execute_script(
        f"var p = window.qsad.plots[{name!r}]; return p ? p.data : null;")


def _series():
    """(benchmark key, machine fingerprint) of the 20 real runs."""
    run = schema.Run.model_validate(orjson.loads(
        (FIXTURES / "qcbm12_20_runs.jsonl").read_bytes().splitlines()[0]))
    return run.results[0].benchmark.key, run.machine.fingerprint


def test_the_runs_page(site):
    requested = show(site, "/", "runs")
    paths = {urlsplit(u).path for u in requested}
    assert "/vendor/uplot-1.6.32/uPlot.iife.min.js" in paths
    rows = site["driver"].execute_script(
        "return document.querySelectorAll('#runs tbody tr').length")
    assert rows == api(site, "runs")["total"] == 24


def test_the_history_page_plots_the_points_of_its_route(site):
    key, machine = _series()
    query = urllib.parse.urlencode({"benchmark": key, "backend": "fused", "machine": machine})
    show(site, f"/history?{query}", "history")
    expected = api(site, "history", benchmark=key, backend="fused", machine=machine)
    xs, ys, lows, highs = plotted(site, "history")
    assert ys == [p["value"] for p in expected["points"]] and len(ys) == 20
    assert lows == [p["interval"][0] for p in expected["points"]]
    assert highs == [p["interval"][1] for p in expected["points"]]
    assert xs == list(range(20))
    assert site["driver"].find_element("id", "no-changes")


def test_the_compare_page_plots_every_ranked_row(site):
    base, head = site["runs"][0], site["runs"][1]
    show(site, f"/compare?base={base}&head={head}", "compare")
    expected = api(site, "compare", base=base, head=head)
    xs, *by_verdict = plotted(site, "compare")
    drawn = sorted(v for column in by_verdict for v in column if v is not None)
    assert drawn == sorted(r["ratio"] for r in expected["rows"] if r["ratio"] is not None)
    assert len(drawn) == 4
    text = site["driver"].find_element("id", "counts").text
    assert f"{expected['counts']['tie']} tied" in text
    show(site, "/compare", "compare-pick")


def test_the_ranking_pages(site):
    key, machine = _series()
    query = urllib.parse.urlencode({"benchmark": key, "machine": machine})
    show(site, f"/ranking?{query}", "ranking")
    expected = api(site, "ranking", benchmark=key, machine=machine)
    xs, ys = plotted(site, "ranking")
    assert ys == [r["seconds"] for r in expected["ranked"]]
    assert [r["backend"] for r in expected["ranked"]] == ["fused", "stride", "qulacs", "quest"]
    show(site, f"/ranking?machine={machine}", "ranking-all")


def test_the_run_page_plots_each_backend_over_the_fastest(site):
    uid = site["runs"][0]
    show(site, f"/runs/{uid}", "run")
    expected = api(site, f"runs/{uid}")
    xs, *columns = plotted(site, "run")
    ratios = sorted(x for column in columns for x in column if x is not None)
    assert ratios == sorted(r["ratio"] for b in expected["benchmarks"] for r in b["ranked"])


def test_the_machines_page_and_its_grids(site):
    laptop = next(m["id"] for m in api(site, "machines")["machines"] if m["name"] == "laptop")
    show(site, f"/machines?machine={laptop}", "machines")
    grid = api(site, "grid")
    cells = site["driver"].execute_script(
        "var cells = document.querySelectorAll('table.grid td.cell[data-ratio]');"
        "return Array.prototype.map.call(cells, function (td) {"
        "  return [parseFloat(td.getAttribute('data-ratio')), td.style.backgroundColor]; });")
    shown = sorted(round(r, 9) for r, _ in cells)
    ratios = [c["ratio"] for m in grid["cells"].values() for c in m.values()]
    evals = api(site, "evals", machine=laptop)
    assert evals["rows"]
    ratios += [c["x_best"] for row in evals["rows"].values() for c in row["cells"].values()
               if c.get("x_best") is not None]
    assert shown == sorted(round(r, 9) for r in ratios)
    assert all(color for _, color in cells)  # every cell shaded


def test_markup_in_a_name_is_shown_as_text(site):
    uid = site["hostile"]
    for path, name in ((f"/runs/{uid}", "hostile-run"), ("/", "hostile-runs"),
                       ("/machines", "hostile-machines"),
                       (f"/compare?base={site['runs'][0]}&head={uid}", "hostile-compare")):
        show(site, path, name)
        driver = site["driver"]
        text = driver.execute_script("return document.body.innerText")
        counts = driver.execute_script(
            "return [document.querySelectorAll('img').length, document.querySelectorAll("
            "'iframe').length, document.querySelectorAll('svg').length, document.scripts.length]")
        assert counts == [0, 0, 0, 3], (path, counts)  # uPlot, ours, the data, nothing else
        assert MARKUP["machine"] in text, path
        if name == "hostile-run":
            for field in ("backend", "case", "reason"):
                assert MARKUP[field] in text, field
