import shutil
import subprocess

import pytest

from harness.gate.command import ROOT
from tests.gate.gitrepo import git

#: Appended to a revision's stride.py: prepared stride gates run their loop three times
#: (H three times is H, so the result stays right and only the work grows).
THRICE = '''

_plan_once = plan


def plan(g, dtype, parallel=False):  # injected by the gate's tests
    fn, args = _plan_once(g, dtype, parallel)

    def thrice(st, *rest):
        fn(st, *rest)
        fn(st, *rest)
        fn(st, *rest)
    return thrice, args
'''

#: Appended to stride.py: prepared stride gates do nothing, a wrong result.
BROKEN = '''

def plan(g, dtype, parallel=False):  # injected by the gate's tests
    def nothing(st, *rest):
        pass
    return nothing, ()
'''

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None,
                                    reason="valgrind is not installed (apt-get install valgrind)")


@pytest.fixture(scope="session")
def clone(tmp_path_factory):
    """A clone of this repository's HEAD that tests may commit to."""
    path = tmp_path_factory.mktemp("gate") / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(path)], check=True)
    git(path, "checkout", "-q", "-b", "gate-test")
    return path
