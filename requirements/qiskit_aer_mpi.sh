#!/bin/sh
# qiskit-aer's MPI mode, as the peer qiskit-aer-mpi: its sdist on PyPI (the pinned
# version) built with -DAER_MPI=True against the project's Open MPI (mpicxx beside the
# venv's python). Conan, which the build uses by default, fetches from a server this
# machine cannot reach, so the build takes its C++ libraries from Debian (DISABLE_CONAN=ON):
# nlohmann-json3-dev 3.11.2 and libspdlog-dev 1.10 are older than the versions Aer's CMake
# names (3.11.3, 1.14.1), and it builds with them after a warning; libopenblas-dev gives
# BLAS. About 4 minutes on 2 cores, so it is a make target of its own (make aer-mpi), not
# part of make setup.
#
# It lives beside the pinned single-process qiskit-aer under another name, as pyquest_mpi
# does beside pyquest: every `qiskit_aer` in the package's sources, its CMake files and
# the two Python imports its C++ makes (src/framework/pybind_json.hpp) becomes
# `qiskit_aer_mpi`, and the distribution is qiskit-aer-mpi, so that one process can import
# both and each build's Python finds its own extension. Its pybind11 bindings get their
# own registry (PYBIND11_STDLIB is part of the registry's key): in the shared one, the
# second build to load is refused ("type aer_controller_execute is already registered").
# And its module starts MPI at import only where MPI is not running yet: unpatched, it
# calls MPI_Init_thread whatever mpi4py did, which Open MPI reports as erroneous. Nothing
# else changes.
# Usage: requirements/qiskit_aer_mpi.sh PYTHON   (the project's .venv/bin/python)
set -e
PY=$1
BIN=$(cd "$(dirname "$PY")" && pwd)
BUILD=.venv-build
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
TREE=$SRC/qiskit_aer-$VERSION
mv $TREE/qiskit_aer $TREE/qiskit_aer_mpi
find $TREE/qiskit_aer_mpi $TREE/CMakeLists.txt $TREE/setup.py $TREE/MANIFEST.in \
    $TREE/src/framework/pybind_json.hpp -type f \
    \( -name '*.py' -o -name '*.txt' -o -name '*.in' -o -name '*.hpp' \) \
    -exec sed -i 's/\bqiskit_aer\b/qiskit_aer_mpi/g' {} +
sed -i 's/^\( *\)MPI_Init_thread(\(.*\));/\1int started; MPI_Initialized(\&started);\n\1if (!started) MPI_Init_thread(\2);/' \
    $TREE/qiskit_aer_mpi/backends/wrappers/bindings.cc
grep -q "if (!started) MPI_Init_thread" $TREE/qiskit_aer_mpi/backends/wrappers/bindings.cc
echo 'target_compile_definitions(controller_wrappers PRIVATE PYBIND11_STDLIB="_qiskit_aer_mpi")' \
    >> $TREE/qiskit_aer_mpi/backends/wrappers/CMakeLists.txt
(cd $TREE && PATH="$BIN:$PATH" DISABLE_CONAN=ON QISKIT_AER_PACKAGE_NAME=qiskit-aer-mpi \
    ../../bin/python setup.py --quiet bdist_wheel -- -DAER_MPI=True -DAER_DISABLE_GDR=True \
    -DCMAKE_CXX_COMPILER="$BIN/mpicxx")
"$PY" -m pip install --quiet --no-deps --force-reinstall \
    $TREE/dist/qiskit_aer_mpi-"$VERSION"-*.whl
echo "qiskit-aer $VERSION with MPI: qiskit_aer_mpi"
