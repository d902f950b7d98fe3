"""The flags of every command that records (harness circuit, evals, gate, bench), apart
from what they do so that the command line is built without loading the store."""


def recording_arguments(p):
    """Add --no-record, --db, --submit and --token to the parser ``p``."""
    g = p.add_argument_group("recording (docs/service.md)")
    g.add_argument("--no-record", action="store_true",
                   help="leave the results out of the store (a --submit still sends them)")
    g.add_argument("--db", metavar="URL", help="the store to record into: an SQLAlchemy URL "
                   "or an SQLite file (default $QSIM_AD_BENCH_DB, else results/results.db)")
    g.add_argument("--submit", metavar="URL", help="also send the run to the comparison "
                   "service at URL (http://HOST:PORT); what cannot be sent is kept in "
                   "results/outbox/ for the next submit")
    g.add_argument("--token", help="the token --submit writes with (default "
                   "$QSIM_AD_BENCH_TOKEN)")
    return p
