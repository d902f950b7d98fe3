#!/bin/sh
# qiskit-aer's MPI mode, built from its sdist on PyPI (the pinned version) with
# -DAER_MPI=True against the project's Open MPI (mpicxx beside the venv's python). Conan,
# which the build uses by default, fetches from a server this machine cannot reach, so the
# build takes its C++ libraries from Debian (DISABLE_CONAN=ON): nlohmann-json3-dev 3.11.2
# and libspdlog-dev 1.10 are older than the versions Aer's CMake names (3.11.3, 1.14.1),
# and it builds with them after a warning; libopenblas-dev gives BLAS. About 4 minutes
# on 2 cores.
#
# The wheel goes into its own folder, .venv-aer-mpi (not site-packages: it would replace
# the pinned single-process qiskit-aer); a process that puts that folder first on
# sys.path imports the MPI build. No adapter drives it yet (docs/distributed.md).
# Usage: requirements/qiskit_aer_mpi.sh PYTHON   (the project's .venv/bin/python)
set -e
PY=$1
BIN=$(cd "$(dirname "$PY")" && pwd)
BUILD=.venv-build
TARGET=.venv-aer-mpi
VERSION=$(sed -n 's/^qiskit-aer==//p' requirements/pinned.txt)
test -x "$BIN/mpicxx" || { echo "qiskit-aer MPI: no mpicxx beside $PY (make setup installs Open MPI)"; exit 1; }
if ! dpkg -s nlohmann-json3-dev libspdlog-dev libopenblas-dev >/dev/null 2>&1; then
    apt-get install -y -q nlohmann-json3-dev libspdlog-dev libopenblas-dev >/dev/null
fi
test -x $BUILD/bin/python || python3 -m venv $BUILD
$BUILD/bin/pip install --quiet "setuptools<70" wheel "conan<2.0.0" "pybind11>=3.0" \
    scikit-build==0.17.6 cmake==3.31.6 ninja==1.11.1.4
SRC=$BUILD/qiskit-aer-mpi
rm -rf $SRC && mkdir -p $SRC
$BUILD/bin/pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
    "qiskit-aer==$VERSION" -d $SRC
tar xzf $SRC/qiskit_aer-"$VERSION".tar.gz -C $SRC
(cd $SRC/qiskit_aer-"$VERSION" && PATH="$BIN:$PATH" DISABLE_CONAN=ON \
    ../../bin/python setup.py --quiet bdist_wheel -- -DAER_MPI=True -DAER_DISABLE_GDR=True \
    -DCMAKE_CXX_COMPILER="$BIN/mpicxx")
rm -rf $TARGET
"$PY" -m pip install --quiet --no-deps --target $TARGET \
    $SRC/qiskit_aer-"$VERSION"/dist/qiskit_aer-"$VERSION"-*.whl
echo "qiskit-aer $VERSION with MPI: $TARGET"
