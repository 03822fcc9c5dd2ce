"""Random number generation: ``Generator``, ``default_rng`` and ``split``.

A :class:`Generator` pairs a ``numpy.random.SeedSequence`` with its device's
backend generator (``backend.random_generator(seed)``: NumPy's PCG64
``Generator`` on ``cpu`` and ``cpu:1``, CuPy's ``default_rng`` on ``cuda:N``).
This module checks every argument first, so a bad call raises before anything
is drawn or written, asks the backend to draw, and wraps the fresh result as a
new Array. It knows nothing of NumPy versus CuPy beyond the seed sequence,
which both libraries take. ``shuffle`` writes through ``x[...] = permuted``,
the copy-on-write path (docs/design.md rule 3): lazy clones of ``x`` keep
their values and a sole holder is written in place.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _tracing
from ._array import Array, fresh
from ._backends.base import RandomSource
from ._devices import Device
from ._dtypes import ALL_DTYPES, float32, float64, int64, to_dtype
from ._errors import not_an_array
from ._ops._args import normalize_axis, normalize_shape
from ._ops._out import check_out, write_out
from ._ops.creation import _device_or_default
from ._ops.manipulation import broadcast_shapes

__all__ = ["Generator", "default_rng", "split"]

Size = int | Sequence[int] | None

#: NumPy's largest Poisson mean (``numpy.random``'s POISSON_LAM_MAX).
_POISSON_LAM_MAX = float(np.iinfo(np.int64).max - np.sqrt(np.iinfo(np.int64).max) * 10)


def _seed_sequence(seed: object) -> np.random.SeedSequence:
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            "seed must be None, a non-negative int or a numpy.random.SeedSequence, "
            f"got {type(seed).__name__}"
        )
    value = operator.index(seed)
    if value < 0:
        raise ValueError(f"seed must be a non-negative int, got {value}")
    return np.random.SeedSequence(value)


def _size(size: object) -> tuple[int, ...] | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, (int, np.integer, tuple, list)):
        raise TypeError(f"size must be None, an int or a tuple of ints, got {type(size).__name__}")
    return normalize_shape(size, "size")


def _dtype_among(dtype: object, allowed: tuple[Any, ...], function: str, words: str) -> Any:
    converted = to_dtype(dtype)
    if converted not in allowed:
        raise ValueError(f"{function}: dtype must be {words}, got {converted}")
    return converted


class Generator:
    """A stream of random numbers on one device.

    Make one with :func:`default_rng`. Every method returns a new Array on
    the generator's device (a 0-d Array when ``size`` is None, as the Array
    API returns arrays, not Python scalars). Parameters may be Python
    scalars or Arrays on the generator's device; Arrays broadcast as in
    NumPy. On ``cpu`` and ``cpu:1`` a seed gives exactly the values of
    ``numpy.random.default_rng(seed)`` called in the same order; on
    ``cuda:N`` it gives CuPy's stream for that seed (reproducible there,
    different from NumPy's).

    For functional code, pass a generator explicitly to each function that
    draws and hand independent streams to independent parts with
    :meth:`spawn` or :func:`split` rather than sharing one generator: a
    shared generator makes each part's numbers depend on what the others drew.

    Examples
    --------
    >>> import cowarray as ca
    >>> rng = ca.random.default_rng(42)
    >>> rng
    Generator(device='cpu')
    >>> rng.integers(0, 10, size=3)
    cowarray.Array([0, 7, 6], dtype=int64)
    """

    __slots__ = ("_device", "_seed", "_source")

    _device: Device
    _seed: np.random.SeedSequence
    _source: RandomSource

    def __init__(self, seed: np.random.SeedSequence, device: Device) -> None:
        if not isinstance(seed, np.random.SeedSequence) or type(device) is not Device:
            raise TypeError("make a Generator with cowarray.random.default_rng(seed, device=...)")
        self._seed = seed
        self._device = device
        self._source = device.backend.random_generator(seed)

    @property
    def device(self) -> Device:
        """The device the generator draws on; every result lives there."""
        return self._device

    @property
    def seed_sequence(self) -> np.random.SeedSequence:
        """The ``numpy.random.SeedSequence`` this generator was seeded with."""
        return self._seed

    def __repr__(self) -> str:
        return f"Generator(device={str(self._device)!r})"

    # -- helpers ---------------------------------------------------------------

    def _result(self, data: Any) -> Array:
        if _tracing.depth():
            # Drawn while a transform traces: the numbers would be constants
            # of the compiled function, the same at every call.
            raise TypeError(
                "a cowarray.random draw inside a function that cowarray.transforms is "
                "tracing would give the same numbers at every call: draw outside and pass "
                "the numbers in as an argument"
            )
        backend = self._device.backend
        if not isinstance(data, backend.array_type):
            data = backend.asarray(data)
        if backend.memory_owner(data) is not data:
            data = backend.copy(data)  # never a view of an argument's memory
        if data.dtype not in ALL_DTYPES:  # pragma: no cover - the backends draw standard dtypes
            raise TypeError(f"the backend drew an unsupported dtype {data.dtype}")
        return fresh(data, self._device)

    def _out_shape(
        self, out: object, size: tuple[int, ...] | None, dtype: Any, function: str
    ) -> tuple[int, ...]:
        """The shape ``out=`` asks for, checked before anything is drawn: ``out``
        is an Array on this generator's device, of ``dtype``, and ``size`` is
        None or ``out``'s shape (NumPy's rule)."""
        shape = tuple(out._data.shape) if type(out) is Array else ()
        if size is not None and type(out) is Array and size != shape:
            raise ValueError(
                f"{function}: size {size} differs from out's shape {shape}; pass only out "
                "(its shape is the size), or a size equal to it"
            )
        check_out(out, function, self._device, dtype, shape, "no")
        return shape

    def _array_data(self, value: Array, name: str, function: str) -> Any:
        if value._device is not self._device:
            raise ValueError(
                f"{function}: {name} is on {value._device} but the generator is on "
                f"{self._device}; move it with {name}.to_device({str(self._device)!r}) "
                f"or use a generator made with device={str(value._device)!r}"
            )
        return value._data

    def _parameter(self, value: object, name: str, function: str, integer: bool = False) -> Any:
        """A backend array or a Python scalar for a distribution parameter."""
        words = "an integer" if integer else "a real number"
        kinds = "iu" if integer else "iuf"
        if type(value) is Array:
            if value.dtype.kind not in kinds:
                raise TypeError(
                    f"{function}: {name} must be {words} or an Array of "
                    f"{'integer' if integer else 'real'} dtype, got an Array of {value.dtype}"
                )
            return self._array_data(value, name, function)
        if isinstance(value, np.generic) and value.dtype.kind in kinds:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
            raise not_an_array(function, name, value, f"{words} or a cowarray Array")
        return value

    def _invalid(self, value: Any, test: Any) -> bool:
        """Whether ``test`` (a function of the backend array or scalar) holds anywhere."""
        if isinstance(value, (int, float)):
            return bool(test(np, np.asarray(value)))  # np.bool_: ``~`` is logical
        xp = self._device.backend.xp
        return bool(xp.any(test(xp, value)))

    @staticmethod
    def _as_float(value: Any) -> Any:
        return float(value) if isinstance(value, (int, float)) else value.astype(float64)

    def _check_non_negative(self, value: Any, name: str, function: str) -> None:
        # NumPy's rule: a NaN passes, a negative number or -0.0 does not.
        if self._invalid(value, lambda xp, v: xp.signbit(v) & ~xp.isnan(v * 1.0)):
            raise ValueError(f"{function}: {name} must be non-negative, got a negative value")

    def _check_probability(self, value: Any, name: str, function: str) -> None:
        if self._invalid(value, lambda xp, v: ~((v >= 0) & (v <= 1))):
            raise ValueError(
                f"{function}: {name} must be a probability between 0 and 1, got a value outside"
            )

    def _check_size(self, size: tuple[int, ...] | None, function: str, *values: Any) -> None:
        shapes = [tuple(v.shape) for v in values if not isinstance(v, (int, float))]
        try:
            common = broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(
                f"{function}: the parameters' shapes {shapes} do not broadcast together"
            ) from None
        try:
            fits = size is None or broadcast_shapes(size, common) == size
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"{function}: size={size} cannot hold the parameters' broadcast shape {common}; "
                "pass a size that the parameters broadcast to, or size=None"
            )

    # -- distributions ------------------------------------------------------------

    def random(self, size: Size = None, dtype: Any = float64, out: Array | None = None) -> Array:
        """Uniform floats in the half-open interval [0.0, 1.0).

        Parameters
        ----------
        size : int or tuple of int, optional
            The result's shape; None (default) gives a 0-d Array.
        dtype : dtype, optional
            ``float64`` (default) or ``float32``.
        out : Array, optional
            An Array of dtype ``dtype`` to fill, through copy-on-write, as
            NumPy's ``out=``: its shape is the size (``size`` may only repeat
            it). Checked before anything is drawn.

        Returns
        -------
        Array
            ``out`` itself with ``out=``.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).random(2)
        cowarray.Array([0.63696169, 0.26978671], dtype=float64)
        """
        dtype = _dtype_among(dtype, (float64, float32), "random", "float32 or float64")
        shape = _size(size)
        if out is not None:
            shape = self._out_shape(out, shape, dtype, "random")
            return write_out(out, self.random(shape, dtype), "random", "no")
        return self._result(self._source.random(size=shape, dtype=dtype))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Size = None) -> Array:
        """Uniform floats in ``[low, high)`` (float64).

        Parameters
        ----------
        low, high : float or Array, optional
            The interval's ends (default 0.0 and 1.0); Arrays broadcast.
        size : int or tuple of int, optional
            The result's shape; None gives the parameters' broadcast shape.

        Returns
        -------
        Array

        Raises
        ------
        ValueError
            If ``low`` or ``high`` is not finite, or ``high < low`` anywhere.
        OverflowError
            If ``high - low`` overflows float64.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).uniform(1.0, 2.0, size=2)
        cowarray.Array([1.63696169, 1.26978671], dtype=float64)
        """
        low = self._parameter(low, "low", "uniform")
        high = self._parameter(high, "high", "uniform")
        shape = _size(size)
        finite = lambda xp, v: ~xp.isfinite(v * 1.0)  # noqa: E731
        if self._invalid(low, finite) or self._invalid(high, finite):
            raise ValueError("uniform: low and high must be finite numbers")
        span = self._as_float(high) - self._as_float(low)
        if self._invalid(span, lambda xp, v: v < 0):
            raise ValueError("uniform: high must not be below low (high - low < 0); swap them")
        if self._invalid(span, finite):
            raise OverflowError(
                "uniform: high - low overflows float64; draw from a narrower interval"
            )
        self._check_size(shape, "uniform", low, high)
        return self._result(self._source.uniform(low, high, size=shape))

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Size = None) -> Array:
        """Normal (Gaussian) samples with mean ``loc`` and standard deviation ``scale``.

        Parameters
        ----------
        loc : float or Array, optional
            The mean (default 0.0).
        scale : float or Array, optional
            The standard deviation, non-negative (default 1.0).
        size : int or tuple of int, optional
            The result's shape; None gives the parameters' broadcast shape.

        Returns
        -------
        Array
            float64 samples.

        Raises
        ------
        ValueError
            If ``scale`` is negative anywhere.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).normal(10.0, 2.0, size=2)
        cowarray.Array([10.25146044,  9.73579027], dtype=float64)
        """
        loc = self._parameter(loc, "loc", "normal")
        scale = self._parameter(scale, "scale", "normal")
        shape = _size(size)
        self._check_non_negative(scale, "scale", "normal")
        self._check_size(shape, "normal", loc, scale)
        return self._result(self._source.normal(loc, scale, size=shape))

    def standard_normal(
        self, size: Size = None, dtype: Any = float64, out: Array | None = None
    ) -> Array:
        """Samples of the standard normal distribution (mean 0, deviation 1).

        Parameters
        ----------
        size : int or tuple of int, optional
            The result's shape; None (default) gives a 0-d Array.
        dtype : dtype, optional
            ``float64`` (default) or ``float32``.
        out : Array, optional
            An Array of dtype ``dtype`` to fill, as :meth:`random`'s.

        Returns
        -------
        Array
            ``out`` itself with ``out=``.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).standard_normal((2, 2)).shape
        (2, 2)
        """
        dtype = _dtype_among(dtype, (float64, float32), "standard_normal", "float32 or float64")
        shape = _size(size)
        if out is not None:
            shape = self._out_shape(out, shape, dtype, "standard_normal")
            return write_out(out, self.standard_normal(shape, dtype), "standard_normal", "no")
        return self._result(self._source.standard_normal(size=shape, dtype=dtype))

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Size = None,
        dtype: Any = int64,
        endpoint: bool = False,
    ) -> Array:
        """Uniform integers in ``[low, high)`` (``[low, high]`` with ``endpoint``).

        Parameters
        ----------
        low : int or Array
            The lowest value, or with ``high`` None the end (then from 0).
        high : int or Array, optional
            One past the highest value (the highest with ``endpoint=True``).
        size : int or tuple of int, optional
            The result's shape; None gives the bounds' broadcast shape.
        dtype : dtype, optional
            An integer dtype (default ``int64``); the bounds must fit it.
        endpoint : bool, optional
            Whether ``high`` may be drawn (default False).

        Returns
        -------
        Array

        Raises
        ------
        ValueError
            If ``dtype`` is not an integer dtype, the interval is empty, or a
            bound lies outside ``dtype``'s range.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).integers(5, size=4)
        cowarray.Array([4, 3, 2, 1], dtype=int64)
        >>> ca.random.default_rng(0).integers(1, 6, endpoint=True).shape
        ()
        """
        converted = to_dtype(dtype)
        if converted.kind not in "iu":
            raise ValueError(
                f"integers: dtype must be an integer dtype such as cowarray.int64, got "
                f"{converted}; for floats use uniform() or random()"
            )
        if type(endpoint) is not bool:
            raise TypeError(f"integers: endpoint must be True or False, got {endpoint!r}")
        if high is None:
            low, high = 0, low
        low = self._parameter(low, "low", "integers", integer=True)
        high = self._parameter(high, "high", "integers", integer=True)
        shape = _size(size)
        self._check_size(shape, "integers", low, high)
        info = np.iinfo(converted)
        top = high if endpoint else high - 1
        if self._invalid(low, lambda xp, v: v < info.min):
            raise ValueError(f"integers: low is below the smallest {converted}, {info.min}")
        if self._invalid(top, lambda xp, v: v > info.max):
            raise ValueError(
                f"integers: high is above the largest {converted}"
                f"{'' if endpoint else ' plus one'}, {info.max}"
            )
        xp = self._device.backend.xp
        empty = low > top
        if bool(empty if isinstance(empty, bool) else xp.any(empty)):
            rule = "low <= high" if endpoint else "low < high"
            raise ValueError(
                f"integers: the interval is empty; it needs {rule}"
                + ("" if endpoint else " (or endpoint=True to include high)")
            )
        drawn = self._source.integers(low, high, size=shape, dtype=converted, endpoint=endpoint)
        return self._result(drawn)

    def choice(
        self,
        a: int | Array,
        size: Size = None,
        replace: bool = True,
        p: Array | Sequence[float] | None = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Array:
        """Random elements of ``a`` (or of ``range(a)`` for an int).

        Parameters
        ----------
        a : int or Array
            The population: ``range(a)``, or the entries of an Array along ``axis``.
        size : int or tuple of int, optional
            How many to take, as a shape; None (default) takes one.
        replace : bool, optional
            Whether an entry may be taken more than once (default True).
        p : Array or sequence of float, optional
            Each entry's probability: 1-D, as long as the population,
            non-negative, summing to 1. None (default) is uniform.
        axis : int, optional
            The axis of ``a`` to take along (default 0).
        shuffle : bool, optional
            Without replacement, whether the taken entries come in random order.

        Returns
        -------
        Array

        Raises
        ------
        ValueError
            If the population is empty, ``p`` is not a probability vector for
            it, or ``replace=False`` asks for more than it holds.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).choice(5, size=3, replace=False).shape
        (3,)
        >>> x = ca.asarray([10, 20, 30])
        >>> ca.random.default_rng(0).choice(x, size=2, p=[0.0, 0.0, 1.0])
        cowarray.Array([30, 30], dtype=int64)
        """
        for flag, value in (("replace", replace), ("shuffle", shuffle)):
            if type(value) is not bool:
                raise TypeError(f"choice: {flag} must be True or False, got {value!r}")
        shape = _size(size)
        count = 1 if shape is None else math.prod(shape)
        population_data: Any
        if type(a) is Array:
            population_data = self._array_data(a, "a", "choice")
            if a.ndim == 0:
                raise ValueError("choice: a must be an int or an Array with at least one axis")
            axis = normalize_axis(axis, a.ndim)
            population = a.shape[axis]
        else:
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise TypeError(
                    f"choice: a must be an int or a cowarray Array, got {type(a).__name__}"
                )
            population_data = population = operator.index(a)
            if population < 0:
                raise ValueError(f"choice: a must be a non-negative int, got {population}")
            if axis != 0:
                raise ValueError("choice: axis must be 0 when a is an int")
        if population == 0 and count:
            raise ValueError("choice: a is empty; it needs at least one entry unless size is 0")
        if not replace and count > population:
            raise ValueError(
                f"choice: cannot take {count} entries out of {population} with replace=False; "
                "take fewer or pass replace=True"
            )
        weights = None if p is None else self._probabilities(p, population, count, replace)
        drawn = self._source.choice(
            population_data, size=shape, replace=replace, p=weights, axis=axis, shuffle=shuffle
        )
        return self._result(drawn)

    def _probabilities(self, p: object, population: int, count: int, replace: bool) -> Any:
        backend = self._device.backend
        if type(p) is Array:
            if p.dtype.kind not in "iuf":
                raise TypeError(f"choice: p must have a real dtype, got {p.dtype}")
            weights = self._array_data(p, "p", "choice")
        elif isinstance(p, (list, tuple)):
            try:
                weights = backend.asarray(p, dtype=float64)
            except (TypeError, ValueError):
                raise TypeError("choice: p must be a sequence of floats or an Array") from None
        else:
            raise TypeError(f"choice: p must be an Array or a sequence, got {type(p).__name__}")
        if weights.ndim != 1 or weights.shape[0] != population:
            raise ValueError(
                f"choice: p must be 1-D with one probability per entry ({population}), "
                f"got shape {tuple(weights.shape)}"
            )
        xp = backend.xp
        if bool(xp.any(~(weights >= 0))):
            raise ValueError("choice: p must be non-negative (and not NaN)")
        eps = np.finfo(weights.dtype if weights.dtype.kind == "f" else float64).eps
        tolerance = max(float(np.sqrt(np.finfo(float64).eps)), float(np.sqrt(eps)))
        total = float(xp.sum(xp.asarray(weights, dtype=float64)))
        if abs(total - 1.0) > tolerance:
            raise ValueError(f"choice: p must sum to 1, got {total}; divide it by its sum first")
        if not replace and int(xp.count_nonzero(weights)) < count:
            raise ValueError(
                f"choice: p has fewer non-zero entries than the {count} to take with replace=False"
            )
        return weights

    def permutation(self, x: int | Array) -> Array:
        """A random permutation of ``range(x)``, or of ``x``'s entries along axis 0.

        ``x`` itself is not changed: the result is a new value.

        Parameters
        ----------
        x : int or Array

        Returns
        -------
        Array

        Examples
        --------
        >>> import cowarray as ca
        >>> x = ca.asarray([1, 2, 3, 4])
        >>> y = ca.random.default_rng(0).permutation(x)
        >>> ca.sort(y)
        cowarray.Array([1, 2, 3, 4], dtype=int64)
        >>> x
        cowarray.Array([1, 2, 3, 4], dtype=int64)
        """
        if type(x) is Array:
            data = self._array_data(x, "x", "permutation")
            if x.ndim == 0:
                raise ValueError("permutation: x must be an int or an Array with at least one axis")
            return self._result(self._source.permutation(data))
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise TypeError(
                f"permutation: x must be an int or a cowarray Array, got {type(x).__name__}"
            )
        count = operator.index(x)
        if count < 0:
            raise ValueError(f"permutation: x must be a non-negative int, got {count}")
        return self._result(self._source.permutation(count))

    def shuffle(self, x: Array) -> None:
        """Shuffle ``x``'s entries along axis 0, in place.

        The write is ``x[...] = permuted``, cowarray's copy-on-write path: lazy
        clones of ``x`` keep their values, and when ``x`` is its buffer's sole
        holder the buffer is written in place with no copy.

        Parameters
        ----------
        x : Array
            At least one axis, on the generator's device.

        Examples
        --------
        >>> import cowarray as ca
        >>> x = ca.asarray([1, 2, 3, 4])
        >>> before = ca.lazy_clone(x)
        >>> ca.random.default_rng(0).shuffle(x)
        >>> before
        cowarray.Array([1, 2, 3, 4], dtype=int64)
        >>> ca.sort(x)
        cowarray.Array([1, 2, 3, 4], dtype=int64)
        """
        if type(x) is not Array:
            raise not_an_array("shuffle", "x", x, "a cowarray Array (for an int use permutation())")
        data = self._array_data(x, "x", "shuffle")
        if x.ndim == 0:
            raise ValueError("shuffle: x must have at least one axis")
        x[...] = self._result(self._source.permutation(data))

    def exponential(self, scale: Any = 1.0, size: Size = None) -> Array:
        """Exponential samples with mean ``scale``.

        Parameters
        ----------
        scale : float or Array, optional
            The mean (1 / rate), non-negative (default 1.0).
        size : int or tuple of int, optional
            The result's shape; None gives ``scale``'s shape.

        Returns
        -------
        Array
            float64 samples.

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).exponential(2.0, size=3).shape
        (3,)
        """
        scale = self._parameter(scale, "scale", "exponential")
        shape = _size(size)
        self._check_non_negative(scale, "scale", "exponential")
        self._check_size(shape, "exponential", scale)
        return self._result(self._source.exponential(scale, size=shape))

    def poisson(self, lam: Any = 1.0, size: Size = None) -> Array:
        """Poisson counts with mean ``lam`` (int64).

        Parameters
        ----------
        lam : float or Array, optional
            The mean, non-negative and finite (default 1.0).
        size : int or tuple of int, optional
            The result's shape; None gives ``lam``'s shape.

        Returns
        -------
        Array

        Examples
        --------
        >>> import cowarray as ca
        >>> ca.random.default_rng(0).poisson(3.0, size=4).dtype
        dtype('int64')
        """
        lam = self._parameter(lam, "lam", "poisson")
        shape = _size(size)
        if self._invalid(lam, lambda xp, v: ~((v >= 0) & (v <= _POISSON_LAM_MAX))):
            raise ValueError(
                f"poisson: lam must be a non-negative number up to {_POISSON_LAM_MAX:.4g} "
                "(and not NaN)"
            )
        self._check_size(shape, "poisson", lam)
        return self._result(self._source.poisson(lam, size=shape))

    def binomial(self, n: Any, p: Any, size: Size = None) -> Array:
        """Binomial counts: successes in ``n`` trials of probability ``p`` (int64).

        Parameters
        ----------
        n : int or integer Array
            The number of trials, non-negative.
        p : float or Array
            Each trial's probability of success, in [0, 1].
        size : int or tuple of int, optional
            The result's shape; None gives the parameters' broadcast shape.

        Returns
        -------
        Array

        Examples
        --------
        >>> import cowarray as ca
        >>> counts = ca.random.default_rng(0).binomial(10, 0.5, size=3)
        >>> bool(ca.all((counts >= 0) & (counts <= 10)))
        True
        """
        n = self._parameter(n, "n", "binomial", integer=True)
        p = self._parameter(p, "p", "binomial")
        shape = _size(size)
        if self._invalid(n, lambda xp, v: v < 0):
            raise ValueError("binomial: n (the number of trials) must be non-negative")
        self._check_probability(p, "p", "binomial")
        self._check_size(shape, "binomial", n, p)
        return self._result(self._source.binomial(n, p, size=shape))

    def multivariate_normal(
        self,
        mean: Array | Sequence[float],
        cov: Array | Sequence[Sequence[float]],
        size: Size = None,
    ) -> Array:
        """Samples of the multivariate normal distribution ``N(mean, cov)`` (float64).

        Parameters
        ----------
        mean : Array or sequence of float
            The 1-D mean, of length ``d``.
        cov : Array or nested sequence of float
            The ``(d, d)`` covariance matrix (symmetric, positive semi-definite).
        size : int or tuple of int, optional
            The shape of the batch of samples; the result is ``size + (d,)``.

        Returns
        -------
        Array

        Examples
        --------
        >>> import cowarray as ca
        >>> rng = ca.random.default_rng(0)
        >>> rng.multivariate_normal([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], size=5).shape
        (5, 2)
        """
        mean_data = self._matrix(mean, "mean", 1)
        cov_data = self._matrix(cov, "cov", 2)
        dimension = mean_data.shape[0]
        if tuple(cov_data.shape) != (dimension, dimension):
            raise ValueError(
                f"multivariate_normal: cov must have shape ({dimension}, {dimension}) to match "
                f"mean, got {tuple(cov_data.shape)}"
            )
        shape = _size(size)
        return self._result(self._source.multivariate_normal(mean_data, cov_data, size=shape))

    def _matrix(self, value: object, name: str, ndim: int) -> Any:
        function = "multivariate_normal"
        if type(value) is Array:
            if value.dtype.kind not in "iuf":
                raise TypeError(f"{function}: {name} must have a real dtype, got {value.dtype}")
            data = self._array_data(value, name, function)
        elif isinstance(value, (list, tuple)):
            try:
                data = self._device.backend.asarray(value, dtype=float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{function}: {name} must be a cowarray Array or a (nested) sequence of floats"
                ) from None
        else:
            raise TypeError(
                f"{function}: {name} must be a cowarray Array or a sequence, "
                f"got {type(value).__name__}"
            )
        if data.ndim != ndim:
            raise ValueError(
                f"{function}: {name} must have {ndim} dimension{'s' if ndim > 1 else ''}, "
                f"got {data.ndim}"
            )
        if not bool(self._device.backend.xp.all(self._device.backend.xp.isfinite(data * 1.0))):
            raise ValueError(f"{function}: {name} must hold finite numbers")
        return data

    # -- independent streams ---------------------------------------------------------

    def spawn(self, n: int) -> list[Generator]:
        """``n`` new generators with independent streams, on the same device.

        The children come from spawning this generator's
        ``numpy.random.SeedSequence``, as ``numpy.random.Generator.spawn``
        does: reproducible from the parent's seed, independent of each other
        and of the parent. Each call spawns new children.

        For functional code, spawn (or :func:`split`) once per consumer and
        pass each child explicitly, instead of sharing one generator.

        Parameters
        ----------
        n : int
            How many children (non-negative).

        Returns
        -------
        list of Generator

        Examples
        --------
        >>> import cowarray as ca
        >>> left, right = ca.random.default_rng(7).spawn(2)
        >>> bool(ca.all(left.random(3) != right.random(3)))
        True
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"spawn: n must be an int, got {type(n).__name__}")
        count = operator.index(n)
        if count < 0:
            raise ValueError(f"spawn: n must be non-negative, got {count}")
        return [Generator(child, self._device) for child in self._seed.spawn(count)]


def default_rng(
    seed: int | np.random.SeedSequence | None = None, *, device: Device | str | None = None
) -> Generator:
    """A new :class:`Generator`, like ``numpy.random.default_rng``.

    Parameters
    ----------
    seed : None, int or numpy.random.SeedSequence, optional
        None (default) takes fresh entropy from the operating system; an int
        (non-negative) or a SeedSequence gives the same stream every time on
        a given backend.
    device : Device or str, optional
        Where to draw: ``"cpu"`` (default) and ``"cpu:1"`` use NumPy's PCG64
        and match ``numpy.random.default_rng(seed)`` exactly; ``"cuda:N"``
        uses CuPy's ``default_rng`` (XORWOW), reproducible on CuPy.

    Returns
    -------
    Generator

    Examples
    --------
    >>> import cowarray as ca
    >>> ca.random.default_rng(0).random()
    cowarray.Array(0.63696169, dtype=float64)
    >>> ca.random.default_rng(0, device="cpu:1").random().device
    Device('cpu:1')
    """
    sequence = _seed_sequence(seed)
    return Generator(sequence, _device_or_default(device))


def split(rng: Generator, n: int = 2) -> list[Generator]:
    """Split ``rng`` into ``n`` independent generators, JAX style.

    The same as ``rng.spawn(n)``. In functional code, draw from the children
    and pass them on instead of reusing ``rng`` after splitting it: each part
    of the program then gets a stream of its own, reproducible from the one
    seed, whatever the other parts draw.

    Parameters
    ----------
    rng : Generator
    n : int, optional
        How many generators (default 2).

    Returns
    -------
    list of Generator

    Examples
    --------
    >>> import cowarray as ca
    >>> def noisy(x, rng):
    ...     return x + rng.normal(0.0, 0.1, size=x.shape)
    >>> key, sub = ca.random.split(ca.random.default_rng(0))
    >>> y = noisy(ca.zeros(3), sub)
    >>> y.shape
    (3,)
    """
    if type(rng) is not Generator:
        raise TypeError(f"split: rng must be a cowarray.random.Generator, got {type(rng).__name__}")
    return rng.spawn(n)
