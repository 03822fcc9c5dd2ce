#!/usr/bin/env bash
# The GPU check, in one run (docs/gpu.md): the CuPy stand-in's numeric claims
# against real CuPy, the GPU-only tests, the whole suite with cuda:0 as the
# test device, then the GPU benchmarks. Logs go to $OUT
# (default ./gpu-check-logs); summary.txt holds the lines to report.
#
# Needs, already installed: python3 with CuPy (>= 14) and numpy; torch with
# CUDA for the torch round trips; pytest and hypothesis, or the ./.gpu-site
# that benchmarks/gpu_site.sh prepares on a machine with network (it is put on
# PYTHONPATH here, with pytest-xdist and pytest-timeout). No network: cowarray
# runs from this checkout (PYTHONPATH), nothing is installed. Each step has a
# time limit, so the whole script ends within about 9 minutes whatever hangs.
#
# Run from anywhere: bash benchmarks/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."

OUT="${OUT:-$PWD/gpu-check-logs}"
mkdir -p "$OUT"
PYTHON="${PYTHON:-python3}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -d .gpu-site ]; then export PYTHONPATH="$PWD/.gpu-site:$PYTHONPATH"; fi
export PYTHONUNBUFFERED=1
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"

note() { echo "$*" >>"$SUMMARY"; }
# pytest-timeout stops one hung test instead of the whole step, where installed.
PER_TEST=()
if "$PYTHON" -c "import pytest_timeout" 2>/dev/null; then PER_TEST=(--timeout=60); fi
# CuPy compiles each new kernel on first use (minutes over the whole suite on a
# fresh machine): the suite runs in 8 processes where pytest-xdist is installed.
PARALLEL=()
if "$PYTHON" -c "import xdist" 2>/dev/null; then PARALLEL=(-n 8); fi

# 1. What is there (seconds).
{
    date -u
    git rev-parse --short HEAD 2>/dev/null || echo "(no git metadata in this copy)"
    nvidia-smi -L 2>&1 || echo "nvidia-smi: not available"
    "$PYTHON" - <<'EOF'
import importlib
for name in ("numpy", "cupy", "torch", "pytest", "hypothesis"):
    try:
        module = importlib.import_module(name)
        print(name, getattr(module, "__version__", "?"))
    except Exception as error:  # report and go on: the steps below say what it costs
        print(name, "MISSING:", error)
try:
    import cupy
    print("GPUs:", cupy.cuda.runtime.getDeviceCount(), "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())
    import torch
    print("torch.cuda.is_available():", torch.cuda.is_available())
    from cowarray.testing import available_devices
    print("cowarray test devices:", [str(d) for d in available_devices()])
except Exception as error:
    print("GPU probe failed:", error)
EOF
} >"$OUT/env.txt" 2>&1
note "== environment"
cat "$OUT/env.txt" >>"$SUMMARY"

# 1b. The stand-in's numeric imitations (NaN order, flush-to-zero, scatters, ...)
#     against real CuPy: until this has run on a GPU they are unverified.
timeout 90 "$PYTHON" tools/check_stand_in_claims.py >"$OUT/stand_in_claims.log" 2>&1
rc=$?
note "== stand-in claims against real CuPy (exit $rc; 1: some differ): $(tail -n 1 "$OUT/stand_in_claims.log")"
grep -A2 -E "^DIFFER|^differ" "$OUT/stand_in_claims.log" | head -n 60 >>"$SUMMARY"

# 2. GPU-only tests and the backend's own logic, verbose: most important first.
timeout 80 "$PYTHON" -m pytest -p no:cacheprovider -v -rs ${PER_TEST[@]+"${PER_TEST[@]}"} \
    tests/gpu tests/backends >"$OUT/gpu_tests.log" 2>&1
rc=$?
note "== tests/gpu + tests/backends (exit $rc): $(tail -n 1 "$OUT/gpu_tests.log")"
grep -E "FAILED|ERROR|SKIPPED" "$OUT/gpu_tests.log" | head -n 40 >>"$SUMMARY"

# 3. The whole suite (tests and doctests) with cuda:0 as the test device.
#    Verbose, so a run stopped by its time limit still names what failed.
COWARRAY_TEST_DEVICES=cuda:0 timeout 210 "$PYTHON" -m pytest -p no:cacheprovider -v -rfEs \
    ${PER_TEST[@]+"${PER_TEST[@]}"} ${PARALLEL[@]+"${PARALLEL[@]}"} --durations=10 \
    >"$OUT/suite_cuda.log" 2>&1
rc=$?
note "== whole suite on cuda:0 (exit $rc; 124: stopped at its time limit): $(tail -n 1 "$OUT/suite_cuda.log")"
note "   passed: $(grep -c "PASSED" "$OUT/suite_cuda.log"), failed: $(grep -cE " (FAILED|ERROR) " "$OUT/suite_cuda.log")"
grep -E "(FAILED|ERROR) " "$OUT/suite_cuda.log" | grep -v "^=" | head -n 80 >>"$SUMMARY"

# 4. GPU benchmarks (ratios).
timeout 100 "$PYTHON" benchmarks/gpu.py --quick >"$OUT/bench.log" 2>&1
rc=$?
note "== benchmarks/gpu.py --quick (exit $rc)"
cat "$OUT/bench.log" >>"$SUMMARY"

# 5. Every core for big arrays, on this machine's cores (the device machine has
#    16; CI's has 2): the element-wise rows of benchmarks/targets.py.
(cd benchmarks && timeout 60 "$PYTHON" -c "import targets; targets.bench_elementwise(3)") \
    >"$OUT/cores.log" 2>&1
rc=$?
note "== element-wise on $(nproc) cores, benchmarks/targets.py's rows (exit $rc)"
cat "$OUT/cores.log" >>"$SUMMARY"
cat "$SUMMARY"
