"""``python -m harness gradbench-tool --engine NAME``: one of our AD engines as a gradbench
tool, answering gradbench's messages on stdin with one line each on stdout until stdin
ends (exit 0); an engine we do not have is exit 2, before any message is read."""

import sys

from kernels.ad import ENGINES

from . import evals, protocol


def main(opts, stdin=None, stdout=None, stderr=None):
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    if opts.engine not in ENGINES:
        stderr.write(f"gradbench-tool: no engine {opts.engine!r}; the engines are "
                     f"{', '.join(sorted(ENGINES))}\n")
        return 2
    facts = ENGINES[opts.engine].BACKEND  # the name it declares, under its package's
    tool = protocol.Tool(f"{facts.package}-{facts.name}", evals.modules(opts.engine))

    def write(line):  # one flushed line a response: the eval waits for each
        stdout.write(line)
        stdout.flush()
    protocol.serve(tool, stdin, write, log=stderr.write)
    return 0
