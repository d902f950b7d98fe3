"""Revisions as checkouts: each side of a comparison gets its own git worktree under
``.gate/trees/``, so that each is built and measured from its own files, with the same
interpreter and installed dependencies. A tree is kept between runs (so its numba cache
stays warm) and is named ``<side>-<sha>``: base and head paths have the same length even
when they are the same commit (an A/A run)."""

import shutil
import subprocess
from pathlib import Path

from harness.gate.runner import GateError, Side


def git(repo, *args, check=True):
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise GateError(f"git {' '.join(args)}: {result.stderr.strip() or result.stdout.strip()}")
    return result.stdout.strip()


def resolve(repo, rev):
    """The full sha of commit ``rev``; GateError naming it if there is none."""
    result = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet",
                             f"{rev}^{{commit}}"], capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout.strip():
        raise GateError(f"unknown revision {rev!r} in {repo}")
    return result.stdout.strip()


def _usable(tree, sha):
    if not (tree / ".git").exists():
        return False
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    status = subprocess.run(["git", "-C", str(tree), "status", "--porcelain",
                             "--untracked-files=no"], capture_output=True, text=True)
    return head == sha and status.returncode == 0 and not status.stdout.strip()


def checkout(repo, gate_dir, side, sha):
    """The Side for ``sha``: its worktree (reused when intact) and its kernel cache."""
    trees = Path(gate_dir) / "trees"
    trees.mkdir(parents=True, exist_ok=True)
    tree = trees / f"{side}-{sha}"
    if not _usable(tree, sha):
        git(repo, "worktree", "remove", "--force", str(tree), check=False)
        shutil.rmtree(tree, ignore_errors=True)
        git(repo, "worktree", "prune")
        git(repo, "worktree", "add", "--detach", "--force", str(tree), sha)
    cache = Path(gate_dir) / "cache" / f"{side}-{sha}"
    cache.mkdir(parents=True, exist_ok=True)
    return Side(side, sha, tree.resolve(), cache.resolve())


def prune(repo, gate_dir, keep):
    """Remove the gate's trees and caches other than those of the Sides ``keep``."""
    names = {s.tree.name for s in keep}
    for kind in ("trees", "cache"):
        folder = Path(gate_dir) / kind
        for path in folder.iterdir() if folder.exists() else ():
            if path.name in names:
                continue
            if kind == "trees":
                git(repo, "worktree", "remove", "--force", str(path), check=False)
            shutil.rmtree(path, ignore_errors=True)
    git(repo, "worktree", "prune", check=False)


def differ(repo, base, head, paths):
    """The files under ``paths`` whose content differs between commits ``base`` and
    ``head``."""
    out = git(repo, "diff", "--name-only", base, head, "--", *paths)
    return [line for line in out.splitlines() if line.strip()]
