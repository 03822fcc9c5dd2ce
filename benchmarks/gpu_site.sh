#!/usr/bin/env bash
# Prepare the test tools the GPU check needs, for a GPU machine without
# network: pure-Python pytest, hypothesis, pytest-xdist and pytest-timeout
# installed into ./.gpu-site (about 14 MB), which benchmarks/gpu_check.sh puts
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
du -sh .gpu-site
