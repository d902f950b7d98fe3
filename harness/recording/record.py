"""Storing what a command measured, and sending it on: :func:`record` takes the runs a
command made (harness.store.files reads them from what the command wrote, so that the
file recorded now and the same file recorded later are one run), stores them unless told
``--no-record``, and submits them where told ``--submit URL``.

Recording never changes a command's verdict: a store that cannot be written, a service
that cannot be reached, is said on stderr, and the measurement stands (its JSON, where
asked for, is written whatever happens here; a run not sent waits in the outbox).
"""

import sys

from harness.service import client
from harness.store import database, write


def record(make_runs, opts, say=None):
    """Store the runs ``make_runs()`` returns (schema.Run) in ``opts.db`` unless
    ``opts.no_record``, and send them to ``opts.submit`` where given; returns the runs'
    ids ([] when nothing was recorded or sent)."""
    say = say or (lambda text: print(text, file=sys.stderr))
    no_record, url = getattr(opts, "no_record", False), getattr(opts, "submit", None)
    if no_record and not url:
        return []
    try:
        runs = make_runs()
    except Exception as exc:  # a reader's FileError, or a bug: the measurement stands
        say(f"record: nothing recorded: {exc}")
        return []
    ids = [run.id for run in runs]
    if not no_record:
        try:
            store = database.Store(getattr(opts, "db", None))
            try:
                for run in runs:
                    _, new = write.add(store, run)
                    say(f"record: run {run.id} ({len(run.results)} results) "
                        f"{'recorded' if new else 'was already recorded'} in {store.where}")
            finally:
                store.close()
        except Exception as exc:
            say(f"record: not recorded in the store: {type(exc).__name__}: {exc}")
    if url:
        try:
            client.queue(runs)
            client.send(url, getattr(opts, "token", None), say=say)
        except Exception as exc:  # no token, no disk: said, and kept where it could be
            say(f"record: not submitted: {exc}")
    return ids
