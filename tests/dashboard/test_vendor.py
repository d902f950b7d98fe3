"""The vendored CDN files and the rewrite of asv's pages, without a browser."""

import re
from pathlib import Path

import asv
import pytest

from harness import dashboard, vendored

STOCK_INDEX = (Path(asv.__file__).parent / "www" / "index.html").read_text(encoding="utf-8")


def _stock_integrity(url):
    """The integrity value asv's own index.html gives ``url``."""
    match = re.search(re.escape(url) + r'"\s+integrity="([^"]+)"', STOCK_INDEX)
    return match.group(1)


@pytest.mark.parametrize("asset", dashboard.ASSETS, ids=lambda a: Path(a.url).name)
def test_vendored_file_matches_its_pin(asset):
    data = (dashboard.VENDOR_DIR / Path(asset.local).relative_to(dashboard.VENDOR_URL_DIR))
    assert vendored.sri(data.read_bytes(), asset.sri.split("-")[0]) == asset.sri
    # Where npm holds the CDN's very file, asv's own integrity value must accept it.
    assert (asset.sri == _stock_integrity(asset.url)) == asset.same_as_cdn


def test_every_package_ships_its_license():
    for package in {asset.package for asset in dashboard.ASSETS}:
        assert (dashboard.VENDOR_DIR / package.dir / Path(package.license).name).is_file()


def test_rewrite_leaves_no_external_load_in_asv_pages():
    stock = dashboard.external_loads(STOCK_INDEX)
    # Guards the test itself: the stock page does load from CDNs, all of them known.
    assert set(stock) == {asset.url for asset in dashboard.ASSETS}
    local = dashboard.localize_html(STOCK_INDEX)
    assert dashboard.external_loads(local) == []
    for asset in dashboard.ASSETS:
        assert f'src="{asset.local}" integrity="{asset.sri}"' in local \
            or f'href="{asset.local}" integrity="{asset.sri}"' in local
    # The link to asv's home page is navigation, not a load, and stays.
    assert 'href="https://github.com/airspeed-velocity/asv/"' in local


def test_unknown_cdn_load_is_an_error_naming_it():
    page = '<script src="https://cdn.example.org/new-lib.js"></script>'
    with pytest.raises(ValueError, match="cdn.example.org/new-lib.js"):
        dashboard.localize_html(page)


@pytest.mark.parametrize("asset", dashboard.PLUGINS, ids=lambda a: Path(a.member).name)
def test_added_plugin_matches_its_pin(asset):
    # The files the dashboard adds to asv's pages are pinned the same way, and the rewritten
    # page loads them with their integrity value, after flot itself.
    data = (dashboard.VENDOR_DIR / Path(asset.local).relative_to(dashboard.VENDOR_URL_DIR))
    assert vendored.sri(data.read_bytes(), asset.sri.split("-")[0]) == asset.sri
    page = dashboard.localize_html(STOCK_INDEX)
    tag = f'<script src="{asset.local}" integrity="{asset.sri}"></script>'
    assert page.index("jquery.flot.js") < page.index(tag) < page.index(dashboard.SPREAD_JS.name)
