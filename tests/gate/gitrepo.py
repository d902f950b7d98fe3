"""Scratch git repositories for the gate's tests: commits with a fixed identity, so that
the tests run the same on a machine with no git configuration."""

import os
import subprocess

IDENTITY = {"GIT_AUTHOR_NAME": "gate test", "GIT_AUTHOR_EMAIL": "gate@test",
            "GIT_COMMITTER_NAME": "gate test", "GIT_COMMITTER_EMAIL": "gate@test"}


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True, env={**os.environ, **IDENTITY}).stdout.strip()


def commit(repo, message, files=None, append=None, trailers=()):
    """Commit ``files`` ({path: text}) and ``append`` ({path: text added at the end});
    return the new sha."""
    for path, text in (files or {}).items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    for path, text in (append or {}).items():
        with open(repo / path, "a") as f:
            f.write(text)
    git(repo, "add", "-A")
    args = ["commit", "-q", "--allow-empty", "-m", message]
    for trailer in trailers:
        args += ["--trailer", trailer]
    git(repo, *args)
    return git(repo, "rev-parse", "HEAD")
