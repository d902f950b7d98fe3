"""What every reader of the harness's files shares: a run's fields from the ``"run"``
context a file carries, a result's role and baseline from the registry where the file
does not say them, and the one error a reader raises."""

import functools

import pydantic

from harness import provenance, registry
from harness.store import schema

#: the start of a run whose file does not say when it ran
UNKNOWN_START = "1970-01-01T00:00:00+00:00"


class FileError(ValueError):
    """A file that holds no run the store can take; the message names the file and what
    is wrong with it."""


def run_fields(context, kind):
    """The run's own fields from a file's ``"run"`` context (harness.provenance.context);
    a file without one is taken as this machine's (its source says so)."""
    source = {"kind": kind}
    if not isinstance(context, dict):  # written before files carried their context
        context = {"machine": provenance.machine_facts(), "started": UNKNOWN_START}
        source["machine"] = "assumed: the file names none, so the recording machine"
        source["started"] = "unknown: the file says not when it ran"
    return {"machine": context.get("machine"), "commit": context.get("commit"),
            "dirty": bool(context.get("dirty")), "command": context.get("command") or kind,
            "profile": context.get("profile"), "argv": context.get("argv") or [],
            "versions": context.get("versions") or {}, "tuning": context.get("tuning"),
            "started": context.get("started"), schema.SOURCE_FIELD: source}


@functools.cache
def backend_facts(name):
    """(role, whether it is the baseline its machine's others are drawn relative to) of
    the backend ``name`` as the registry declares it; (None, False) for a name it does
    not know (a plugin not installed here). A setting's row (``fused@3``) is its
    backend's, but never the baseline."""
    base, _, setting = name.partition("@")
    try:
        backend = registry.simulator(base)
        return backend.role, backend.baseline == "peer" and not setting
    except ValueError:
        pass
    try:
        backend = registry.ad_backend(base)
        return backend.role, backend.role == "baseline" and not setting
    except ValueError:
        return None, False


def validated(doc, where):
    """``doc`` as a schema.Run, or FileError naming ``where`` and the first problems."""
    try:
        return schema.Run.model_validate(doc)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise FileError(f"{where}: not a run the store takes: {problems}") from None


def seconds_fields(seconds, interval, samples, times=None):
    """A result's time fields from a row's minimum, interval and sample count."""
    out = {"seconds": seconds, "samples": int(samples or 0)}
    if interval is not None and seconds is not None:
        out["interval"] = [float(interval[0]), float(interval[1])]
    if times is not None:
        out.update(times=[float(t) for t in times], samples=len(times))
    return out


def status_fields(name, row, untimed):
    """A row's backend name, role and baseline (the row's own where it says them, else
    the registry's), status and reason; an ok row that was never timed is a failure,
    ``untimed`` its reason."""
    role, baseline = ((row["role"], bool(row.get("baseline"))) if "role" in row
                      else backend_facts(name))
    status, reason = row["status"], row.get("reason") or ""
    if status == "ok" and row.get("seconds") is None:
        status, reason = "failed", untimed
    if status != "ok" and not reason:
        reason = f"{status}, with no reason given"
    return {"backend": name, "role": role, "baseline": baseline, "status": status,
            "reason": reason,
            **seconds_fields(row.get("seconds"), row.get("interval"), row.get("samples"))}
