"""Check the CuPy stand-in's numeric claims against real CuPy.

``tests/backends/_stand_in.py`` imitates where CuPy computes other numbers
than NumPy (the place of NaNs in sorts, float32 flush-to-zero, scatter order
and dtypes, complex division, ...). Until this script has run on a GPU those
imitations are beliefs: the stand-in's tests only check the backend against
them. Each claim below runs the same few lines on real CuPy and on the
stand-in (of the same CuPy release where the stand-in simulates it) and
prints whether they agree. The stand-in's source names the claim that checks
each imitation (``checked by tools/check_stand_in_claims.py: <claim>``).

    python tools/check_stand_in_claims.py          # on a machine with CuPy and a GPU

Without CuPy or a GPU it runs the stand-in alone (``stand-in only``): that
only shows that the script runs. ``benchmarks/gpu_check.sh`` runs it. Exit
status: 0 when every claim agrees or there was no GPU, 1 when one differs.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "backends"), str(ROOT / "tests"), str(ROOT)]

#: name -> (what the stand-in claims, the lines that show it, given ``xp``)
CLAIMS: dict[str, tuple[str, Callable[[Any], Any]]] = {}


def claim(name: str, says: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Register the check ``name`` of the stand-in's claim ``says``."""

    def register(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
        CLAIMS[name] = (says, check)
        return check

    return register


# -- turning results into plain, comparable values ------------------------------------


def host(value: Any) -> np.ndarray:
    """A NumPy copy of a CuPy or stand-in array (or scalar)."""
    get = getattr(value, "get", None)
    if callable(get) and type(value).__module__.startswith("cupy"):
        return np.asarray(get())
    return np.array(value, copy=True)


def bits(value: Any) -> tuple[str, tuple[int, ...], list[str]]:
    """dtype, shape and the hexadecimal bits of each element: NaN payloads and
    signed zeros count."""
    array = host(value)
    flat = array.reshape(-1)
    if array.dtype.kind == "c":
        flat = flat.view(array.real.dtype)
    if array.dtype.kind in "fc":
        flat = flat.view(f"u{flat.dtype.itemsize}")
    return array.dtype.str, array.shape, [hex(int(v)) for v in flat]


def values(value: Any) -> list[Any]:
    return host(value).reshape(-1).tolist()


def outcome(run: Callable[[], Any]) -> Any:
    """``run()``'s result, or the name of the exception it raised."""
    try:
        return run()
    except Exception as error:
        return f"raises {type(error).__name__}"


def f32(*numbers: int) -> np.ndarray:
    return np.array(numbers, dtype=np.uint32).view(np.float32)


def f64(*numbers: int) -> np.ndarray:
    return np.array(numbers, dtype=np.uint64).view(np.float64)


# NaNs with and without the sign bit and with payloads, beside infinities and zeros.
NANS_32 = f32(0x7FC00002, 0xFFC00000, 0x3F800000, 0x7FC00001, 0xFF800000, 0x7F800000)
NANS_32 = np.concatenate([NANS_32, f32(0x7FC00000, 0x80000000, 0x00000000, 0xBF800000)])
NANS_64 = f64(0x7FF8000000000002, 0xFFF8000000000000, 0x3FF0000000000000, 0x7FF8000000000001)
NANS_64 = np.concatenate([NANS_64, np.array([-np.inf, np.inf, np.nan, -0.0, 0.0, 2.0])])
SUBNORMAL = np.float32(1e-40)


# -- NaN order: thrust's radix sort of 1-D float32/float64 -----------------------------


@claim("sort-1d-by-bits", "1-D float32/float64 sort orders NaNs by their bits")
def _sort_1d(xp: Any) -> Any:
    return [bits(xp.sort(xp.asarray(NANS_32))), bits(xp.sort(xp.asarray(NANS_64)))]


@claim("argsort-1d-by-bits", "1-D float argsort: the same order, stable")
def _argsort_1d(xp: Any) -> Any:
    return [values(xp.argsort(xp.asarray(NANS_32))), values(xp.argsort(xp.asarray(NANS_64)))]


@claim("sort-2d-nan-aware", "other arrays sort with NaN-aware comparisons (NaNs last)")
def _sort_2d(xp: Any) -> Any:
    return bits(xp.sort(xp.asarray(NANS_64[:10].reshape(2, 5)), axis=-1))


@claim("sort-stable", "sorts are stable whatever kind= says")
def _stable(xp: Any) -> Any:
    keys = xp.asarray(np.array([1, 0, 1, 0, 1, 0], dtype=np.int32))
    return values(xp.argsort(keys, kind="quicksort"))


@claim("unique-nans-by-bits", "unique_* sort flattened by the bits; every NaN is unique")
def _unique(xp: Any) -> Any:
    x = xp.asarray(NANS_64)
    result = xp.unique_all(x)
    return [bits(result.values), values(result.indices), values(result.counts)]


@claim("isin-nan-first", "isin sorts the test values: a NaN sorted first leads it astray")
def _isin(xp: Any) -> Any:
    tests = xp.asarray(f64(0xFFF8000000000000, 0x3FF0000000000000, 0x4000000000000000))
    return values(xp.isin(xp.asarray(np.array([1.0, 2.0, 3.0])), tests))


# -- kernels that compute other numbers than NumPy's -----------------------------------


@claim("clip-nan-bound", "clip ignores a NaN bound; min > max gives max, also for a NaN x")
def _clip(xp: Any) -> Any:
    x = xp.asarray(np.array([1.0, np.nan, 5.0]))
    return [bits(xp.clip(x, np.nan, 3.0)), bits(xp.clip(x, 4.0, 2.0))]


@claim("complex-divide-scaled", "complex divide scales by 1/(|c|+|d|): x/inf is NaN")
def _divide(xp: Any) -> Any:
    a = xp.asarray(np.array([1 + 1j, 1 + 0j, 2 - 1j]))
    b = xp.asarray(np.array([complex(np.inf, 0), complex(0, np.inf), 1e300 + 1e300j]))
    return [values(xp.isnan(xp.divide(a, b))), values(xp.isnan(xp.reciprocal(b)))]


@claim("nextafter-ftz", "float32 nextafter flushes subnormals; float16 gives NaN from inf")
def _nextafter(xp: Any) -> Any:
    zeros = xp.asarray(np.array([0.0, 0.0, -0.0], dtype=np.float32))
    toward = xp.asarray(np.array([1.0, -1.0, 1.0], dtype=np.float32))
    infinite = xp.asarray(np.array([np.inf, -np.inf], dtype=np.float16))
    zero16 = xp.asarray(np.zeros(2, dtype=np.float16))
    return [bits(xp.nextafter(zeros, toward)), bits(xp.nextafter(infinite, zero16))]


@claim("unary-ftz", "float32 ceil, floor, trunc, sign, square flush subnormals to zero")
def _unary_flush(xp: Any) -> Any:
    x = xp.asarray(np.array([-SUBNORMAL, SUBNORMAL, np.float32(1e-20)], dtype=np.float32))
    return {
        name: bits(getattr(xp, name)(x)) for name in ("ceil", "floor", "trunc", "sign", "square")
    }


@claim("other-no-ftz", "other float32 functions keep subnormals (the stand-in flushes no more)")
def _other_keep(xp: Any) -> Any:
    x = xp.asarray(np.array([SUBNORMAL, -SUBNORMAL], dtype=np.float32))
    one = xp.asarray(np.ones(2, dtype=np.float32))
    return {
        "multiply": bits(xp.multiply(x, one)),
        "add": bits(xp.add(x, x)),
        "negative": bits(xp.negative(x)),
        "abs": bits(xp.abs(x)),
        "maximum": bits(xp.maximum(x, x)),
    }


@claim("floor-divide-floor", "float // is floor(x1 / x2): 1.0 // 0.1 is 10, inf // 2 is inf")
def _floor_divide(xp: Any) -> Any:
    a = xp.asarray(np.array([1.0, np.inf, -np.inf, 5.0, 1.0]))
    b = xp.asarray(np.array([0.1, 2.0, 3.0, np.inf, -np.inf]))
    return values(xp.floor_divide(a, b))


@claim("remainder-floor", "float % is x1 - floor(x1/x2)*x2: 1 % inf is NaN, 1 % 0.1 < 0")
def _remainder(xp: Any) -> Any:
    a = xp.asarray(np.array([1.0, -1.0, 1.0]))
    b = xp.asarray(np.array([np.inf, np.inf, 0.1]))
    r = host(xp.remainder(a, b))
    return [bool(np.isnan(r[0])), bool(np.isnan(r[1])), bool(r[2] < 0.05)]


@claim("complex-expm1-inexact", "complex expm1 is exp(z) - 1: digits lost near zero")
def _expm1(xp: Any) -> Any:
    x = np.array([1e-10 + 0j, 1e-7 - 1e-7j])
    result = host(xp.expm1(xp.asarray(x)))
    error = np.abs(result - np.expm1(x)) / np.abs(np.expm1(x))
    return [bool(e > 1e-12) for e in error]


@claim("sign-of-nan", "sign(NaN) is NaN and sign(0j) is 0 from 14.2 (before: 0 and NaN)")
def _sign(xp: Any) -> Any:
    real = host(xp.sign(xp.asarray(np.array([np.nan, -2.0]))))
    complex_zero = host(xp.sign(xp.asarray(np.array([0j]))))
    return [bool(np.isnan(real[0])), bool(np.isnan(complex_zero[0]))]


# -- scatters and indexing --------------------------------------------------------------


@claim("scatter-set-order", "informational: of duplicate set positions CuPy keeps any one")
def _set_order(xp: Any) -> Any:
    target = xp.zeros(3)
    target[xp.asarray(np.array([0, 0, 0, 1]))] = xp.asarray(np.array([1.0, 2.0, 3.0, 4.0]))
    return values(target)


SCATTER_DTYPES = (
    "int16", "int32", "int64", "uint32", "uint64", "float16", "float32", "float64", "complex64",
)  # fmt: skip


def _scatter_dtypes(xp: Any, name: str) -> dict[str, str]:
    found = {}
    for dtype in SCATTER_DTYPES:

        def run(dtype: str = dtype) -> str:
            target = xp.zeros(4, dtype=dtype)
            getattr(xp, name).at(target, xp.asarray(np.array([0, 0, 2])), 1)
            return "ok"

        found[dtype] = outcome(run)
    return found


for _name in ("add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or"):
    claim(f"scatter-dtypes-{_name}", f"{_name}.at with index arrays takes only some dtypes")(
        lambda xp, _name=_name: _scatter_dtypes(xp, _name)
    )


@claim("scatter-max-drops-nan", "float maximum.at drops NaN and compares float64 as float32")
def _max_at(xp: Any) -> Any:
    target = xp.asarray(np.array([1.0, 1.0, 0.0]))
    xp.maximum.at(target, xp.asarray(np.array([0, 1])), xp.asarray(np.array([np.nan, 1 + 2e-9])))
    return bits(target)


@claim("index-arrays-wrap", "integer index arrays and take() wrap out-of-range indices")
def _wrap(xp: Any) -> Any:
    x = xp.arange(3)
    index = xp.asarray(np.array([4, -5]))
    return [outcome(lambda: values(x[index])), outcome(lambda: values(xp.take(x, index)))]


@claim("index-error-words", "a scalar index out of range: IndexError 'Index 7 is out ...'")
def _index_words(xp: Any) -> Any:
    try:
        xp.arange(3)[7]
    except IndexError as error:
        return re.sub(r"\d+", "N", str(error))[:40]
    return "no error"


# -- fft and linalg ---------------------------------------------------------------------


@claim("fft-empty-refused", "a transform of an empty array raises (cuFFT: no 0-point plan)")
def _fft_empty(xp: Any) -> Any:
    return outcome(lambda: bits(xp.fft.fft(xp.zeros(0, dtype=xp.complex128))))


@claim("singular-inv-nan", "inv of a singular matrix under errstate 'ignore' gives NaNs")
def _singular(xp: Any) -> Any:
    result = host(xp.linalg.inv(xp.asarray(np.zeros((2, 2)))))
    return bool(np.isnan(result).all())


# -- running ----------------------------------------------------------------------------


def real_cupy() -> tuple[Any, str]:
    """CuPy when it is installed and sees a GPU, else None and why not."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CuPy sees no GPU"
        return cupy, f"CuPy {cupy.__version__}"
    except Exception as error:
        return None, f"no CuPy ({type(error).__name__}: {error})"


def stand_in_for(version: str | None) -> tuple[Any, str]:
    """The stand-in of CuPy ``version``'s release where it simulates it, else its newest."""
    from _stand_in import RELEASES, fake_cupy

    release = RELEASES[-1]
    if version:
        numbers = re.match(r"(\d+)\.(\d+)", version)
        asked = (int(numbers[1]), int(numbers[2])) if numbers else release
        if asked in RELEASES:
            release = asked
    np.seterr(all="ignore")  # CuPy reports no floating-point errors
    return fake_cupy(release), "stand-in of CuPy {}.{}".format(*release)


def run(check: Callable[[Any], Any], xp: Any) -> Any:
    try:
        return check(xp)
    except Exception:
        return "error: " + traceback.format_exc(limit=-1).strip().splitlines()[-1]


def main() -> int:
    cupy, found = real_cupy()
    stand_in, simulated = stand_in_for(getattr(cupy, "__version__", None))
    print(f"stand-in claims: {found}; {simulated}")
    differ = 0
    for name, (says, check) in CLAIMS.items():
        imitated = run(check, stand_in)
        if cupy is None:
            print(f"stand-in only  {name}: {says}\n    stand-in: {imitated}")
            continue
        actual = run(check, cupy)
        if actual == imitated:
            print(f"agree          {name}: {says}")
            continue
        informational = says.startswith("informational")
        differ += not informational
        label = "differ (info)" if informational else "DIFFER"
        print(f"{label:14} {name}: {says}\n    CuPy:     {actual}\n    stand-in: {imitated}")
    total = len(CLAIMS)
    if cupy is None:
        print(f"{total} claims run on the stand-in only: unverified ({found})")
        return 0
    print(f"{total} claims: {total - differ} agree or informational, {differ} differ ({found})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
