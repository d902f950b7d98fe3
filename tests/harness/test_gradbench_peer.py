"""gradbench's protocol from the eval's side: a tool given by its command as an AD backend
(harness.gradbench.peer) and ``python -m harness evals --gradbench-tool CMD``. Our own
tool (``python -m harness gradbench-tool``) goes through that path and must be validated
on every eval gradbench and we share; fake tools that answer wrong, die, hang, talk
nonsense or answer out of turn must be judged wrong or skipped with the reason, never
stop the run."""

import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

from harness.ad import command
from harness.ad import validate as ad_validate
from harness.errors import ValidationError
from harness.gradbench import evals
from harness.gradbench.peer import ToolBackend, ToolFailure, ToolProcess
from harness.gradbench.requests import REQUESTS
from kernels.ad.problems import PROBLEMS, size_seed

REPO = Path(__file__).resolve().parents[2]
OURS = f"{sys.executable} -m harness gradbench-tool --engine reverse"
#: the evals served without pairings (the nested particle and saddle take tens of
#: seconds: tested under the slow marker)
DIRECT = [name for name, r in REQUESTS.items() if r.derivative is not None]

FAKE = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, {repo!r})
    from harness.gradbench import evals, protocol
    mode = sys.argv[1]
    tool = protocol.Tool("fake-" + mode, evals.modules("reverse"))
    for line in sys.stdin:
        message = json.loads(line)
        answer = tool.answer(message)
        if message["kind"] == "evaluate":
            if mode == "wrong" and isinstance(answer.get("output"), list):
                answer["output"][-1] *= 1 + 1e-6
            elif mode == "dies":
                sys.stderr.write("fake tool: giving up\\n")
                sys.exit(3)
            elif mode == "hangs":
                time.sleep(60)
            elif mode == "garbage":
                answer = "this is not JSON"
            elif mode == "untimed":
                answer.pop("timings")
            elif mode == "misnumbered":
                answer["id"] += 7
        text = answer if isinstance(answer, str) else json.dumps(answer)
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()
""")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    """``fake(mode)``: the command starting a fake tool that misbehaves as ``mode`` says."""
    script = tmp_path_factory.mktemp("tools") / "fake_tool.py"
    script.write_text(FAKE.format(repo=str(REPO)))
    return lambda mode: f"{sys.executable} {script} {mode}"


@pytest.fixture(scope="module")
def ours():
    tool = ToolBackend(OURS)
    yield tool
    tool.close()


def bound(name, size=None):
    registered = PROBLEMS[name]
    size = registered.sizes[0] if size is None else size
    return registered.bind(size, np.random.default_rng(size_seed(size)))


def _arrays_equal(a, b):
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


@pytest.mark.parametrize("name", [*REQUESTS])
def test_each_request_is_read_back_by_the_tool_side_as_the_same_call(name):
    """The two directions agree: what the peer sends for a problem, the tool side
    (harness.gradbench.evals) parses into the same arguments and the same data."""
    problem, args = bound(name)
    request = REQUESTS[name]
    function = request.derivative or "fr"
    data = getattr(problem.f, "keywords", {})
    called, arguments, _ = evals.modules("reverse")[request.module][function](
        request.encode(args, data))
    if problem.output == "nested" and request.derivative is None:  # (outer, inner, *start)
        arguments = arguments[2:]
    elif request.derivative == "dir":  # the procedure itself, its data bound
        assert all(_arrays_equal(called.keywords[k], v) for k, v in data.items())
    else:  # the engine's gradient of f with its data bound, then the arguments
        f, arguments = arguments[0], arguments[1:]
        assert set(getattr(f, "keywords", {})) == set(data)
        assert all(_arrays_equal(f.keywords[k], v) for k, v in data.items())
    assert len(arguments) == len(args)
    assert all(_arrays_equal(a, b) for a, b in zip(arguments, args))


@pytest.mark.parametrize("name", DIRECT)
def test_our_tool_through_the_peer_is_validated_on_every_shared_eval(ours, name):
    """Our reverse tool, driven as a peer: every derivative it returns passes the same
    validation as every backend (harness.ad.validate, against the hand-written one), its
    objective matches f, and a timing sample is what the tool reported for a run."""
    problem, args = bound(name)
    runner = ad_validate.validated_runner(ours, problem, args, what=name)
    assert ours.name == "qsim-ad-bench-reverse"
    seconds = runner.clocked("gradient")
    assert 0 < seconds < 60 and runner.reported


def test_a_wrong_tool_is_judged_wrong_and_the_command_exits_1(fake, capsys):
    problem, args = bound("lse")
    with pytest.raises(ValidationError):
        ad_validate.validated_runner(ToolBackend(fake("wrong")), problem, args, what="lse")
    opts = types.SimpleNamespace(eval=["lse"], size="smallest", backend=["manual"],
                                 gradbench_tool=[fake("wrong")], rounds=1, budget=0.1,
                                 max_seconds=10.0)
    assert command.main(opts) == 1
    out = capsys.readouterr().out
    assert "| fake-wrong | WRONG | - |" in out
    assert "1 wrong result(s)" in out


@pytest.mark.parametrize("mode, reason", [
    ("dies", "exited with status 3 (on its evaluate message); its stderr ends: fake tool: "
             "giving up"),
    ("garbage", "JSONDecodeError"),
    ("misnumbered", "to message 2"),
])
def test_a_broken_tool_is_skipped_with_its_reason_and_stays_so(fake, mode, reason):
    """The tool is unavailable from its failure on, each later problem told the same
    reason without another attempt."""
    tool = ToolBackend(fake(mode))
    try:
        problem, args = bound("lse")
        with pytest.raises(ToolFailure, match=reason.replace("(", r"\(").replace(")", r"\)")):
            ad_validate.validated_runner(tool, problem, args, what="lse")
        problem, args = bound("llsq")
        with pytest.raises(ToolFailure, match="JSON|status|message 2"):
            ad_validate.validated_runner(tool, problem, args, what="llsq")
    finally:
        tool.close()


def test_a_silent_tool_fails_at_the_deadline(fake):
    # the start is given its time (a loaded machine starts a Python tool in over a
    # second); the evaluate, which it never answers, one second
    process = ToolProcess(fake("hangs"), deadline=60.0)
    process.deadline = 1.0
    tool = ToolBackend(process.command, process=process)
    problem, args = bound("lse")
    with pytest.raises(ToolFailure, match=r"no answer within 1 s \(on its evaluate"):
        ad_validate.validated_runner(tool, problem, args, what="lse")
    assert process.process.poll() is not None  # closed, not left running


def test_tools_that_cannot_start_or_lack_a_module_are_skips(fake):
    missing = ToolBackend("/no/such/tool --flag")
    with pytest.raises(ToolFailure, match="could not start '/no/such/tool --flag'"):
        missing.require()
    tool = ToolBackend(fake("untimed"))
    try:
        problem, args = bound("ba")
        with pytest.raises(NotImplementedError, match="gradbench has no function"):
            tool.prepare(problem, args)
        problem, args = bound("particle")
        with pytest.raises(NotImplementedError, match="name one of ff, fr, rf, rr"):
            tool.prepare(problem, args)
    finally:
        tool.close()


def test_the_command_times_a_tool_beside_ours_and_says_how(fake, capsys):
    """A case's table has the tool's row beside ours with its time and ratios; a tool
    that reports no timing is timed by the round trip, and the note says so."""
    opts = types.SimpleNamespace(eval=["lse"], size="smallest",
                                 backend=["manual", "reverse"],
                                 gradbench_tool=[OURS, fake("untimed"), "/no/such/tool"],
                                 rounds=2, budget=0.5, max_seconds=10.0)
    assert command.main(opts) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")
            for line in out.splitlines() if line.startswith("| ")}
    for name in ("manual", "reverse", "qsim-ad-bench-reverse", "fake-untimed"):
        assert rows[name][1] == "ok" and rows[name][2].endswith("s"), rows[name]
        assert float(rows[name][4].strip(" |")) > 0
    assert rows["the objective (f)"][4].strip(" |") == "1"
    assert "fake-untimed (ok): timed by the round trip" in out
    assert "/no/such/tool (skip): could not start" in out


@pytest.mark.parametrize("argv, message", [
    (dict(eval=["nope"]), "unknown eval(s) ['nope']"),
    (dict(eval=["lse"], size="7"), "lse has no size '7'"),
    (dict(backend=["nope"]), "unknown AD backend 'nope'"),
])
def test_bad_input_is_exit_2_naming_it(argv, message, capsys):
    opts = types.SimpleNamespace(**{**dict(eval=None, size="smallest", backend=None,
                                           gradbench_tool=None, rounds=1, budget=0.1,
                                           max_seconds=1.0), **argv})
    assert command.main(opts) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_nested_saddle_through_the_peer_per_pairing():
    """Each pairing is asked by name (seconds each): those the tool's engines nest are
    validated, reverse inside reverse is a skip with the engine's reason."""
    tool = ToolBackend(f"{sys.executable} -m harness gradbench-tool --engine forward")
    try:
        problem, args = bound("saddle")
        for pairing in ("ff", "fr"):
            runner = ad_validate.validated_runner(tool.with_pairing(pairing), problem, args,
                                                  what=f"saddle {pairing}")
            assert runner.grads()[0].shape == (4,)
        with pytest.raises(NotImplementedError, match="saddle.rr raised NestingError"):
            ad_validate.validated_runner(tool.with_pairing("rr"), problem, args, what="rr")
    finally:
        tool.close()


def test_sizes_are_chosen_by_name_or_as_written():
    assert command.sizes_of("gmm", "d=2,k=5") == ["d=2,k=5"]
    assert command.sizes_of("ode", "middle") == [10000]
    assert command.sizes_of("det", "largest") == [11]
    assert command.sizes_of("particle", "all") == [1]
    assert all(command.sizes_of(e, "smallest") == [PROBLEMS[e].sizes[0]]
               for e in command.EVALS)
