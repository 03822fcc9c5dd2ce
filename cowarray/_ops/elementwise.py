"""Element-wise functions (Array API standard, "Element-wise Functions").

Each function is made by one of two small factories from the table below: the
table gives its name, a one-line summary and a runnable example. Binary
functions accept Python scalars for either argument (at least one must be an
Array), with the standard's promotion rules checked in ``_apply``.
"""

from __future__ import annotations

from collections.abc import Callable

from .._array import Array, binary_operation, unary_operation

__all__ = [
    "abs",
    "add",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "cos",
    "divide",
    "equal",
    "exp",
    "floor_divide",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "multiply",
    "negative",
    "not_equal",
    "positive",
    "pow",
    "remainder",
    "sin",
    "sqrt",
    "subtract",
]

Scalar = bool | int | float | complex

_DOC = """{summary}

Parameters
----------
{parameters}

Returns
-------
Array
    {returns}

Examples
--------
>>> import cowarray as ca
>>> {example}
{output}
"""

_BINARY_PARAMETERS = """x1, x2 : Array or Python scalar
    The operands; at least one must be an Array. They broadcast against each
    other and promote under the standard's rules (Python scalars are weak)."""

_UNARY_PARAMETERS = """x : Array
    The input."""


def _binary(
    name: str, summary: str, example: str, output: str
) -> Callable[[Array | Scalar, Array | Scalar], Array]:
    # The public function is the very function the operators call: no
    # extra layer between ``x + y`` and ``add(x, y)``.
    function: Callable[[Array | Scalar, Array | Scalar], Array] = binary_operation(name)
    function.__module__ = "cowarray"
    function.__doc__ = _DOC.format(
        summary=summary,
        parameters=_BINARY_PARAMETERS,
        returns="A new array; inputs are never modified.",
        example=example,
        output=output,
    )
    return function


def _unary(name: str, summary: str, example: str, output: str) -> Callable[[Array], Array]:
    function: Callable[[Array], Array] = unary_operation(name)
    function.__module__ = "cowarray"
    function.__doc__ = _DOC.format(
        summary=summary,
        parameters=_UNARY_PARAMETERS,
        returns="A new array with ``x``'s shape; ``x`` is never modified.",
        example=example,
        output=output,
    )
    return function


# fmt: off
add = _binary("add", "The sum of each pair of elements.",
    "ca.add(ca.asarray([1, 2]), 10)", "cowarray.Array([11, 12], dtype=int64)")
subtract = _binary("subtract", "The difference ``x1 - x2`` of each pair of elements.",
    "ca.subtract(ca.asarray([5.0, 6.0]), 1.5)", "cowarray.Array([3.5, 4.5], dtype=float64)")
multiply = _binary("multiply", "The product of each pair of elements.",
    "ca.multiply(ca.asarray([1, 2, 3]), ca.asarray([4, 5, 6]))",
    "cowarray.Array([ 4, 10, 18], dtype=int64)")
divide = _binary("divide", "True division ``x1 / x2`` (integer inputs give float64).",
    "ca.divide(ca.asarray([1.0, 3.0]), 2)", "cowarray.Array([0.5, 1.5], dtype=float64)")
floor_divide = _binary("floor_divide", "Division rounded towards negative infinity.",
    "ca.floor_divide(ca.asarray([7, -7]), 2)", "cowarray.Array([ 3, -4], dtype=int64)")
remainder = _binary("remainder", "The remainder of ``floor_divide``, with the sign of ``x2``.",
    "ca.remainder(ca.asarray([7, -7]), 3)", "cowarray.Array([1, 2], dtype=int64)")
pow = _binary("pow", "``x1`` raised to the power ``x2``.",
    "ca.pow(ca.asarray([2.0, 3.0]), 2)", "cowarray.Array([4., 9.], dtype=float64)")
bitwise_and = _binary("bitwise_and", "Bitwise AND of integer or boolean elements.",
    "ca.bitwise_and(ca.asarray([12, 10]), 6)", "cowarray.Array([4, 2], dtype=int64)")
bitwise_or = _binary("bitwise_or", "Bitwise OR of integer or boolean elements.",
    "ca.bitwise_or(ca.asarray([12, 10]), 1)", "cowarray.Array([13, 11], dtype=int64)")
bitwise_xor = _binary("bitwise_xor", "Bitwise exclusive OR of integer or boolean elements.",
    "ca.bitwise_xor(ca.asarray([True, False]), True)",
    "cowarray.Array([False,  True], dtype=bool)")
bitwise_left_shift = _binary("bitwise_left_shift", "Shift the bits of ``x1`` left by ``x2``.",
    "ca.bitwise_left_shift(ca.asarray([1, 3]), 2)", "cowarray.Array([ 4, 12], dtype=int64)")
bitwise_right_shift = _binary("bitwise_right_shift",
    "Shift the bits of ``x1`` right by ``x2``.",
    "ca.bitwise_right_shift(ca.asarray([8, 12]), 2)", "cowarray.Array([2, 3], dtype=int64)")
equal = _binary("equal", "Whether each pair of elements is equal.",
    "ca.equal(ca.asarray([1, 2]), 2)", "cowarray.Array([False,  True], dtype=bool)")
not_equal = _binary("not_equal", "Whether each pair of elements differs.",
    "ca.not_equal(ca.asarray([1, 2]), 2)", "cowarray.Array([ True, False], dtype=bool)")
less = _binary("less", "Whether ``x1 < x2`` for each pair of elements.",
    "ca.less(ca.asarray([1, 2]), 2)", "cowarray.Array([ True, False], dtype=bool)")
less_equal = _binary("less_equal", "Whether ``x1 <= x2`` for each pair of elements.",
    "ca.less_equal(ca.asarray([1, 3]), 2)", "cowarray.Array([ True, False], dtype=bool)")
greater = _binary("greater", "Whether ``x1 > x2`` for each pair of elements.",
    "ca.greater(ca.asarray([1, 3]), 2)", "cowarray.Array([False,  True], dtype=bool)")
greater_equal = _binary("greater_equal", "Whether ``x1 >= x2`` for each pair of elements.",
    "ca.greater_equal(ca.asarray([1, 2]), 2)", "cowarray.Array([False,  True], dtype=bool)")

negative = _unary("negative", "The negation of each element.",
    "ca.negative(ca.asarray([1, -2]))", "cowarray.Array([-1,  2], dtype=int64)")
positive = _unary("positive", "Each element unchanged, as a new array.",
    "ca.positive(ca.asarray([1, -2]))", "cowarray.Array([ 1, -2], dtype=int64)")
abs = _unary("abs", "The absolute value of each element.",
    "ca.abs(ca.asarray([-1.5, 2.0]))", "cowarray.Array([1.5, 2. ], dtype=float64)")
bitwise_invert = _unary("bitwise_invert", "Bitwise NOT of integer or boolean elements.",
    "ca.bitwise_invert(ca.asarray([True, False]))",
    "cowarray.Array([False,  True], dtype=bool)")
sqrt = _unary("sqrt", "The square root of each element.",
    "ca.sqrt(ca.asarray([4.0, 9.0]))", "cowarray.Array([2., 3.], dtype=float64)")
exp = _unary("exp", "``e`` raised to each element.",
    "ca.exp(ca.asarray([0.0]))", "cowarray.Array([1.], dtype=float64)")
log = _unary("log", "The natural logarithm of each element.",
    "ca.log(ca.asarray([1.0]))", "cowarray.Array([0.], dtype=float64)")
sin = _unary("sin", "The sine of each element (radians).",
    "ca.sin(ca.asarray([0.0]))", "cowarray.Array([0.], dtype=float64)")
cos = _unary("cos", "The cosine of each element (radians).",
    "ca.cos(ca.asarray([0.0]))", "cowarray.Array([1.], dtype=float64)")
# fmt: on
