"""Transformations of ordinary in-place code: ``jit``, ``grad``, ``vmap`` and loops, on JAX.

Every cowarray Array is a value, so NumPy-style code that writes in place
(``u[1:-1] += d``, ``w -= lr * g``, ``x[mask] = 0``) is already a pure
function of its inputs. These transforms hand such a function to JAX: it
runs once on traced Arrays (ordinary Arrays whose values are JAX tracers),
each write becomes the functional update of the traced value, through the
same write path eager code takes, and the result is JAX's compiled,
differentiated or vectorised function, with eager cowarray's values,
dtypes (float64 stays float64) and NumPy 2 promotion (docs/design.md, rule 13).

JAX is an optional extra: ``pip install "cowarray[jax]"``. Importing this
module never imports JAX; the first transform called does, and without JAX
it raises ImportError naming the extra. Arguments and results are Arrays,
and tuples, lists and dicts of them; other arguments pass as they are (to
``jit``: as static values, hashed into the compiled function's key).

An input Array that the function writes changes in the caller as the eager
call would change it: its final value is written back after the call.
What cannot be traced raises at the user's line, with the fix: Python
``if``/``float()``/``bool()`` on a traced value (use :func:`cond`,
``ca.where`` or ``static_argnums``), shapes that depend on values
(``x[mask]`` as a read, ``nonzero``, ``unique``), exports (``np.asarray``,
DLPack, ``to_torch``), ``cowarray.random`` draws (pass the numbers in), and a
traced Array kept past the call (return it instead).

Examples
--------
>>> import cowarray as ca
>>> from cowarray import transforms
>>> @transforms.jit
... def step(u):
...     u[1:-1] += 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
...     return u
>>> u = ca.asarray([0.0, 0.0, 4.0, 0.0, 0.0])
>>> step(u)
cowarray.Array([0., 1., 2., 1., 0.], dtype=float64)
>>> u  # written in the function, as the eager call would leave it
cowarray.Array([0., 1., 2., 1., 0.], dtype=float64)
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "cond",
    "fori_loop",
    "grad",
    "jacobian",
    "jit",
    "scan",
    "value_and_grad",
    "vmap",
    "while_loop",
]

F = TypeVar("F", bound=Callable[..., Any])


def _engine() -> ModuleType:
    """cowarray._transforms._engine, imported on the first transform call
    (it imports JAX)."""
    if importlib.util.find_spec("jax") is None:
        raise ImportError(
            "cowarray.transforms needs JAX, which is not installed: "
            'pip install "cowarray[jax]" (in a clone of cowarray: pip install -e ".[jax]")'
        )
    from ._transforms import _engine

    return _engine


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
) -> Any:
    """Compile ``fun``, a function of cowarray Arrays, with ``jax.jit``.

    The function is traced once per combination of argument shapes, dtypes
    and static values, and compiled; later calls with Arrays of the same
    shapes and dtypes run the compiled code, whatever their values.

    Parameters
    ----------
    fun : callable
        A function of Arrays (and tuples, lists, dicts of them). It may
        write its arguments and views of them in place; an argument it
        writes changes in the caller as it would eagerly. Without ``fun``,
        a decorator taking it.
    static_argnums : int or sequence of int, optional
        Positional arguments that are static: hashed into the compiled
        function's key (a new value traces again) instead of traced. Python
        ``if`` and shapes may depend on them.
    static_argnames : str or sequence of str, optional
        Keyword arguments that are static, likewise.

    Returns
    -------
    callable
        The compiled function: Arrays in, Arrays out (on the arguments' device).

    Notes
    -----
    Arguments that are neither Arrays nor containers of them (Python
    numbers, strings) are static whether named or not, as eager cowarray
    reads a Python number as a weak scalar of the Array's dtype; pass a
    0-d Array to trace a value instead.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def sgd(w, g, lr):
    ...     w -= lr * g
    ...     return ca.sum(w * w)
    >>> fast = transforms.jit(sgd, static_argnums=2)
    >>> w = ca.asarray([1.0, 2.0])
    >>> fast(w, ca.asarray([1.0, 1.0]), 0.5)
    cowarray.Array(2.5, dtype=float64)
    >>> w
    cowarray.Array([0.5, 1.5], dtype=float64)
    """
    if fun is None:

        def decorate(f: Callable[..., Any]) -> Any:
            return jit(f, static_argnums=static_argnums, static_argnames=static_argnames)

        return decorate
    return _engine().jit(fun, static_argnums=static_argnums, static_argnames=static_argnames)


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Any:
    """The gradient of ``fun``, a function returning a 0-d Array, with ``jax.grad``.

    Parameters
    ----------
    fun : callable
        A function of Arrays returning a 0-d floating-point Array (with
        ``has_aux``, a pair of it and anything else). It may write in place.
    argnums : int or sequence of int, optional
        Which positional arguments to differentiate with respect to (0).
        A sequence gives a tuple of gradients.
    has_aux : bool, optional
        Whether ``fun`` returns ``(value, aux)``; the gradient function then
        returns ``(gradient, aux)``.

    Returns
    -------
    callable
        A function of the same arguments returning the gradient, an Array
        (or a tree of them) of each argument's shape.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def energy(u):
    ...     v = ca.lazy_clone(u)
    ...     v *= 2.0
    ...     return ca.sum(v ** 2)
    >>> transforms.grad(energy)(ca.asarray([1.0, 2.0]))
    cowarray.Array([ 8., 16.], dtype=float64)
    """
    return _engine().grad(fun, argnums=argnums, has_aux=has_aux)


def value_and_grad(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Any:
    """``fun``'s value and gradient together, with ``jax.value_and_grad``.

    Parameters
    ----------
    fun : callable
        As for :func:`grad`.
    argnums : int or sequence of int, optional
        As for :func:`grad`.
    has_aux : bool, optional
        As for :func:`grad`; the result is then ``((value, aux), gradient)``.

    Returns
    -------
    callable
        A function returning ``(value, gradient)``.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> value, slope = transforms.value_and_grad(lambda x: ca.sum(x ** 3))(ca.asarray([2.0]))
    >>> value, slope
    (cowarray.Array(8., dtype=float64), cowarray.Array([12.], dtype=float64))
    """
    return _engine().value_and_grad(fun, argnums=argnums, has_aux=has_aux)


def jacobian(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Any:
    """The Jacobian of an Array-valued ``fun``, with ``jax.jacobian`` (reverse mode).

    Parameters
    ----------
    fun : callable
        A function of Arrays returning an Array.
    argnums : int or sequence of int, optional
        As for :func:`grad`.
    has_aux : bool, optional
        As for :func:`grad`.

    Returns
    -------
    callable
        A function returning an Array of shape ``out.shape + x.shape``.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def f(x):
    ...     y = ca.lazy_clone(x)
    ...     y[0] *= x[1]
    ...     return y
    >>> transforms.jacobian(f)(ca.asarray([2.0, 3.0]))
    cowarray.Array([[3., 2.],
                    [0., 1.]], dtype=float64)
    """
    return _engine().jacobian(fun, argnums=argnums, has_aux=has_aux)


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> Any:
    """Map ``fun`` over an axis of its arguments, with ``jax.vmap``.

    Parameters
    ----------
    fun : callable
        A function of Arrays for one batch element. It may write in place;
        an argument it writes must be batched (its ``in_axes`` not None).
    in_axes : int, None or tree of them, optional
        The batch axis of each argument (None: not batched), as in JAX.
    out_axes : int, None or tree of them, optional
        Where the batch axis goes in each result.

    Returns
    -------
    callable
        The batched function.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def smooth(u):
    ...     u[1:-1] = 0.5 * (u[2:] + u[:-2])
    ...     return u
    >>> batch = ca.asarray([[0.0, 4.0, 2.0], [1.0, 1.0, 3.0]])
    >>> transforms.vmap(smooth)(ca.lazy_clone(batch))
    cowarray.Array([[0., 1., 2.],
                    [1., 2., 3.]], dtype=float64)
    """
    return _engine().vmap(fun, in_axes=in_axes, out_axes=out_axes)


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any, **options: Any
) -> Any:
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, with ``lax.fori_loop``.

    The body is traced once (a Python loop inside :func:`jit` would be
    unrolled, one copy of the body per step).

    Parameters
    ----------
    lower, upper : int or 0-d integer Array
        The range of ``i``.
    body_fun : callable
        ``body_fun(i, val) -> val``, with ``i`` a 0-d integer Array; it may
        write ``val`` in place and return it.
    init_val : Array or tree of them
        The first ``val``; the body must return the same structure, shapes
        and dtypes.
    **options
        Passed to ``jax.lax.fori_loop`` (``unroll``).

    Returns
    -------
    Array or tree of them
        The last ``val``.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def body(i, u):
    ...     u[i] += i
    ...     return u
    >>> transforms.fori_loop(0, 4, body, ca.zeros(4))
    cowarray.Array([0., 1., 2., 3.], dtype=float64)
    """
    return _engine().fori_loop(lower, upper, body_fun, init_val, **options)


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """``while cond_fun(val): val = body_fun(val)``, with ``lax.while_loop``.

    Parameters
    ----------
    cond_fun : callable
        ``cond_fun(val)``, a 0-d boolean Array.
    body_fun : callable
        ``body_fun(val) -> val``, the same structure, shapes and dtypes.
    init_val : Array or tree of them
        The first ``val``.

    Returns
    -------
    Array or tree of them
        The ``val`` for which ``cond_fun`` was first false.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def halve(x):
    ...     x /= 2
    ...     return x
    >>> transforms.while_loop(lambda x: ca.max(x) > 1.0, halve, ca.asarray([8.0, 3.0]))
    cowarray.Array([1.   , 0.375], dtype=float64)
    """
    return _engine().while_loop(cond_fun, body_fun, init_val)


def cond(
    pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, with ``lax.cond``.

    The branch for a traced ``pred`` (Python ``if`` cannot choose on it).

    Parameters
    ----------
    pred : bool or 0-d boolean Array
        Which branch.
    true_fun, false_fun : callable
        The branches: the same structure, shapes and dtypes of results.
    *operands
        Their arguments.

    Returns
    -------
    Array or tree of them
        The chosen branch's result.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> @transforms.jit
    ... def clip_norm(g):
    ...     return transforms.cond(ca.sum(g * g) > 1.0, lambda g: g / 2, lambda g: g, g)
    >>> clip_norm(ca.asarray([3.0, 4.0]))
    cowarray.Array([1.5, 2. ], dtype=float64)
    """
    return _engine().cond(pred, true_fun, false_fun, *operands)


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> Any:
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``, with ``lax.scan``.

    Parameters
    ----------
    f : callable
        ``f(carry, x) -> (carry, y)``; it may write ``carry`` in place.
    init : Array or tree of them
        The first carry.
    xs : Array or tree of them, optional
        Scanned along axis 0 (None: ``length`` steps with ``x`` None).
    length : int, optional
        The number of steps, where ``xs`` is None.
    reverse : bool, optional
        Scan from the end.
    unroll : int or bool, optional
        As in ``jax.lax.scan``.

    Returns
    -------
    tuple
        ``(carry, ys)``: the last carry and the ``y`` of every step, stacked.

    Examples
    --------
    >>> import cowarray as ca
    >>> from cowarray import transforms
    >>> def running(total, x):
    ...     total += x
    ...     return total, total * 1.0
    >>> transforms.scan(running, ca.asarray(0.0), ca.asarray([1.0, 2.0, 3.0]))
    (cowarray.Array(6., dtype=float64), cowarray.Array([1., 3., 6.], dtype=float64))
    """
    return _engine().scan(f, init, xs, length=length, reverse=reverse, unroll=unroll)
