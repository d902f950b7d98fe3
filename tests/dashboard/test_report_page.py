"""The report page in headless, offline Chromium: every image loads; at a 1366x768 window
nothing overflows sideways (a table wider than its box scrolls inside it) and the headline
is in the first screen; and `make report`'s screenshots of the page and of the dashboard
are written."""

import itertools

import numpy as np

from harness import browser, dashboard
from harness.statevector import backends
from reports import build, screenshots
from tests.dashboard.conftest import BENCHMARK
from tests.reports.test_reports import report_results

#: a laptop's screen, the first screen the headline must be in
SCREEN = (1366, 768)
#: every element that sticks out sideways: the page itself, a table wider than its box
#: where the box does not scroll, a scroll box or an image past the window's edge
OVERFLOW_JS = """
var width = window.innerWidth, bad = [];
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
if (document.documentElement.scrollWidth > width)
  bad.push('page: ' + document.documentElement.scrollWidth + ' > ' + width);
document.querySelectorAll('table').forEach(function (t) {
  var box = t.parentElement, scrolls = /auto|scroll/.test(getComputedStyle(box).overflowX);
  var name = t.rows[0].innerText.slice(0, 60);
  if (t.getBoundingClientRect().width > box.clientWidth + 1 && !scrolls)
    bad.push('table ' + name + ': ' + t.getBoundingClientRect().width + ' > ' + box.clientWidth);
  if (box.getBoundingClientRect().right > width + 1) bad.push('box of ' + name);
});
document.querySelectorAll('img, figure, h1, h2, h3, p, nav').forEach(function (e) {
  if (e.getBoundingClientRect().right > width + 1) bad.push(e.tagName + ' ' + e.innerText);
});
return bad;"""


def _report(tmp_path):
    out = tmp_path / "out"
    build.build(report_results(tmp_path), "box", out, say=lambda line: None)
    return out


def wide_circuits(rng):
    """The circuit suite on every state-vector backend and four plugins, opaque names as
    the suites write them, at 12 and 20 qubits, with seeded random times and a few skips:
    a circuit x backend table wider than any screen."""
    names = ["lib:qcbm", "lib:qv", "lib:random", "lib:hidden_shift", "mqt:dj", "mqt:qaoa",
             "mqt:graphstate", "mqt:qftentangled"]
    every = backends.names() + [f"plugin-{name}-simulator" for name in ("a", "b", "c", "d")]
    values = [float("nan") if rng.random() < 0.1 else float(rng.lognormal(-6, 1.5))
              for _ in itertools.product(names, every, (12, 20))]
    return [[repr(n) for n in names], ["12", "20"], [repr(b) for b in every]], values


def test_the_page_fits_the_screen_and_leads_with_the_headline(chromium, tmp_path):
    out = tmp_path / "out"
    results_dir = report_results(tmp_path, circuits=wide_circuits(np.random.default_rng(7)))
    build.build(results_dir, "box", out, say=lambda line: None)
    with dashboard.serve(out) as base, browser.session(*SCREEN) as driver:
        driver.get(base + "index.html")
        browser.wait_for(driver, "document.readyState === 'complete'")
        assert driver.execute_script("return window.innerWidth;") == SCREEN[0]
        first = driver.execute_script(
            "var t = document.querySelector('#who-is-fastest ~ .headline table');"
            "var r = t.getBoundingClientRect(); return [r.top, t.rows.length];")
        wide = driver.execute_script(
            "var t = document.querySelector('#circuit-x-backend-time-fastest-at-each-circuit-"
            "s-largest-n-complex128 ~ .scroll > table');"
            "return [t.getBoundingClientRect().width, t.parentElement.clientWidth];")
        overflow = driver.execute_script(OVERFLOW_JS)
        driver.save_screenshot(str(tmp_path / "first-screen.png"))
    assert 0 < first[0] < SCREEN[1] and first[1] >= 2
    # the circuit x backend table is wider than the page: it scrolls in its own box
    assert wide[0] > wide[1]
    assert overflow == []


def test_every_image_of_the_report_page_loads(chromium, tmp_path):
    out = _report(tmp_path)
    with dashboard.serve(out) as base, browser.session() as driver:
        driver.get(base + "index.html")
        browser.wait_for(driver, "document.readyState === 'complete'")
        images = driver.execute_script(
            "return Array.prototype.map.call(document.images, function (i) {"
            " return [i.getAttribute('src'), i.complete && i.naturalWidth > 0]; });")
    assert len(images) >= 4  # gate figures, bandwidth, threads, chunk sweep
    assert [src for src, loaded in images if not loaded] == []


def test_screenshots_of_the_page_and_the_dashboard(chromium, published, tmp_path):
    out = _report(tmp_path)
    saved, missing = screenshots.take(out, published, graph=BENCHMARK)
    assert missing == []
    assert sorted(p.name for p in saved) == ["screenshot-dashboard.png", "screenshot-report.png"]
    for path in saved:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_a_missing_dashboard_is_reported_not_fatal(chromium, tmp_path):
    out = _report(tmp_path)
    saved, missing = screenshots.take(out, tmp_path / "nothing-published")
    assert [p.name for p in saved] == ["screenshot-report.png"]
    assert missing == [f"no dashboard screenshot: nothing published in "
                       f"{tmp_path / 'nothing-published'} (make publish)"]
