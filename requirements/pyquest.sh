#!/bin/sh
# QuEST as a simulator peer, through pyQuEST (import name pyquest). The pyquest 0.0.1
# wheel on PyPI is compiled against numpy 1.x and does not import with numpy 2;
# pyquest-develop (an sdist only, QuEST's C sources inside) builds against the pinned
# numpy 2 with Cython < 3 and scikit-build 0.17, without build isolation: its wheel is
# built here in the build environment ProjectQ's script uses too (.venv-build), then
# installed into the project's environment without touching any other package. About
# a minute, once.
# Usage: requirements/pyquest.sh PYTHON   (the project's .venv/bin/python)
set -e
PY=$1
BUILD=.venv-build
VERSION=$(sed -n 's/^pyquest-develop==//p' requirements/pinned.txt)
NUMPY=$(sed -n 's/^numpy==//p' requirements/pinned.txt)
if "$PY" -c "import pyquest.core" 2>/dev/null; then
    exit 0
fi
test -x $BUILD/bin/python || python3 -m venv $BUILD
$BUILD/bin/pip install --quiet "setuptools<70" wheel toml==0.10.2 "numpy==$NUMPY" \
    Cython==0.29.37 scikit-build==0.17.6 cmake==3.31.6 ninja==1.11.1.4
$BUILD/bin/pip wheel --quiet --no-build-isolation --no-deps "pyquest-develop==$VERSION" \
    -w $BUILD/wheels
"$PY" -m pip install --quiet --no-deps $BUILD/wheels/pyquest_develop-"$VERSION"-*.whl
