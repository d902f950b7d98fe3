"""The command line of the store's commands (harness.store.command runs them), apart from
them so that the harness's parser is made without loading the store."""


def store_arguments(sub):
    """The store's commands on the harness's subparsers ``sub``."""
    p = sub.add_parser("record", help="store asv results folders, circuit and evals JSON "
                       "and gate.json that exist already (each run once)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--db", metavar="URL", help="the store (default $QSIM_AD_BENCH_DB, else "
                   "results/results.db)")
    p.set_defaults(command="record")
    p = sub.add_parser("export", help="every run in the store, one JSON line each")
    p.add_argument("--db", metavar="URL")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(command="export")
    p = sub.add_parser("import", help="runs from an export's lines (- reads stdin)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--db", metavar="URL")
    p.set_defaults(command="import")
    p = sub.add_parser("token", help="tokens that write to (or read) a store")
    p.add_argument("action", choices=("create", "list", "revoke"))
    p.add_argument("id", nargs="?", type=int, help="revoke: the token's id (token list)")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--machine", metavar="NAME", help="create: writes runs of this "
                       "machine only")
    scope.add_argument("--admin", action="store_true", help="create: writes any run")
    scope.add_argument("--read", action="store_true", help="create: only reads (a "
                       "--private service)")
    p.add_argument("--note", help="create: what the token is for, kept beside it")
    p.add_argument("--db", metavar="URL")
    p.set_defaults(command="token")
