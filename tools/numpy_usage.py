"""Rank NumPy's functions by how often installed libraries call them.

Counts the call sites ``np.<name>(`` and ``numpy.<name>(`` in the library
code (test folders left out) of the consumers installed beside cowarray:
SciPy and scikit-learn, and xarray, pandas, matplotlib, scikit-image,
statsmodels and networkx where they are installed. Calls are found with
Python's tokenizer, so comments and strings (docstring examples) are not
counted, nor ``np.linalg.norm(`` (a submodule's function: ``linalg`` is not
followed by ``(``) nor ``np.float64`` used as a type.

The ranking is intersected with ``jax.numpy``'s public names (below, taken
from ``jax/numpy/__init__.py`` of the public repository jax-ml/jax at commit
cec06d116c05f0d52adfceee3d3b730fdbcb0ce5, 2026-08-08: every ``name as name``
of that file) and compared with cowarray's namespace::

    python tools/numpy_usage.py            # the top 100 and what cowarray lacks
    python tools/numpy_usage.py --top 200  # a longer list

docs/numpy_functions.md records the result and what was done with it.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import io
import sys
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

#: The libraries whose code is counted, where installed (import names).
CONSUMERS: Final = (
    "scipy",
    "sklearn",
    "xarray",
    "pandas",
    "matplotlib",
    "skimage",
    "statsmodels",
    "networkx",
)

#: jax.numpy's public names: the ``name as name`` re-exports of
#: jax/numpy/__init__.py (jax-ml/jax, cec06d116c05f0d52adfceee3d3b730fdbcb0ce5).
JAX_NUMPY_NAMES: Final = frozenset(
    """
    ComplexWarning __array_api_version__ __array_namespace_info__ abs absolute acos acosh add
    all allclose amax amin angle any append apply_along_axis apply_over_axes arange arccos
    arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere
    around array array_equal array_equiv array_repr array_split array_str asarray asin asinh
    astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett bfloat16
    bincount bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not
    bitwise_or bitwise_right_shift bitwise_xor blackman block bool_ broadcast_arrays
    broadcast_shapes broadcast_to c_ can_cast cbrt cdouble ceil character choose clip
    column_stack complex128 complex64 complex_ complexfloating compress concat concatenate
    conj conjugate convolve copy copysign corrcoef correlate cos cosh count_nonzero cov cross
    csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag
    diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot double
    dsplit dstack dtype e ediff1d einsum einsum_path empty empty_like equal euler_gamma exp
    exp2 expand_dims expm1 extract eye fabs fft fill_diagonal finfo flatnonzero flexible flip
    fliplr flipud float16 float32 float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn
    float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2
    float8_e5m2fnuz float8_e8m0fnu float_ float_power floating floor floor_divide fmax fmin
    fmod frexp from_dlpack frombuffer fromfile fromfunction fromiter frompyfunc fromstring
    full full_like gcd generic geomspace get_printoptions gradient greater greater_equal
    hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit
    hstack hypot i0 identity iinfo imag index_exp indices inexact inf inner insert int1 int16
    int2 int32 int4 int64 int8 int_ integer interp intersect1d invert isclose iscomplex
    iscomplexobj isdtype isfinite isin isinf isnan isneginf isposinf isreal isrealobj
    isscalar issubdtype iterable ix_ kaiser kron lcm ldexp left_shift less less_equal
    lexsort linalg linspace load log log10 log1p log2 logaddexp logaddexp2 logical_and
    logical_not logical_or logical_xor logspace mask_indices matmul matrix_transpose matvec
    max maximum mean median meshgrid mgrid min minimum mod modf moveaxis multiply nan
    nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
    nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative newaxis nextafter
    nonzero not_equal number object_ ogrid ones ones_like outer packbits pad partition
    percentile permute_dims pi piecewise place poly polyadd polyder polydiv polyfit polyint
    polymul polysub polyval positive pow power printoptions prod promote_types ptp put
    put_along_axis quantile r_ rad2deg radians ravel ravel_multi_index real reciprocal
    remainder repeat reshape resize result_type right_shift rint roll rollaxis roots rot90
    round s_ save savez searchsorted select set_printoptions setdiff1d setxor1d shape sign
    signbit signedinteger sin sinc single sinh size sort sort_complex spacing split sqrt
    square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot
    tile top_k trace transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros
    triu triu_indices triu_indices_from true_divide trunc ufunc uint uint1 uint16 uint2 uint32
    uint4 uint64 uint8 union1d unique unique_all unique_counts unique_inverse unique_values
    unpackbits unravel_index unsignedinteger unstack unwrap vander var vdot vecdot vecmat
    vectorize vsplit vstack where zeros zeros_like
    """.split()  # noqa: SIM905 (a list literal of 417 names would fill a page)
)

_PREFIXES: Final = frozenset({"np", "numpy"})
_TEST_FOLDERS: Final = frozenset({"tests", "test", "testing"})


def package_folder(name: str) -> Path | None:
    """The installed folder of package ``name``, or None (found without importing it)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def library_files(folder: Path) -> Iterator[Path]:
    """The ``.py`` files under ``folder`` outside test folders, in a fixed order."""
    for path in sorted(folder.rglob("*.py")):
        if not _TEST_FOLDERS & set(path.relative_to(folder).parts[:-1]):
            yield path


def calls_in(source: str) -> Iterator[str]:
    """The names ``x`` of every ``np.x(`` and ``numpy.x(`` in ``source``'s code."""
    window: collections.deque[tokenize.TokenInfo] = collections.deque(maxlen=4)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                continue
            window.append(token)
            if len(window) < 4:
                continue
            prefix, dot, name, paren = window
            if (
                prefix.type == tokenize.NAME
                and prefix.string in _PREFIXES
                and dot.string == "."
                and name.type == tokenize.NAME
                and paren.string == "("
            ):
                yield name.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return


def count_calls(files: Iterable[Path]) -> collections.Counter[str]:
    """Call sites per NumPy name across ``files``."""
    counts: collections.Counter[str] = collections.Counter()
    for path in files:
        counts.update(calls_in(path.read_text(encoding="utf-8", errors="replace")))
    return counts


def cowarray_names() -> frozenset[str]:
    """cowarray's public names."""
    import cowarray

    return frozenset(name for name in dir(cowarray) if not name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=100, help="how many names to rank")
    arguments = parser.parse_args(argv)
    counts: collections.Counter[str] = collections.Counter()
    for name in CONSUMERS:
        folder = package_folder(name)
        if folder is None:
            print(f"# {name}: not installed", file=sys.stderr)
            continue
        found = count_calls(library_files(folder))
        print(f"# {name}: {sum(found.values())} call sites of {len(found)} names", file=sys.stderr)
        counts += found
    have = cowarray_names()
    top = counts.most_common(arguments.top)
    print(f"{'rank':>4} {'calls':>6}  {'name':<24} jax.numpy  cowarray")
    for rank, (name, calls) in enumerate(top, 1):
        in_jax = "yes" if name in JAX_NUMPY_NAMES else "-"
        in_cowarray = "yes" if name in have else "-"
        print(f"{rank:>4} {calls:>6}  {name:<24} {in_jax:<9}  {in_cowarray}")
    lacking = [name for name, _ in top if name in JAX_NUMPY_NAMES and name not in have]
    print(f"\n# in jax.numpy, not in cowarray ({len(lacking)}): {' '.join(lacking)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
