"""gradbench's tool protocol, the tool's side: JSON messages one per line on stdin, one
response line each on stdout (gradbench's CONTRIBUTING.md is the specification).

The eval sends, with ids counting up from 0:

* ``start`` ({"id", "eval"?, "config"?}): answered {"id", "tool"};
* ``define`` ({"id", "module"}): {"id", "success"}, with "error" where the tool has no
  such module (the eval then sends nothing more);
* ``evaluate`` ({"id", "module", "function", "input", "description"?}): {"id",
  "success", "output", "timings"}, or {"id", "success": false, "error"};
* ``analysis`` ({"id", "of", "valid", "error"?}): the eval's verdict on an output,
  answered {"id"}.

An input that holds ``min_runs`` and ``min_seconds`` asks for the function to be run
until both are reached, one {"name": "evaluate", "nanoseconds": integer} timing per run;
those two fields are the protocol's, not the function's. A message this side cannot
serve (a line that is not JSON, an unknown kind, a function that raises) gets an answer
that says why, never a crash, and the tool goes on to the next line.
"""

import json
import time


class Unserved(Exception):
    """A message the tool cannot serve; its text is the answer's ``error``."""


def runs(function, arguments, min_runs=1, min_seconds=0.0):
    """(the last run's output, timings): ``function(*arguments)`` run until it has run
    ``min_runs`` times and for ``min_seconds`` in all, each run timed on its own."""
    timings, total, output = [], 0, None
    while len(timings) < max(1, min_runs) or total < min_seconds * 1e9:
        start = time.perf_counter_ns()
        output = function(*arguments)
        took = time.perf_counter_ns() - start
        timings.append({"name": "evaluate", "nanoseconds": took})
        total += took
    return output, timings


def _repeats(payload):
    """(the function's input, min_runs, min_seconds) of an evaluate message's input."""
    if not isinstance(payload, dict) or "min_runs" not in payload:
        return payload, 1, 0.0
    rest = {k: v for k, v in payload.items() if k not in ("min_runs", "min_seconds")}
    try:
        min_runs, min_seconds = int(payload["min_runs"]), float(payload.get("min_seconds", 0))
    except (TypeError, ValueError) as exc:
        raise Unserved(f"min_runs and min_seconds must be numbers: {exc}") from None
    return rest, min_runs, min_seconds


class Tool:
    """A protocol-speaking tool: ``name`` for the start message, ``modules`` {module:
    {function: prepare}} where ``prepare(input) -> (callable, arguments, to_json)``
    turns an evaluate message's input into the timed call and its output into JSON."""

    def __init__(self, name, modules):
        self.name, self.modules = name, modules

    def answer(self, message):
        """The response (a dict) to one message (a dict)."""
        kind, mid = message.get("kind"), message.get("id")
        if kind == "start":
            return {"id": mid, "tool": self.name}
        if kind == "analysis":
            return {"id": mid}
        try:
            if kind == "define":
                self._module(message)
                return {"id": mid, "success": True}
            if kind == "evaluate":
                return {"id": mid, "success": True, **self._evaluate(message)}
            raise Unserved(f"unknown message kind {kind!r}: start, define, evaluate and "
                           "analysis are the protocol's")
        except Unserved as exc:
            return {"id": mid, "success": False, "error": str(exc)}

    def _module(self, message):
        module = message.get("module")
        if not isinstance(module, str) or module not in self.modules:
            raise Unserved(f"{self.name} has no module {module!r}; it has "
                           f"{', '.join(sorted(self.modules))}")
        return self.modules[module]

    def _evaluate(self, message):
        functions = self._module(message)
        name = message.get("function")
        if not isinstance(name, str) or name not in functions:
            raise Unserved(f"module {message['module']!r} has no function {name!r}; it has "
                           f"{', '.join(sorted(functions))}")
        payload, min_runs, min_seconds = _repeats(message.get("input"))
        try:
            function, arguments, to_json = functions[name](payload)
            output, timings = runs(function, arguments, min_runs, min_seconds)
            return {"output": to_json(output), "timings": timings}
        except Unserved:
            raise
        except Exception as exc:  # the function's own failure: the eval hears why
            raise Unserved(f"{message['module']}.{name} raised {type(exc).__name__}: "
                           f"{exc}") from exc


def serve(tool, lines, write, log=None):
    """Answer every message of ``lines`` (an iterable of text lines) with ``write(line)``,
    one line each, until the lines end. ``log(text)``: where each refusal is told as well
    (stderr is the protocol's place for a tool's own words)."""
    for line in lines:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError(f"a message is a JSON object, got {type(message).__name__}")
        except ValueError as exc:
            response = {"id": None, "success": False, "error": f"not a message: {exc}"}
        else:
            response = tool.answer(message)
        try:
            text = json.dumps(response, allow_nan=False)
        except (TypeError, ValueError) as exc:  # NaN, infinity or no JSON type in it
            response = {"id": response.get("id"), "success": False,
                        "error": f"the output is not JSON: {exc}"}
            text = json.dumps(response)
        if log is not None and response.get("success") is False:
            log(f"gradbench tool: {response['error']}\n")
        write(text + "\n")
