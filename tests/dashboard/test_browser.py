"""The published dashboard in headless Chromium that can reach nothing but 127.0.0.1: it must
not fall over to error.html, must draw a benchmark's graph from the results, and must ask
for nothing from any other host."""

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import asv
import pytest

from harness import browser, dashboard
from tests.dashboard.conftest import BENCHMARK, FASTEST, VALUES


@pytest.fixture(scope="module")
def driver(chromium):
    with browser.session() as driver:
        yield driver


def _open(driver, url):
    browser.requested_urls(driver)  # drains what earlier tests requested
    driver.get(url)


def test_graph_renders_offline_from_local_files_only(published, driver):
    with dashboard.serve(published) as base:
        _open(driver, f"{base}#{BENCHMARK}")
        browser.wait_for(driver, dashboard.GRAPH_DRAWN_JS)
        assert not driver.current_url.endswith("error.html")
        series, bars_on = driver.execute_script(
            "var drawn = jQuery('#main-graph').data('plot').getData();"
            "return [drawn.map(function (s) { return s.data; }),"
            "        drawn.map(function (s) { return s.points.errorbars; })];")
        requested = browser.requested_urls(driver)
    # One line per (gate, backend), a point per commit, empty (None) where the peer is
    # missing; asv may rescale the unit, so the values are compared relative to the smallest.
    assert len(series) == len(VALUES[0])
    assert all(len(points) == len(VALUES) for points in series)
    assert sum(p[1] is None for points in series for p in points) == 3
    drawn = sorted(p[1] for points in series for p in points if p[1] is not None)
    expected = sorted(v for values in VALUES for v in values if v == v)
    assert drawn == pytest.approx([v / expected[0] * drawn[0] for v in expected])
    # Every line draws its points' spread: [x, y, below, above], the bar running from the
    # fastest sample (FASTEST * y) up to the median, asv's point.
    # (a line with no point, a peer skipped at every commit, has nothing to put bars on)
    assert bars_on == ["y" if any(p[1] is not None for p in points) else None
                       for points in series]
    assert bars_on.count("y") == 5
    for _, y, below, above in (p for points in series for p in points if p[1] is not None):
        assert (below, above) == pytest.approx(((1 - FASTEST) * y, 0.0))
    hosts = {urlsplit(url).hostname for url in requested if not url.startswith("data:")}
    assert hosts == {"127.0.0.1"}
    paths = [urlsplit(url).path for url in requested]
    assert any(path.endswith(f"/{BENCHMARK}.json") for path in paths)
    assert any(path.startswith("/spread/") for path in paths)
    assert "/vendor/jquery-3.3.1/jquery.min.js" in paths


def test_benchmark_list_and_regressions_pages_render(published, driver):
    # These two use the vendored stupidtable (a newer release than asv pins) and md5.
    with dashboard.serve(published) as base:
        for page, ready in (("summarylist", "jQuery('table.table tbody tr').length > 0"),
                            ("regressions", "jQuery('#regressions-body').length > 0")):
            _open(driver, f"{base}#/{page}")
            browser.wait_for(driver, f"window.jQuery && {ready}")
            assert not driver.current_url.endswith("error.html")
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_stock_pages_fail_here_so_the_check_can_fail(published, driver, tmp_path):
    # asv's own index.html, loading from CDNs, must land on error.html in this browser;
    # otherwise the test above would pass whether or not anything was vendored.
    stock = tmp_path / "html"
    shutil.copytree(published, stock)
    shutil.copy(Path(asv.__file__).parent / "www" / "index.html", stock / "index.html")
    with dashboard.serve(stock) as base:
        _open(driver, f"{base}#{BENCHMARK}")
        browser.wait_for(driver, "location.pathname.endsWith('error.html')")


def test_screenshot_of_a_graph(published, chromium, tmp_path):
    with dashboard.serve(published) as base:
        path = browser.screenshot(f"{base}#{BENCHMARK}", tmp_path / "shots" / "graph.png",
                                  wait_js=dashboard.GRAPH_DRAWN_JS, width=800, height=600)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    # The PNG header's IHDR chunk: width and height, big-endian.
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (800, 600)


def test_parameter_axis_keeps_its_categories(published, driver):
    # With a parameter on the x axis asv draws bars over categories; the spread must leave
    # those alone (flot's error bars would replace the categories' data format).
    with dashboard.serve(published) as base:
        _open(driver, f"{base}#{BENCHMARK}?x-axis=kernel")
        browser.wait_for(driver, dashboard.GRAPH_DRAWN_JS)
        labels, bars_on = driver.execute_script(
            "var plot = jQuery('#main-graph').data('plot');"
            "return [plot.getAxes().xaxis.ticks.map(function (t) { return t.label; }),"
            "        plot.getData().map(function (s) { return s.points.errorbars; })];")
    assert {"stride", "naive"} <= set(labels)
    assert not any(bars_on)
