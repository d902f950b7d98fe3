"""gradbench's protocol, the eval's side: any tool that speaks it, given the command that
starts it, as an AD backend of the harness (``--gradbench-tool "CMD"``), validated against
our hand-written derivatives and timed beside our engines and peers.

:class:`ToolProcess` is one running tool: a message written as one JSON line on its stdin,
its answer read as one line from its stdout within a deadline, its stderr kept in a file
for the reasons. :class:`ToolBackend` has the harness's backend interface
(harness.ad.backends: ``require``, ``prepare(problem, args) -> Runner``) over one process,
the problems turned into gradbench's messages by :mod:`harness.gradbench.requests`.

What is timed of a tool is what gradbench times: the nanoseconds the tool reports for one
run of the function (``timings`` named ``evaluate``), which leave out the JSON on the pipe
and its parsing, as our in-process timings have none. Each sample asks for runs filling
SAMPLE_SECONDS and takes the fastest, as our own samples do. A tool that reports no
such timing is timed by the round trip, and the runner says so.

A tool that cannot be started, dies, answers out of turn, says something that is not JSON,
or is silent past the deadline, is unavailable from then on, with that reason: a skip,
never the end of a run. An answer that is a wrong number is a wrong result
(harness.ad.validate does the judging).
"""

import json
import os
import selectors
import shlex
import subprocess
import tempfile
import time

from harness.ad.backends import Runner
from harness.errors import Unavailable

from .requests import PAIRINGS, REQUESTS

#: seconds a tool may take to answer one message (a first call that compiles included)
DEADLINE = 300.0
#: a timing sample asks the tool to repeat the function for this long and takes its
#: fastest run: what harness.timing.best_seconds does with our own calls (min_sample), so
#: that neither side is timed cold
SAMPLE_SECONDS = 0.005


#: why an eval of ours is not asked of a tool (harness.gradbench.requests)
_WHY_NOT = {"kmeans": " (its kmeans asks for dir, the kmeans_dir eval)",
            "ba": " on distinct cameras (its ba input repeats one camera, point and weight)",
            "ba_sparse": " on distinct cameras (its ba input repeats one camera, point and "
                         "weight)"}


class ToolFailure(Unavailable):
    """The tool process cannot go on (it did not start, died, broke the protocol, or was
    silent past the deadline)."""


class ToolProcess:
    """One tool started by ``command`` (a shell-style string, split as a shell would, run
    without one) and sent gradbench's ``start``; :meth:`ask` sends a message and returns
    the tool's answer. ``failure`` is why the tool cannot go on (None while it can): every
    later :meth:`ask` raises :class:`ToolFailure` with it."""

    def __init__(self, command, deadline=DEADLINE):
        self.command, self.deadline = command, deadline
        self._next_id, self._buffer, self.failure = 0, b"", None
        self._stderr = tempfile.TemporaryFile()
        try:
            argv = shlex.split(command)
            if not argv:
                raise ValueError("the command is empty")
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self._stderr)
        except (OSError, ValueError) as exc:  # told at the first ask, as any failure is
            self.process, self.name = None, command
            self.failure = f"could not start {command!r}: {exc}"
            return
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        self.name = argv[0]
        try:
            self.name = str(self.ask({"kind": "start"}).get("tool") or self.name)
        except ToolFailure:
            pass  # kept in self.failure

    def ask(self, message):
        """The tool's answer (a dict) to ``message`` (a dict without its id)."""
        if self.failure:
            raise ToolFailure(self.failure)
        message = {"id": self._next_id, **message}
        self._next_id += 1
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()
            answer = json.loads(self._line(message))
        except (OSError, ValueError) as exc:  # a closed pipe; a line that is not JSON
            self._fail(f"{type(exc).__name__}: {exc}", message)
        if not isinstance(answer, dict) or answer.get("id") != message["id"]:
            self._fail(f"answered {str(answer)[:200]!r} to message {message['id']}", message)
        return answer

    def _line(self, message):
        deadline = time.monotonic() + self.deadline
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                self._fail(f"no answer within {self.deadline:g} s", message)
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                self._fail(f"exited with status {self.process.wait()}", message)
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _fail(self, what, message):
        self.failure = (f"the tool {self.command!r} {what} (on its {message['kind']} "
                        f"message){self._stderr_tail()}")
        self.close()
        raise ToolFailure(self.failure)

    def _stderr_tail(self):
        self._stderr.seek(0)
        tail = self._stderr.read().decode(errors="replace").strip().splitlines()[-5:]
        return "; its stderr ends: " + " | ".join(tail) if tail else ""

    def close(self):
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class ToolRunner(Runner):
    """A :class:`harness.ad.backends.Runner` whose calls run in the tool: ``clocked(which)``
    runs the ``"objective"`` or the ``"gradient"`` once and returns the seconds the tool
    reported for it (``reported`` is False when it reported none and the round trip was
    timed instead)."""

    __slots__ = ("clocked", "reported")


class ToolBackend:
    """A gradbench tool started by ``command`` as an AD backend; ``pairing`` (one of
    PAIRINGS) is the function asked for on the nested evals gradbench evaluates per
    pairing of modes. The process starts at the first :meth:`require` and serves every
    problem after it."""

    def __init__(self, command, pairing=None, process=None):
        if pairing is not None and pairing not in PAIRINGS:
            raise ValueError(f"unknown pairing {pairing!r}; gradbench's are {PAIRINGS}")
        self.command, self.pairing, self._process = command, pairing, process
        self._defined = {}
        self.name = f"gradbench:{command}"

    def with_pairing(self, pairing):
        """The same tool (the same process) asked for ``pairing`` on the nested evals."""
        other = ToolBackend(self.command, pairing, self._start())
        other._defined = self._defined
        return other

    def _start(self):
        if self._process is None:
            self._process = ToolProcess(self.command)
        return self._process

    def require(self):
        process = self._start()
        if process.failure:
            raise ToolFailure(process.failure)
        self.name = process.name + (f":{self.pairing}" if self.pairing else "")

    def close(self):
        if self._process is not None:
            self._process.close()

    def _define(self, module):
        if module not in self._defined:
            answer = self._process.ask({"kind": "define", "module": module})
            self._defined[module] = (None if answer.get("success") else
                                     answer.get("error") or "no reason given")
        if self._defined[module] is not None:
            raise Unavailable(f"{self.name} has no module {module!r}: "
                              f"{self._defined[module]}")

    def prepare(self, problem, args):
        self.require()
        request = REQUESTS.get(problem.name)
        if request is None:
            raise NotImplementedError(f"gradbench has no function computing {problem.name}'s "
                                      "derivative" + _WHY_NOT.get(problem.name, ""))
        derivative = request.derivative or self.pairing
        if derivative is None:
            raise NotImplementedError(f"{problem.name} is evaluated per pairing of modes: "
                                      f"name one of {', '.join(PAIRINGS)} ({self.name}:fr)")
        self._define(request.module)
        data = getattr(problem.f, "keywords", None) or {}
        payload = request.encode(args, data)

        def call(function, min_seconds=0):
            """(the output, the seconds of its fastest run, whether the tool reported
            them)."""
            start = time.perf_counter()
            answer = self._process.ask({
                "kind": "evaluate", "module": request.module, "function": function,
                "input": {**payload, "min_runs": 1, "min_seconds": min_seconds},
                "description": f"the harness's {problem.name}"})
            took = time.perf_counter() - start
            if not answer.get("success"):
                raise NotImplementedError(f"{self.name} could not evaluate "
                                          f"{request.module}.{function}: "
                                          f"{answer.get('error') or 'no reason given'}")
            runs = [t["nanoseconds"] for t in answer.get("timings") or ()
                    if isinstance(t, dict) and t.get("name") == "evaluate"
                    and isinstance(t.get("nanoseconds"), int)]
            return answer.get("output"), (min(runs) * 1e-9 if runs else took), bool(runs)

        def objective():
            if request.objective is None:
                raise NotImplementedError(f"{problem.name} has no objective apart from its "
                                          "derivative")
            return request.value_of(call(request.objective)[0])

        def gradient():
            return call(derivative)[0]

        def grads():
            return request.derivative_of(gradient(), args)

        runner = ToolRunner(objective, gradient, grads)
        runner.reported = True

        def clocked(which):
            _, seconds, reported = call(derivative if which == "gradient" else
                                        request.objective, SAMPLE_SECONDS)
            runner.reported = runner.reported and reported
            return seconds
        runner.clocked = clocked
        return runner
