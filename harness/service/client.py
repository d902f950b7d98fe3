"""Sending runs to a comparison service (``harness submit PATH... --to URL``, and
``--submit URL`` on every recording command), so that nothing measured is lost on the
way.

Every run to send is first written to the outbox (results/outbox/, or
``QSIM_AD_BENCH_OUTBOX``), one file per run named by its id, and leaves it only once the
service has stored it: a submit that cannot reach the service, or is refused for its
token, keeps the run there, and the next submit (with or without new paths) sends it
first. Each run is sent with its id as the ``Idempotency-Key``, so a retry after a lost
answer stores it once. A run the service refuses for its content (413, 422) can never be
stored there: it moves to outbox/refused/ with the service's reason beside it, kept, not
retried.

httpx is the service extra's; without it a submit keeps everything in the outbox and says
so.
"""

import os
import random
import sys
import time
from pathlib import Path

import orjson

from harness.store import files

ROOT = Path(__file__).resolve().parents[2]
OUTBOX = ROOT / "results" / "outbox"
OUTBOX_ENV = "QSIM_AD_BENCH_OUTBOX"
TOKEN_ENV = "QSIM_AD_BENCH_TOKEN"
#: tries per run while the service is unreachable or busy, and the first wait between
#: them (doubled each time, with jitter)
TRIES = 5
FIRST_WAIT = 0.5
#: answers that say the content itself is refused: retrying cannot help
REFUSED = (400, 413, 422)
#: answers that say the service is there but cannot take it now
BUSY = (408, 425, 429, 500, 502, 503, 504)


class SubmitError(Exception):
    """Nothing can be sent (no service address, no token); the message says why."""


def outbox_dir(path=None):
    return Path(path or os.environ.get(OUTBOX_ENV) or OUTBOX)


def queue(runs, outbox=None):
    """Write ``runs`` (schema.Run) to the outbox, each whole or not at all; their paths."""
    folder = outbox_dir(outbox)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run in runs:
        path = folder / f"{run.id}.json"
        if not path.exists():
            tmp = folder / f".{run.id}.{os.getpid()}.tmp"
            tmp.write_bytes(run.json)
            tmp.replace(path)
        paths.append(path)
    return paths


def pending(outbox=None):
    """The runs waiting in the outbox, oldest first."""
    folder = outbox_dir(outbox)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name))


def _refuse(path, status, detail):
    refused = path.parent / "refused"
    refused.mkdir(exist_ok=True)
    (refused / f"{path.stem}.reason").write_text(f"HTTP {status}: {detail}\n")
    path.replace(refused / path.name)


def _detail(response):
    try:
        return orjson.loads(response.content).get("detail", response.text)
    except (orjson.JSONDecodeError, AttributeError):
        return response.text[:500]


def _post(http, url, token, path):
    """(status, detail) of one run's submission, retried while the service is
    unreachable or busy; status None: it never answered."""
    body = path.read_bytes()
    headers = {"Content-Type": "application/json", "Idempotency-Key": path.stem,
               "Authorization": f"Bearer {token}"}
    wait, status, detail = FIRST_WAIT, None, "no answer"
    for attempt in range(TRIES):
        try:
            response = http.post(f"{url}/api/v1/runs", content=body, headers=headers)
            status, detail = response.status_code, _detail(response)
            if status not in BUSY:
                return status, detail
        except Exception as exc:  # httpx's transport errors: not there, cut off, timed out
            status, detail = None, f"{type(exc).__name__}: {exc}"
        if attempt < TRIES - 1:
            time.sleep(wait * random.uniform(0.8, 1.2))
            wait *= 2
    return status, detail


def send(url, token=None, outbox=None, say=print):
    """Send every run in the outbox to the service at ``url`` (http://HOST:PORT); returns
    {"sent": [ids], "kept": [ids], "refused": [ids]}. A run the token may not write (403)
    stays and the next is sent; the first that the service does not take for a reason
    that would stop the rest too (unreachable, busy, no valid token) stops the sending,
    and it and the rest stay in the outbox."""
    token = token or os.environ.get(TOKEN_ENV)
    if not url:
        raise SubmitError("no service to send to: --to URL (http://HOST:PORT)")
    if not token:
        raise SubmitError(f"no token: --token T or {TOKEN_ENV} (python -m harness token "
                          "create --machine NAME, on the service's store)")
    out = {"sent": [], "kept": [], "refused": []}
    waiting = pending(outbox)
    try:
        import httpx  # the service extra's
    except ImportError as exc:
        say(f"submit: httpx is not installed ({exc}); {len(waiting)} run(s) kept in "
            f"{outbox_dir(outbox)}")
        out["kept"] = [p.stem for p in waiting]
        return out
    url = url.rstrip("/")
    with httpx.Client(timeout=httpx.Timeout(60.0, connect=10.0)) as http:
        for i, path in enumerate(waiting):
            status, detail = _post(http, url, token, path)
            if status in (200, 201):
                path.unlink(missing_ok=True)
                out["sent"].append(path.stem)
                done = "stored" if status == 201 else "was already stored"
                say(f"submit: run {path.stem} {done} at {url}")
            elif status in REFUSED:
                _refuse(path, status, detail)
                out["refused"].append(path.stem)
                say(f"submit: run {path.stem} refused by {url} (HTTP {status}: {detail}); "
                    f"kept in {path.parent / 'refused'}")
            elif status == 403:  # this token may not write this run; the next it may
                out["kept"].append(path.stem)
                say(f"submit: run {path.stem} not taken by {url} (HTTP 403: {detail}); "
                    f"kept in {outbox_dir(outbox)} for a token that may write it")
            else:
                rest = [p.stem for p in waiting[i:]]
                out["kept"] += rest
                why = f"HTTP {status}: {detail}" if status else detail
                say(f"submit: {url} did not take run {path.stem} ({why}); {len(rest)} run(s) "
                    f"kept in {outbox_dir(outbox)} for the next submit")
                break
    return out


def submit(runs, url, token=None, outbox=None, say=print):
    """Queue ``runs`` in the outbox, then :func:`send` everything there."""
    queue(runs, outbox)
    return send(url, token, outbox, say)


def main(opts):
    """``python -m harness submit PATH... --to URL``: the runs of the paths (read as
    ``harness record`` reads them) queued, then everything in the outbox sent. Exit 0:
    all sent; 1: some kept for later or refused; 2: a path that holds no run, or no
    token."""
    runs, bad = [], 0
    for path in opts.paths:
        try:
            runs += files.runs_of(path)
        except files.FileError as exc:
            print(f"submit: {exc}", file=sys.stderr)
            bad += 1
    queue(runs, opts.outbox)
    try:
        out = send(opts.to, opts.token, opts.outbox,
                   say=lambda text: print(text, file=sys.stderr))
    except SubmitError as exc:
        print(f"submit: {exc}; {len(pending(opts.outbox))} run(s) wait in "
              f"{outbox_dir(opts.outbox)}", file=sys.stderr)
        return 2
    print(f"submit: {len(out['sent'])} sent, {len(out['kept'])} kept for the next submit, "
          f"{len(out['refused'])} refused", file=sys.stderr)
    if bad:
        return 2
    return 1 if out["kept"] or out["refused"] else 0
