#!/usr/bin/env bash
# Prepare the test tools the GPU check needs, for a GPU machine without
# network: pure-Python pytest, hypothesis, pytest-xdist and pytest-timeout
# installed into ./.gpu-site (about 20 MB), which benchmarks/gpu_check.sh puts
# on PYTHONPATH when it exists. Run it here, with network, then carry
# .gpu-site to the GPU machine with the checkout. CuPy, NumPy and torch are
# the GPU machine's own.
#
# pip resolves environment markers for the Python running it, so tomli and
# exceptiongroup (pytest's needs before Python 3.11) are listed by hand: the
# GPU machine's Python may be older than this one's.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
rm -rf .gpu-site
"$PYTHON" -m pip install --quiet --no-compile --target .gpu-site \
    "pytest>=8" "hypothesis>=6.100" pytest-xdist pytest-timeout tomli exceptiongroup

# Recent hypothesis has a compiled module (hypothesis/_native) built for one
# Python: add the builds for the other CPythons a GPU machine may have (the
# H200 machine had 3.12), side by side; Python loads the one for itself.
version=$("$PYTHON" -c "import sys; sys.path.insert(0, '.gpu-site'); import hypothesis; print(hypothesis.__version__)")
if ls .gpu-site/hypothesis/_native.*.so >/dev/null 2>&1; then
    wheels=$(mktemp -d)
    for python in 3.11 3.12 3.13 3.14; do
        "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: \
            --python-version "$python" --platform manylinux2014_x86_64 \
            "hypothesis==$version" -d "$wheels/$python" 2>/dev/null || continue
        "$PYTHON" -m zipfile -e "$wheels/$python"/*.whl "$wheels/$python/files"
        cp "$wheels/$python"/files/hypothesis/_native.*.so .gpu-site/hypothesis/
    done
    rm -rf "$wheels"
fi
du -sh .gpu-site
