"""The command line of ``python -m harness serve`` and ``submit`` (harness.service.command
runs them), apart from them so that the harness's parser is made without loading the
service."""

#: what a request body may hold at most unless ``--max-bytes`` says otherwise: a run of
#: some 60,000 results
MAX_BYTES = 32 << 20


def service_arguments(sub):
    """``serve`` and ``submit`` on the harness's subparsers ``sub``."""
    p = sub.add_parser("serve", help="the comparison service: the JSON API under /api/v1 "
                       "and its pages, over a store")
    p.add_argument("--db", metavar="URL", help="the store (default $QSIM_AD_BENCH_DB, else "
                   "results/results.db)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default "
                   "127.0.0.1: this machine only; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--private", action="store_true", help="reads need a token too (any "
                   "valid one: machine, admin or read)")
    p.add_argument("--max-bytes", type=int, default=MAX_BYTES,
                   help=f"the largest request body taken (default {MAX_BYTES >> 20} MiB)")
    p.add_argument("--workers", type=int, default=1, help="server processes (default 1)")
    p.set_defaults(command="serve")
    p = sub.add_parser("submit", help="send runs (asv results folders, circuit, evals and "
                       "gate JSON) to a comparison service, and whatever an earlier submit "
                       "kept")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--to", required=True, metavar="URL", help="the service (http://HOST:PORT)")
    p.add_argument("--token", help="the token to write with (default $QSIM_AD_BENCH_TOKEN)")
    p.add_argument("--outbox", help="where runs wait to be sent (default results/outbox/)")
    p.set_defaults(command="submit")
