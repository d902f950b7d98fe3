"""The store's commands (docs/service.md):

  python -m harness record PATH... [--db URL]   asv results folders, circuit and evals
                                                JSON, gate.json: stored, each run once
  python -m harness export [--db URL] [--out F] every run, one canonical JSON line each
  python -m harness import FILE... [--db URL]   runs from export's lines (- : stdin)
  python -m harness token create --machine NAME | --admin | --read [--db URL]
  python -m harness token list | revoke ID

Exit 0: everything asked for was done; 2: something could not be read or stored, said
on stderr by name (a file, a line), everything else still done: each run is stored in a
transaction of its own, so a bad one costs only itself.
"""

import sys
from pathlib import Path

import orjson
import pydantic

from harness.store import database, files, read, schema, tokens, write


def _open(opts):
    try:
        return database.Store(opts.db)
    except database.StoreError as exc:
        raise SystemExit(f"store: {exc}") from None


def _add(store, runs, counts):
    for run in runs:
        _, new = write.add(store, run)
        counts["recorded" if new else "already"] += 1


def record(opts):
    """``harness record PATH...``."""
    store, counts, bad = _open(opts), {"recorded": 0, "already": 0}, 0
    for path in opts.paths:
        try:
            _add(store, files.runs_of(path), counts)
        except files.FileError as exc:
            print(f"record: {exc}", file=sys.stderr)
            bad += 1
    print(f"record: {counts['recorded']} run(s) recorded, {counts['already']} already "
          f"there, in {store.where}")
    return 2 if bad else 0


def runs_in_order(store):
    """Every run's canonical JSON, in the order an export writes them: by start, then
    id, so that two stores holding the same runs export the same bytes."""
    runs = read.RUNS
    with store.reading() as c:
        uids = c.execute(runs.select().with_only_columns(runs.c.uid)
                         .order_by(runs.c.started, runs.c.uid)).scalars().all()
    for uid in uids:
        with store.reading() as c:
            yield read.document(c, uid)[0]


def export(opts):
    """``harness export``: every run, one line each (tokens and idempotency keys are the
    store's own, not runs, and are not exported)."""
    store = _open(opts)
    out = open(opts.out, "wb") if opts.out else sys.stdout.buffer
    n = 0
    try:
        for data in runs_in_order(store):
            out.write(data + b"\n")
            n += 1
    finally:
        if opts.out:
            out.close()
    print(f"export: {n} run(s) from {store.where}", file=sys.stderr)
    return 0


def _lines(name):
    stream = sys.stdin.buffer if name == "-" else open(name, "rb")
    try:
        yield from enumerate(stream, start=1)
    finally:
        if name != "-":
            stream.close()


def import_(opts):
    """``harness import FILE...``: each line a run; a line that is not one is named and
    skipped."""
    store, counts, bad = _open(opts), {"recorded": 0, "already": 0}, 0
    for name in opts.files:
        if name != "-" and not Path(name).is_file():
            print(f"import: {name}: no such file", file=sys.stderr)
            bad += 1
            continue
        for number, line in _lines(name):
            if not line.strip():
                continue
            try:
                run = schema.Run.model_validate(orjson.loads(line))
            except (orjson.JSONDecodeError, pydantic.ValidationError) as exc:
                first = str(exc).splitlines()[:3]
                print(f"import: {name}:{number}: not a run: {' '.join(first)}",
                      file=sys.stderr)
                bad += 1
                continue
            _add(store, [run], counts)
    print(f"import: {counts['recorded']} run(s) recorded, {counts['already']} already "
          f"there, in {store.where}", file=sys.stderr)
    return 2 if bad else 0


def token(opts):
    """``harness token create|list|revoke``."""
    store = _open(opts)
    if opts.action == "create":
        scope = "admin" if opts.admin else "read" if opts.read else "machine"
        try:
            text = tokens.create(store, scope, opts.machine if scope == "machine" else None,
                                 note=opts.note or "")
        except tokens.TokenError as exc:
            print(f"token: {exc}", file=sys.stderr)
            return 2
        what = {"machine": f"writes runs of machine {opts.machine!r}",
                "admin": "writes any run", "read": "reads a private service"}[scope]
        print(f"a token that {what}, for {store.where}; it is shown only this once:")
        print(text)
        return 0
    if opts.action == "list":
        for row in tokens.listed(store):
            state = f"revoked {row.revoked:%Y-%m-%d %H:%M}" if row.revoked else "valid"
            print(f"{row.id:>4}  {row.scope:<8} {row.machine or '-':<24} "
                  f"{row.created:%Y-%m-%d %H:%M}  {state}  {row.note}")
        return 0
    if opts.id is None:
        print("token: revoke takes the token's id (python -m harness token list)",
              file=sys.stderr)
        return 2
    try:
        tokens.revoke(store, opts.id)
    except tokens.TokenError as exc:
        print(f"token: {exc}", file=sys.stderr)
        return 2
    print(f"token {opts.id} revoked")
    return 0
