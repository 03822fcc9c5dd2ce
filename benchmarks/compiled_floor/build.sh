#!/bin/sh
# Builds the measurement prototype compiled_floor.c (not part of the package)
# into this folder with gcc -O2, against the running `python`'s headers and
# NumPy's. Works from any current directory; the .so is git-ignored.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python}
PYINC=$("$PYTHON" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPINC=$("$PYTHON" -c "import numpy; print(numpy.get_include())")
SUFFIX=$("$PYTHON" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
gcc -O2 -fPIC -shared -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
    -I"$PYINC" -I"$NPINC" "$HERE/compiled_floor.c" -o "$HERE/compiled_floor$SUFFIX"
