"""The report page in headless, offline Chromium: every image loads; and `make report`'s
screenshots of the page and of the dashboard are written."""

from harness import browser, dashboard
from reports import build, screenshots
from tests.dashboard.conftest import BENCHMARK
from tests.reports.test_reports import report_results


def _report(tmp_path):
    out = tmp_path / "out"
    build.build(report_results(tmp_path), "box", out, say=lambda line: None)
    return out


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
