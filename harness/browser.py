"""Headless Chromium, offline, for the browser tests and for screenshots of the dashboard and
the report page: Debian's `chromium` and `chromium-driver` (installed with apt when missing and
possible), driven by selenium.

Every host but 127.0.0.1 is made unresolvable, so a page that depends on anything online
breaks here the way it would on a machine with no internet, and the browser's own background
traffic (updates, first-run pings) is switched off.
"""

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)
APT_PACKAGES = ("chromium", "chromium-driver")


class BrowserUnavailable(RuntimeError):
    """No Chromium and chromedriver here, and no way to install them; says why."""


def _found():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def _apt_install():
    """Install APT_PACKAGES; refreshes the package lists once if the first try fails (a fresh
    container has none)."""
    if shutil.which("apt-get") is None:
        raise BrowserUnavailable("chromium/chromedriver missing and there is no apt-get")
    if os.geteuid() != 0:
        raise BrowserUnavailable("chromium/chromedriver missing; installing them with apt-get "
                                 f"needs root: apt-get install {' '.join(APT_PACKAGES)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", *APT_PACKAGES]
    for attempt in range(2):
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            return
        if attempt == 0:
            subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600)
    raise BrowserUnavailable(f"apt-get install {' '.join(APT_PACKAGES)} failed: "
                             f"{done.stderr.strip()[-500:]}")


def ensure_chromium(install=True):
    """(chromium, chromedriver) paths; installs them with apt when missing and ``install``.
    Raises BrowserUnavailable with the reason otherwise."""
    found = _found()
    if found is None and install:
        _apt_install()
        found = _found()
    if found is None:
        raise BrowserUnavailable("chromium and chromedriver not found on PATH "
                                 f"(Debian: apt-get install {' '.join(APT_PACKAGES)})")
    try:
        import selenium  # noqa: F401  (the dev extra installs it)
    except ImportError as error:
        raise BrowserUnavailable(f"selenium is not installed: {error}") from error
    return found


@contextlib.contextmanager
def session(width=1280, height=1000, install=True):
    """A selenium WebDriver on headless Chromium with the offline flags, recording the
    network log (see ``requested_urls``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, chromedriver = ensure_chromium(install)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    # An explicit driver path, so selenium never runs selenium-manager to download one.
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    try:
        set_viewport(driver, width, height)
        yield driver
    finally:
        driver.quit()


def set_viewport(driver, width, height):
    """Make the page area exactly width x height CSS pixels (the window size includes the
    browser's frame, so it alone gives a smaller, version-dependent page area)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def requested_urls(driver):
    """Every URL the browser has asked for since the last call (the log drains on reading)."""
    import json
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def wait_for(driver, script, timeout=20.0, interval=0.1):
    """Poll the JavaScript expression ``script`` until it is truthy; returns its value.
    Raises TimeoutError saying what was awaited and where the browser is."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{script!r} still false after {timeout} s at {driver.current_url}")
        time.sleep(interval)


def screenshot(url, path, wait_js="document.readyState === 'complete'", width=1280,
               height=1000, full_page=False, timeout=30.0, install=True):
    """Save a PNG of ``url`` as headless, offline Chromium renders it, once the JavaScript
    expression ``wait_js`` is true: ``width`` x ``height`` pixels, or the page's whole height
    with ``full_page``. Returns the path. Raises BrowserUnavailable when there is no Chromium,
    TimeoutError when ``wait_js`` never holds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with session(width, height, install) as driver:
        driver.get(url)
        wait_for(driver, wait_js, timeout)
        if full_page:
            set_viewport(driver, width, max(height, driver.execute_script(
                "return document.documentElement.scrollHeight;")))
        # Let animations and the last layout settle before the picture is taken.
        time.sleep(0.3)
        if not driver.save_screenshot(str(path)):
            raise RuntimeError(f"chromium could not save a screenshot of {url}")
    return path
