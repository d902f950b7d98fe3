"""Screenshots of the report page and of the asv dashboard, saved next to the report so a
person can see both without a browser: each page served on 127.0.0.1 and shot by headless,
offline Chromium (:mod:`harness.browser`)."""

from pathlib import Path

from harness import browser, dashboard, ids
from harness.results import ROOT

DASHBOARD = ROOT / ".asv" / "html"
#: The dashboard graph shot: the simulator seed's figure, gate time over n per kernel.
GRAPH = ids.GATE_TIME
#: True once every image of a page has loaded (naturalWidth is 0 for a broken image).
IMAGES_LOADED = ("document.readyState === 'complete' && Array.prototype.every.call("
                 "document.images, function (i) { return i.complete && i.naturalWidth > 0; })")


def take(out, dashboard_dir=DASHBOARD, graph=GRAPH, install=True):
    """Save ``out``/screenshot-report.png (the whole report page) and, where a dashboard has
    been published, ``out``/screenshot-dashboard.png (``graph``'s page). Returns (saved
    paths, reasons for the ones not taken); never raises for a missing browser or page."""
    out, dashboard_dir = Path(out), Path(dashboard_dir)
    saved, missing = [], []
    shots = [(out, "index.html", IMAGES_LOADED, True, "screenshot-report.png")]
    if (dashboard_dir / "index.html").exists():
        shots.append((dashboard_dir, f"#{graph}", dashboard.GRAPH_DRAWN_JS, False,
                      "screenshot-dashboard.png"))
    else:
        missing.append(f"no dashboard screenshot: nothing published in {dashboard_dir} "
                       "(make publish)")
    for directory, page, ready, full_page, name in shots:
        try:
            with dashboard.serve(directory) as base:
                saved.append(browser.screenshot(base + page, out / name, wait_js=ready,
                                                full_page=full_page, install=install))
        except browser.BrowserUnavailable as exc:
            missing.append(f"no screenshots: {exc}")
            break
        except TimeoutError as exc:  # a page that never finished drawing: say which
            missing.append(f"no {name}: {exc}")
    return saved, missing
