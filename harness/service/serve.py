"""``python -m harness serve``: the comparison service on uvicorn, over one store
(``--db``, default the embedded results/results.db), on 127.0.0.1:8000 unless ``--host``
and ``--port`` say otherwise. The store is opened (and upgraded) before the server
starts, so that a store that cannot be read is said at once, not on the first request.
"""

import os
import sys

from harness.service import app as app_mod
from harness.store import database

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def main(opts):
    try:
        import uvicorn  # the service extra's
    except ImportError as exc:
        print(f"serve: uvicorn is not installed ({exc}): pip install -e '.[service]'",
              file=sys.stderr)
        return 2
    try:
        store = database.Store(opts.db)
    except database.StoreError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    if opts.workers < 1 or not 0 < opts.port < 65536 or opts.max_bytes < 1:
        print("serve: --workers, --port and --max-bytes must be positive (a port below "
              "65536)", file=sys.stderr)
        return 2
    reads = "private: reads need a token" if opts.private else "reads open"
    print(f"serve: {store.where} at http://{opts.host}:{opts.port}/ ({reads}; every write "
          "needs a token)", flush=True)
    if opts.host not in LOOPBACK:
        print(f"serve: listening on {opts.host}, not only this machine", flush=True)
    if opts.workers == 1:
        app = app_mod.create_app(store=store, private=opts.private, max_bytes=opts.max_bytes)
        uvicorn.run(app, host=opts.host, port=opts.port, log_level="warning")
        return 0
    store.close()  # each worker opens its own, from the environment
    os.environ.update({app_mod.ENV["db"]: store.url, app_mod.ENV["private"]:
                       "1" if opts.private else "0",
                       app_mod.ENV["max_bytes"]: str(opts.max_bytes)})
    uvicorn.run("harness.service.app:factory", factory=True, host=opts.host, port=opts.port,
                workers=opts.workers, log_level="warning")
    return 0
