#!/bin/sh
# QuEST's distributed build, as the peer quest-mpi: pyquest-develop's sdist (the same one
# requirements/pyquest.sh builds) with its build switch 'distributed' on, compiled
# against the MPI the project installs (Open MPI's wheel: mpicc beside the project's
# python), so that QuEST and mpi4py share one MPI in the job.
#
# It lives beside the single-process build under another name: every `pyquest` in the
# package's sources becomes `pyquest_mpi` (the package, its Cython cimports and the
# distribution, pyquest_mpi-develop), and the QuEST library is built as libQuEST_mpi.so,
# so that a process that loaded one build never picks up the other's library. Nothing in
# QuEST's or pyQuEST's code changes. About a minute, once.
# Usage: requirements/pyquest_mpi.sh PYTHON   (the project's .venv/bin/python)
set -e
PY=$1
BUILD=.venv-build
BIN=$(cd "$(dirname "$PY")" && pwd)
VERSION=$(sed -n 's/^pyquest-develop==//p' requirements/pinned.txt)
NUMPY=$(sed -n 's/^numpy==//p' requirements/pinned.txt)
if "$PY" -c "import importlib.util as u; assert u.find_spec('pyquest_mpi')" 2>/dev/null; then
    exit 0
fi
test -x "$BIN/mpicc" || { echo "pyquest_mpi: no mpicc beside $PY (make setup installs Open MPI)"; exit 1; }
test -x $BUILD/bin/python || python3 -m venv $BUILD
$BUILD/bin/pip install --quiet "setuptools<70" wheel toml==0.10.2 "numpy==$NUMPY" \
    Cython==0.29.37 scikit-build==0.17.6 cmake==3.31.6 ninja==1.11.1.4
SRC=$BUILD/pyquest-mpi
rm -rf $SRC && mkdir -p $SRC
$BUILD/bin/pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
    "pyquest-develop==$VERSION" -d $SRC
tar xzf $SRC/pyquest-develop-"$VERSION".tar.gz -C $SRC
TREE=$SRC/pyquest-develop-$VERSION
mv $TREE/pyquest $TREE/pyquest_mpi
find $TREE/pyquest_mpi $TREE/CMakeLists.txt $TREE/setup.py $TREE/pyproject.toml -type f \
    \( -name '*.py' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.txt' -o -name '*.toml' \
       -o -name '*.cpp' -o -name '*.h' \) \
    -exec sed -i 's/\bpyquest\b/pyquest_mpi/g' {} +
sed -i "s/'distributed': False/'distributed': True/" $TREE/setup.py
grep -q "'distributed': True" $TREE/setup.py
echo 'set_target_properties(QuEST PROPERTIES OUTPUT_NAME QuEST_mpi)' >> $TREE/CMakeLists.txt
(cd $TREE && PATH="$BIN:$PATH" CC=mpicc CXX=mpicxx \
    ../../bin/pip wheel --quiet --no-build-isolation --no-deps . -w ../wheels)
"$PY" -m pip install --quiet --no-deps --force-reinstall \
    $SRC/wheels/pyquest_mpi_develop-"$VERSION"-*.whl
