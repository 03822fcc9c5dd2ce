"""Sort cowarray failures in scikit-learn's tests into causes, each with a tiny reproduction.

Why: a run yields hundreds of failing instances but few causes; grouping them by
cause (rather than by raw message) says what to fix first and which failures
are already being fixed in cowarray.  Each known cause has a message pattern and
a one-line cowarray reproduction; ``python tools/consumers/sklearn_causes.py``
runs the reproductions and says which still reproduce in the cowarray on the path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cause:
    """A failure cause: a label, the message pattern that betrays it, a reproduction."""

    label: str
    pattern: str
    reproduction: str
    known: bool = True  # already being fixed in cowarray itself

    def matches(self, message: str) -> bool:
        """Whether a failure message points at this cause."""
        return re.search(self.pattern, message) is not None


CAUSES: tuple[Cause, ...] = (
    Cause(
        "writes through views do not reach the base",
        r"ViewWriteWarning|ill-defined empirical covariance",
        "c = ca.zeros((2, 2)); v = c[0]; v[0] = 5.0; assert c[0, 0] == 5.0",
    ),
    Cause(
        "read-only np.asarray(x) export breaks compiled code",
        r"buffer source array is read-only|assignment destination is read-only",
        "assert np.asarray(ca.asarray([1.0, 2.0])).flags.writeable",
    ),
    Cause(
        "Python complex scalar with a real array refused",
        r"a Python complex cannot be combined",
        "ca.asarray([1.0, 2.0]) * 1j",
    ),
    Cause(
        "NumPy scalars refused",
        r"a Python (u?int|float|complex|bool_?)\d* cannot be combined"
        r"|got (numpy\.)?(u?int|float|complex)\d+",
        "ca.asarray(np.float64(0.5), dtype=ca.float64)",
    ),
    Cause(
        "unique_values unsorted",
        # unsorted classes_: wrong positive class, searchsorted past the end, ...
        r"unique_values|classes_ not the same|takes value in \{1, (0|-1)\} and pos_label"
        r"|previously unseen labels|index \d+ is out of bounds for axis 0",
        "assert np.asarray(ca.unique_values(ca.asarray([5, 3, 9, 1, 3]))).tolist() == [1, 3, 5, 9]",
    ),
    Cause(
        "NumPy index arrays refused",
        r"array\(\[.*\]\) is not a valid index",
        "ca.arange(5)[np.array([0, 2])]",
    ),
    Cause(
        "0-d arrays in format() / round() / np.iterable",
        r"unsupported format string passed to Array\.__format__"
        r"|doesn't define __round__",
        "format(ca.asarray(0.5), '.2f'); round(ca.asarray(0.5), 2);"
        " assert not np.iterable(ca.asarray(0.5))",
    ),
    Cause(
        "linspace with 0-d start / integer dtype",
        r"(start|stop) must be a Python|linspace needs a floating-point dtype",
        "ca.linspace(ca.asarray(0.0), 1.0, 3); ca.linspace(0, 10, 3, dtype=ca.int64)",
    ),
    Cause(
        "moveaxis with lists",
        r"(source|destination) must be an int or a tuple of ints",
        "ca.moveaxis(ca.zeros((2, 3, 4)), [0, 1], [1, 2])",
    ),
    Cause(
        "devices() not a list",
        r"devices\(\)|'tuple' object (has no attribute|does not support item)"
        r"|can only concatenate list \(not \"tuple\"\)",
        "assert isinstance(ca.__array_namespace_info__().devices(), list)",
    ),
    Cause(
        # (the message of cowarray before mixed-kind promotion followed NumPy 2,
        # design rule 11: kept to sort old outcome files)
        "integer with floating array refused (before mixed-kind promotion followed NumPy 2)",
        r"cannot combine \w+ \((signed|unsigned) integer\) with \w+ \((real|complex) floating",
        "ca.asarray([1, 2]) @ ca.asarray([1.0, 2.0]); ca.asarray([True]) * 0.5",
    ),
    Cause(
        "a write or in-place operator that would change the array's kind refused",
        r"where the result keeps that dtype|in-place operators keep the dtype",
        "x = ca.asarray([1, 2]); x[0] = 0.5",  # NumPy casts (x[0] becomes 0)
        known=False,
    ),
)


def normalize(message: str) -> str:
    """An error message with the instance-specific parts (numbers, addresses) blanked."""
    message = re.sub(r"0x[0-9a-f]+", "0x…", message)
    message = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", message)
    message = re.sub(r"'[^']{40,}'", "'…'", message)
    return message[:200]


def classify(message: str, row: dict[str, Any] | None = None) -> str:
    """The cause a failure points at: a known one, else its normalized first line."""
    warned = row is not None and bool(row.get("view_write_warning"))
    for cause in CAUSES:
        if cause.matches(message) or (warned and cause is CAUSES[0]):
            return cause.label + (" [known]" if cause.known else "")
    return "other: " + normalize((message.splitlines() or ["(no message)"])[0])[:160]


def probe() -> list[tuple[Cause, str]]:
    """Run every reproduction; (cause, "reproduces: <error>" or "fixed")."""
    import numpy as np

    import cowarray as ca

    results = []
    for cause in CAUSES:
        try:
            exec(cause.reproduction, {"ca": ca, "np": np})
            results.append((cause, "fixed"))
        except Exception as exc:
            results.append((cause, f"reproduces: {type(exc).__name__}: {exc}"[:200]))
    return results


if __name__ == "__main__":
    import cowarray

    print(f"cowarray from {cowarray.__file__}")
    for cause, state in probe():
        print(f"- {cause.label}: {state}\n    {cause.reproduction}")
