#!/bin/sh
# ProjectQ as a simulator peer. PyPI has only its sdist, and 0.8.0's setup.py calls
# Compiler.dry_run, which setuptools >= 72 removed: its wheel is built here, with older
# setuptools in a build environment of its own (.venv-build), then installed into the
# project's environment without touching any other package. About 40 s, once.
# Usage: requirements/projectq.sh PYTHON   (the project's .venv/bin/python)
set -e
PY=$1
BUILD=.venv-build
VERSION=$(sed -n 's/^projectq==//p' requirements/pinned.txt)
if "$PY" -c "import projectq.backends._sim._cppsim" 2>/dev/null; then
    exit 0
fi
test -x $BUILD/bin/python || python3 -m venv $BUILD
$BUILD/bin/pip install --quiet "setuptools<70" "setuptools_scm<8" wheel pybind11
$BUILD/bin/pip wheel --quiet --no-build-isolation --no-deps "projectq==$VERSION" -w $BUILD/wheels
"$PY" -m pip install --quiet --no-deps $BUILD/wheels/projectq-"$VERSION"-*.whl
