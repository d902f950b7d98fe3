"""The asv dashboard, offline and with its spread: `asv publish`, then every CDN script and
stylesheet that asv's pages load is replaced by a pinned copy vendored from npm
(vendor/dashboard/), so the dashboard renders with no internet instead of falling over to
error.html, and each graph's points get bars for the spread of their samples (spread.py writes
them, spread.js draws them with flot's error-bar plugin).

    python -m harness.dashboard publish [--config asv.conf.json]   # make publish
    python -m harness.dashboard preview [--port 8080]              # make preview, 127.0.0.1 only
    python -m harness.dashboard vendor                             # re-fetch the vendored files

Each CDN URL of asv 0.6's index.html maps to a file of an npm tarball. The tarballs are pinned by
the registry's sha512 and each file by its SRI hash, which the rewritten pages keep as their
`integrity` attribute, so the browser itself refuses a vendored file that changed. Where npm has
the very file the CDN serves (`same_as_cdn`), that hash is asv's own.
"""

import argparse
import contextlib
import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from asv.config import Config

from harness import vendored
from harness.dashboard import spread
from harness.vendored import Package

#: third-party files, kept apart from the project's own code (the repository's vendor/)
VENDOR_DIR = vendored.VENDOR / "dashboard"
VENDOR_URL_DIR = "vendor"  # where the vendored files go inside the published html dir
# True in a dashboard page once a benchmark graph (#/<benchmark name>) is drawn with data: flot
# keeps its plot object on the placeholder, and getData() holds the series it drew.
GRAPH_DRAWN_JS = ("window.jQuery && jQuery('#main-graph').data('plot') && jQuery('#main-graph')"
                  ".data('plot').getData().some(function (s) { return s.data.length > 0; })")


@dataclass(frozen=True)
class Asset:
    url: str | None    # what asv's index.html loads; None: a file the dashboard adds (PLUGINS)
    package: Package
    member: str        # the file inside the npm tarball (under package/)
    sri: str           # of the vendored file
    same_as_cdn: bool  # byte for byte the CDN's file, so `sri` is asv's own integrity value

    @property
    def local(self):
        """The asset's path relative to the published html dir."""
        return f"{VENDOR_URL_DIR}/{self.package.dir}/{Path(self.member).name}"


JQUERY = Package("jquery", "3.3.1", "sha512-Ubldcmxp5np52/ENotGxlLe6aGMvmF4R8S6tZjsP6Knsaxd/xp3Zr"
                 "h50cG93lR6nPXyUFwzN3ZSOQI0wRJNdGg==", "LICENSE.txt")
FLOT = Package("flot", "0.8.3", "sha512-xg2otcTJDvS+ERK+my4wxG/ASq90QURXtoM4LhacCq0jQW2jbyjdttbRNq"
               "U2cPykrpMvJ6b2uSp6SAgYAzj9tQ==", "LICENSE.txt")
ORDERBARS = Package("flot-orderbars", "1.0.0", "sha512-Jv51fvzevUjNXEeozpwEKfPjhiZhfiJddv0WHjduUTC"
                    "mSF+7T5K7C9c9Y1wIVmUhDBv5fLMjgbwKecT0GIKPZA==", "js/jquery.flot.orderBars.js")
# asv pins stupidtable 1.0.1 on cdnjs; npm's only release is 1.1.3, which adds npm packaging and
# multi-column sorting and keeps the .stupidtable()/.stupidsort(dir) calls asv makes.
STUPIDTABLE = Package("stupid-table-plugin", "1.1.3", "sha512-2Vk7XouQPxUQPRe9w0Fu7ZZ8kHLK7rDoLMsCg"
                      "tKxRNJ7f4dSOGvW9CkHsq5wD6QsaEnWoyLBYH3xOEsrK3yWBg==", "LICENSE")
MD5 = Package("blueimp-md5", "2.19.0", "sha512-DRQrD6gJyy8FbiE4s+bDoXS9hiW3Vbx5uCdwvcCf3zLHL+Iv7Lt"
              "GHLpr+GZV8rHG8tK766FGYBwRbu8pELTt+w==", "LICENSE.txt")
BOOTSTRAP = Package("bootstrap", "3.1.1", "sha512-TAzqS8E/ISpVHP29gYhy+1NSV+FJwApDVQhDfgLYsIuUDJiq"
                    "JzH2DfORN5tiu+Ie2iBLrzEG34t4Rf465cigqg==", "LICENSE")

CDNJS = "https://cdnjs.cloudflare.com/ajax/libs"
# The flot files are npm's unminified originals of the same release: cdnjs minified them itself.
ASSETS = (
    Asset("https://code.jquery.com/jquery-3.3.1.min.js", JQUERY, "dist/jquery.min.js",
          "sha256-FgpCb/KJQlLNfOu91ta32o/NMZxltwRo8QtmkMRdAu8=", True),
    Asset(f"{CDNJS}/flot/0.8.3/jquery.flot.min.js", FLOT, "jquery.flot.js",
          "sha512-1bVFcysZL1+sq86GjuK3hopY6NUKgO8hbXkMn8Bh7OEKYuUKAsu+77qYVCCEkm5XkeKh4yodJtVNRQzb"
          "DjoA1Q==", False),
    Asset(f"{CDNJS}/flot/0.8.3/jquery.flot.time.min.js", FLOT, "jquery.flot.time.js",
          "sha512-fEs27qcvuepYOlPbogPMCRS2q1JLH+sSuTf59pTAHu224ltQYiSF5wKkZ5AQgkmn39D8BzKkJfVNQrsT"
          "EHvWgQ==", False),
    Asset(f"{CDNJS}/flot/0.8.3/jquery.flot.selection.min.js", FLOT, "jquery.flot.selection.js",
          "sha512-c6h/44fD74kBkH1kAEx6q6aq6KXcbSn4ReY45CTD4Tu6R1O2T7Ql0Aa/Pqkzh3MQHZam58pHnjyvfJA6"
          "JfM4AA==", False),
    Asset(f"{CDNJS}/flot/0.8.3/jquery.flot.categories.min.js", FLOT, "jquery.flot.categories.js",
          "sha512-N8W4gxKd16zsSZZ2OWsQDMaQu0jnxJPSiAsOwFkXgvnB1W0mmOqbxFiNhgGFJUFLjII7Q8VHdGNMDP+R"
          "H87uuA==", False),
    Asset("https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js",
          ORDERBARS, "js/jquery.flot.orderBars.js",
          "sha256-OXNbT0b5b/TgglckAfR8VaJ2ezZv0dHoIeRKjYMKEr8=", True),
    Asset(f"{CDNJS}/stupidtable/1.0.1/stupidtable.min.js", STUPIDTABLE, "stupidtable.min.js",
          "sha512-T2dqwCYHuN8dbqIgYhwdGm+VtfUBecC06wUrciItlLJsteoe07db34cbmp/GZGIrC5/q1xy1V96BuvPi"
          "MXnedA==", False),
    Asset(f"{CDNJS}/blueimp-md5/2.19.0/js/md5.min.js", MD5, "js/md5.min.js",
          "sha512-8pbzenDolL1l5OPSsoURCx9TEdMFTaeFipASVrMYKhuYtly+k3tcsQYliOEKTmuB1t7yuzAiVo+yd7SJ"
          "z+ijFQ==", True),
    Asset("https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js", BOOTSTRAP,
          "dist/js/bootstrap.min.js", "sha256-iY0FoX8s/FEg3c26R6iFw3jAtGbzDwcA5QJ1fiS0A6E=", True),
    Asset("https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css", BOOTSTRAP,
          "dist/css/bootstrap.min.css", "sha256-6VA0SGkrc43SYPvX98q/LhHwm2APqX5us6Vuulsafps=",
          True),
)

# Files asv's pages do not load and the dashboard adds: flot's error bars draw the spread.
PLUGINS = (
    Asset(None, FLOT, "jquery.flot.errorbars.js",
          "sha512-8NWqRbuJSbdTlkcnXykblG1U5w5tzM3e/7RrdHxmfoIp0FWTSDce8DhEL+NPhO3C4tR+ttLobFK7AE5m"
          "1sZfgw==", False),
)
#: our own script beside this module, copied next to asv's scripts
SPREAD_JS = Path(__file__).with_name("spread.js")

# Tags that make the browser fetch something (a navigation link, <a href>, fetches nothing).
_FETCHING_TAG = re.compile(r"<(script|link|img|iframe|source)\b[^>]*>", re.IGNORECASE)
_URL_ATTR = re.compile(r"""\b(src|href)\s*=\s*(["'])(.*?)\2""", re.IGNORECASE)
_INTEGRITY = re.compile(r"""\bintegrity\s*=\s*(["']).*?\1""", re.IGNORECASE)


def _is_external(url):
    return re.match(r"(?i)^(https?:)?//", url) is not None


def external_loads(html):
    """The URLs of other hosts that ``html`` makes the browser fetch."""
    return [m.group(3) for tag in _FETCHING_TAG.finditer(html)
            for m in _URL_ATTR.finditer(tag.group(0)) if _is_external(m.group(3))]


def localize_html(html):
    """``html`` with every CDN asset pointing at its vendored copy and that copy's hash.
    Raises ValueError naming any external load with no vendored copy (a newer asv, say)."""
    by_url = {asset.url: asset for asset in ASSETS}
    unknown = [url for url in external_loads(html) if url not in by_url]
    if unknown:
        raise ValueError(f"no vendored copy of {unknown}: add them to ASSETS in {__file__}")

    def rewrite(tag):
        text = tag.group(0)
        urls = [m.group(3) for m in _URL_ATTR.finditer(text) if m.group(3) in by_url]
        if not urls:
            return text
        asset = by_url[urls[0]]
        text = _URL_ATTR.sub(lambda m: f'{m.group(1)}="{asset.local}"', text)
        return _INTEGRITY.sub(f'integrity="{asset.sri}"', text)

    html = _FETCHING_TAG.sub(rewrite, html)
    # after every other script: spread.js wraps what asv.js defines once the page is ready
    added = "".join(f'<script src="{asset.local}" integrity="{asset.sri}"></script>\n'
                    for asset in PLUGINS) + f'<script src="{SPREAD_JS.name}"></script>\n'
    return html.replace("</head>", added + "</head>", 1) if "</head>" in html else html


def localize(html_dir):
    """Rewrite the published pages in ``html_dir`` to load only local files, and copy the
    vendored files in."""
    html_dir = Path(html_dir)
    shutil.copytree(VENDOR_DIR, html_dir / VENDOR_URL_DIR, dirs_exist_ok=True)
    shutil.copy(SPREAD_JS, html_dir / SPREAD_JS.name)
    for page in sorted(html_dir.glob("*.html")):
        page.write_text(localize_html(page.read_text(encoding="utf-8")), encoding="utf-8")


def publish(config="asv.conf.json"):
    """`asv publish` with ``config``, then localize its html dir and write each graph's
    spread beside it; returns that dir."""
    subprocess.run([sys.executable, "-m", "asv", "publish", "--config", str(config)], check=True)
    conf = Config.load(str(config))
    html_dir = Path(conf.html_dir)
    localize(html_dir)
    spread.write(html_dir, conf.results_dir)
    return html_dir


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        # Test runs and screenshots would otherwise print a line per request.
        pass


@contextlib.contextmanager
def serve(directory, port=0, quiet=True):
    """Serve ``directory`` over HTTP on 127.0.0.1 (never other interfaces) in a thread;
    yields the base URL, ending in '/'. ``port=0`` picks a free port."""
    handler = _QuietHandler if quiet else http.server.SimpleHTTPRequestHandler
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def preview(html_dir, port=8080):
    """Serve ``html_dir`` on 127.0.0.1:``port`` until interrupted."""
    if not (Path(html_dir) / "index.html").is_file():
        raise SystemExit(f"no dashboard in {html_dir}: run `make publish` first")
    with serve(html_dir, port, quiet=False) as url:
        print(f"dashboard at {url} (127.0.0.1 only); Ctrl-C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


def vendor(target=VENDOR_DIR):
    """Re-download every vendored file from npm into ``target``, checking each tarball against
    its pinned registry hash and each file against its pinned SRI hash."""
    for package in dict.fromkeys(asset.package for asset in ASSETS + PLUGINS):
        vendored.fetch(package, {a.member: a.sri for a in ASSETS + PLUGINS
                                 if a.package == package}, target)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m harness.dashboard", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="asv.conf.json")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("publish", help="asv publish, then make the pages load only local files")
    sub.add_parser("preview", help="serve the published dashboard on 127.0.0.1").add_argument(
        "--port", type=int, default=8080)
    sub.add_parser("vendor", help="re-download the vendored files from npm and verify them")
    args = parser.parse_args(argv)
    if args.command == "publish":
        html_dir = publish(args.config)
        print(f"dashboard: {html_dir.resolve()}/index.html (offline; `make preview` serves it)")
    elif args.command == "preview":
        preview(Config.load(args.config).html_dir, args.port)
    else:
        vendor()
