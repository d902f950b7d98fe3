"""The service's pages: runs, one run, compare, history, rankings, machines (and a login
for a private service). Each is HTML rendered here from the same view the API route
returns (harness.service.views), which the page also embeds as JSON for its plots
(static/service.js, drawing with uPlot, vendored from npm: vendor/service/).

Every name a submission carries reaches the page through Jinja's autoescaping or, in the
browser, ``textContent``: it is shown as text, never run as markup; the service's
Content-Security-Policy (harness.service.app) would refuse an inline script anyway.

    python -m harness.service.pages vendor    # fetch the vendored files again, checked
"""

import sys
import urllib.parse
from pathlib import Path

import jinja2
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from harness import vendored
from harness.service import auth, views
from harness.store import tokens

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
VENDOR = vendored.VENDOR / "service"
UPLOT = vendored.Package("uplot", "1.6.32", "sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6I"
                         "KTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==", "LICENSE")
#: the files of UPLOT the pages load, with the integrity each is loaded with
ASSETS = {"dist/uPlot.iife.min.js": "sha384-Gx3t0zdBAuQOuvvmaLZj7HKEiSgWTAs+VdtNY7wt19QDPTDQj"
                                    "FIwAuXDj0zeN00c",
          "dist/uPlot.min.css": "sha384-IfV0B7MIOYuO95kO9G5ySKPz/85zqFNOAs8iy4tkK5zd9izhJAB8b"
                                "7lHrwYqqmYE"}
NAV = (("runs", "/", "Runs"), ("compare", "/compare", "Compare"),
       ("history", "/history", "History"), ("ranking", "/ranking", "Rankings"),
       ("machines", "/machines", "Machines"))

router = APIRouter(include_in_schema=False)
_env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True)


def _asset(member):
    return {"href": f"/vendor/{UPLOT.dir}/{Path(member).name}", "integrity": ASSETS[member]}


def _short(text, n=10):
    return (text or "")[:n]


def _seconds(value):
    """A time as a person reads it: 1.23 ms, 45.6 us."""
    if value is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale or unit == "ns":
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"


def _count(value):
    return "-" if value is None else f"{value:,.0f}"


def _bytes(value):
    """A size as a person reads it: 48 KiB, 2 MiB, 1.5 GiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value} B"


def _ratio(value):
    return "-" if value is None else f"{value:.3g}"


_env.filters.update(short=_short, seconds=_seconds, count=_count, ratio=_ratio, bytes=_bytes,
                    quote=lambda text: urllib.parse.quote(str(text), safe=""))
_env.globals.update(uplot_js=_asset("dist/uPlot.iife.min.js"),
                    uplot_css=_asset("dist/uPlot.min.css"), nav=NAV)


def _page(template, page, data=None, status=200, **context):
    html = _env.get_template(template).render(page=page, data=data, **context)
    return HTMLResponse(html, status_code=status)


def _guarded(request, template, page, make, **context):
    """The page, or the login page where a private service asks for a token, or an error
    page naming what was asked for and is not there (404) or is wrong (422)."""
    try:
        auth.check_reader(request)
    except HTTPException as exc:
        return _page("login.html", "login", status=exc.status_code, message=exc.detail,
                     back=str(request.url.path))
    try:
        data = make()
    except views.BadRequest as exc:
        return _page("error.html", page, status=exc.status, message=exc.detail)
    return _page(template, page, data, **context)


def _store(request):
    return request.app.state.store


def _int(value, default, low, high):
    try:
        return min(max(int(value), low), high)
    except (TypeError, ValueError):
        return default


@router.get("/", response_class=HTMLResponse)
def runs_page(request: Request, machine: str | None = None, commit: str | None = None,
              offset: str | None = None):
    offset = _int(offset, 0, 0, 10**9)

    def make():
        out = views.runs(_store(request), machine or None, commit or None, 50, offset)
        out["machines"] = views.machines(_store(request))["machines"]
        return out
    return _guarded(request, "runs.html", "runs", make, machine=machine or "",
                    commit=commit or "")


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str):
    return _guarded(request, "run.html", "run", lambda: views.run(_store(request), run_id))


@router.get("/compare", response_class=HTMLResponse)
def compare_page(request: Request, base: str | None = None, head: str | None = None):
    if not base or not head:
        return _guarded(request, "pick_runs.html", "compare",
                        lambda: views.runs(_store(request), limit=100))
    return _guarded(request, "compare.html", "compare",
                    lambda: views.compare(_store(request), base, head))


def _pickers(request, contains, benchmark, machine):
    """What the history and ranking pages offer to pick from."""
    store = _store(request)
    found = views.benchmarks(store, contains=contains or None, limit=300)
    out = {"benchmarks": found["benchmarks"], "suites": found["suites"],
           "machines": views.machines(store)["machines"], "backends": []}
    if benchmark:
        out["backends"] = views.backends(store, benchmark, machine or None)["backends"]
    return out


@router.get("/history", response_class=HTMLResponse)
def history_page(request: Request, benchmark: str | None = None, backend: str | None = None,
                 machine: str | None = None, contains: str | None = None):
    def make():
        out = {"pick": _pickers(request, contains, benchmark, machine), "history": None}
        if benchmark and backend is not None and machine:
            out["history"] = views.history(_store(request), benchmark, backend, machine)
        return out
    return _guarded(request, "history.html", "history", make, benchmark=benchmark or "",
                    backend=backend or "", machine=machine or "", contains=contains or "")


@router.get("/ranking", response_class=HTMLResponse)
def ranking_page(request: Request, machine: str | None = None, benchmark: str | None = None,
                 contains: str | None = None):
    def make():
        out = {"pick": _pickers(request, contains, None, None), "ranking": None}
        if machine:
            out["ranking"] = views.ranking(_store(request), machine, benchmark or None)
        return out
    return _guarded(request, "ranking.html", "ranking", make, benchmark=benchmark or "",
                    machine=machine or "", contains=contains or "")


@router.get("/machines", response_class=HTMLResponse)
def machines_page(request: Request, suite: str | None = None, machine: str | None = None):
    def make():
        store = _store(request)
        out = {**views.machines(store), "grid": views.grid(store, suite or None),
               "suites": views.benchmarks(store, limit=1)["suites"], "evals": None}
        pick = machine or (out["machines"][0]["id"] if out["machines"] else None)
        if pick:
            out["evals"] = views.evals(store, pick)
        return out
    return _guarded(request, "machines.html", "machines", make, suite=suite or "",
                    machine=machine or "")


@router.get("/login", response_class=HTMLResponse)
def login_page(back: str = "/"):
    return _page("login.html", "login", message=None, back=back)


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request):
    """Take a token from the form and keep it in a cookie the pages read with (never one
    the API writes with: harness.service.auth)."""
    form = urllib.parse.parse_qs((await request.body()).decode("utf-8", "replace"))
    token = (form.get("token") or [""])[0].strip()
    back = (form.get("back") or ["/"])[0]
    if not back.startswith("/") or back.startswith("//"):  # this site's pages only
        back = "/"
    with _store(request).reading() as c:
        valid = tokens.find(c, token) is not None
    if not valid:
        return _page("login.html", "login", status=401, back=back,
                     message="that token is not valid here (unknown, or revoked)")
    response = RedirectResponse(back, status_code=303)
    response.set_cookie(auth.COOKIE, token, httponly=True, samesite="strict",
                        max_age=30 * 86400)
    return response


if __name__ == "__main__":
    if sys.argv[1:] != ["vendor"]:
        raise SystemExit("usage: python -m harness.service.pages vendor")
    vendored.fetch(UPLOT, ASSETS, VENDOR)
