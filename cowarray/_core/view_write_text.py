"""The words of the view-write warning (rule 1): the user's own code, read back.

A view write is reported naming what was written and which view changed,
in the variables of the line that wrote, read from its source (``linecache``
and ``ast``, at the instruction's position in its code object). Nothing
here decides anything: where the source cannot be read, the warning uses
neutral words.
"""

from __future__ import annotations

import ast
import linecache
from typing import Any, Final

__all__ = ["broadcast_write_message", "message", "stale_view_message"]


#: The docs page that lists library code relying on writes through views.
_DOCS_TITLE: Final = '"Compatibility: library code that relies on writes through views"'
_GENERIC_HINT: Final = (
    "Write that array itself (x[k] += d, not v = x[k]; v += d), or take "
    "lazy_clone(x[k]) if a separate value was meant"
)


def message(
    what: str, site: tuple[Any, int] | None, filename: str, module_globals: dict[str, Any]
) -> str:
    """The warning's text for the write ``what`` made at ``site`` (the code
    object and offset that wrote) in ``filename``, naming the user's
    variables where the source says them."""
    written, subject, hint = what, "this view", _GENERIC_HINT
    if site is not None:
        try:
            described = _describe_write(what, site, filename, module_globals)
        except Exception:  # (source that is not there or does not parse)
            described = None
        if described is not None:
            written, subject, hint = described
    return (
        f"{written} changed only {subject}, not the array it was taken from, which is "
        "still alive: NumPy would have changed both (cowarray arrays are values). "
        f"{hint}; see {_docs_page()}"
    )


def _docs_page() -> str:
    """The published docs page, if the package names its docs, else its title."""
    global _DOCS_PAGE
    if _DOCS_PAGE is None:
        page = f"{_DOCS_TITLE}, the compatibility page of the cowarray docs"
        try:
            from importlib import metadata

            for entry in metadata.metadata("cowarray").get_all("Project-URL") or []:
                label, _, url = entry.partition(",")
                if label.strip().lower() in ("documentation", "docs") and url.strip():
                    page = f"{_DOCS_TITLE} at {url.strip().rstrip('/')}/compatibility.html"
                    break
        except Exception:  # (not installed with metadata: the title alone)
            pass
        _DOCS_PAGE = page
    return _DOCS_PAGE


_DOCS_PAGE: str | None = None


def _describe_write(
    what: str, site: tuple[Any, int], filename: str, module_globals: dict[str, Any]
) -> tuple[str, str, str] | None:
    """(what was written, which view changed, the hint) in the user's names,
    read from the source at the instruction that wrote; None if unreadable."""
    code, offset = site
    lineno, end_lineno, column, end_column = list(code.co_positions())[offset // 2]
    if None in (lineno, end_lineno, column, end_column):
        return None
    lines = linecache.getlines(filename, module_globals)
    if not lines or end_lineno > len(lines):
        return None
    source = [line.encode() for line in lines[lineno - 1 : end_lineno]]
    source[-1] = source[-1][:end_column]
    source[0] = source[0][column:]
    text = b"".join(source).decode()
    if what.startswith("an in-place"):
        statement = ast.parse(text).body[0]
        if not isinstance(statement, ast.AugAssign):
            return None  # a call from C (operator.iadd): the neutral words
        return _describe_augmented(statement)
    target = ast.parse(text, mode="eval").body
    if not isinstance(target, ast.Subscript):
        return None
    value = _assigned_value(lines[lineno - 1], target)
    return _describe_store(target, value)


def _describe_augmented(statement: ast.AugAssign) -> tuple[str, str, str]:
    target = ast.unparse(statement.target)
    operator = _OPERATORS.get(type(statement.op).__name__, "+")
    written = _short(f"{target} {operator}= {ast.unparse(statement.value)}")
    if isinstance(statement.target, ast.Name):
        hint = (
            f"Write the array {target} was taken from itself (x[k] {operator}= d, not "
            f"{target} = x[k]; {target} {operator}= d), or take {target} = lazy_clone(x[k]) "
            "if a separate value was meant"
        )
        return written, f"the view {target}", hint
    return written, f"the view {_short(target)}", _GENERIC_HINT


def _describe_store(target: ast.Subscript, value: str) -> tuple[str, str, str]:
    written = _short(f"{ast.unparse(target)} = {value}")
    inner = target.value
    if isinstance(inner, ast.Subscript):  # chained: x[0][1] = 5
        joined = _joined_index(inner.slice, target.slice)
        base = ast.unparse(inner.value)
        inner_text = _short(ast.unparse(inner))
        subject = f"the temporary view {inner_text}"
        if joined is not None:
            return (
                written,
                subject,
                f"Index once to write {base} itself: write {base}[{joined}] = {value} (or "
                f"take lazy_clone({inner_text}) if a separate value was meant)",
            )
        hint = (
            f"Write {base} itself, with one index: {base}[...] = {value} (or take "
            f"lazy_clone({inner_text}) if a separate value was meant)"
        )
        return written, subject, hint
    name = ast.unparse(inner)
    hint = (
        f"Write the array {name} was taken from itself (x[k, i] = v, not "
        f"{name} = x[k]; {name}[i] = v), or take {name} = lazy_clone(x[k]) if a "
        "separate value was meant"
    )
    return written, f"the view {_short(name)}", hint


def _joined_index(first: ast.expr, second: ast.expr) -> str | None:
    """``0, 1`` for ``x[0][1]``: one index that selects the same, when the
    first index is integers (a slice first would change what the second means)."""
    firsts = first.elts if isinstance(first, ast.Tuple) else [first]
    seconds = second.elts if isinstance(second, ast.Tuple) else [second]
    for part in firsts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part = part.operand
        integer = isinstance(part, ast.Constant) and type(part.value) is int
        if not (integer or isinstance(part, (ast.Name, ast.Attribute))):
            return None
    if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in seconds):
        return None
    return ", ".join(ast.unparse(p) for p in (*firsts, *seconds))


def _assigned_value(line: str, target: ast.Subscript) -> str:
    """The value of the assignment to ``target`` on ``line``, else ``value``."""
    try:
        statements = ast.parse(line.strip()).body
    except SyntaxError:
        return "value"
    wanted = ast.unparse(target)
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(
            ast.unparse(t) == wanted for t in statement.targets
        ):
            return _short(ast.unparse(statement.value), 30)
    return "value"


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


_OPERATORS: Final = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "MatMult": "@",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "LShift": "<<",
    "RShift": ">>",
    "BitAnd": "&",
    "BitOr": "|",
    "BitXor": "^",
}


def stale_view_message(
    view: str, write_filename: str, write_lineno: int, module_globals: dict[str, Any]
) -> str:
    """The text of the warning at a use of ``view`` (a variable's name), a
    view whose base was written at ``write_filename:write_lineno`` after the
    view was taken: NumPy would show that write in the view."""
    source = linecache.getline(write_filename, write_lineno, module_globals).strip()
    write = f"line {write_lineno} ({_short(source)})" if source else f"line {write_lineno}"
    return (
        f"{view} is a view taken before the array it views was written at {write}: "
        f"NumPy would show that write in {view}, but cowarray's {view} keeps the values "
        f"from before it (cowarray arrays are values). If the new values were meant, take "
        f"the view again after the write; if the old ones were, take "
        f"{view} = lazy_clone(...) of it, which never warns; see {_docs_page()}"
    )


def broadcast_write_message(
    what: str, site: tuple[Any, int] | None, filename: str, module_globals: dict[str, Any]
) -> str:
    """The warning's text for a write to a broadcast view (``broadcast_to``):
    NumPy refuses such a write, so the advice is not the view write's."""
    written, subject = what, "this broadcast view"
    if site is not None:
        try:
            described = _describe_write(what, site, filename, module_globals)
        except Exception:  # (source that is not there or does not parse)
            described = None
        if described is not None:
            written, subject = described[0], described[1]
    return (
        f"{written} wrote {subject}, a broadcast (broadcast_to repeats elements): NumPy's "
        "broadcast_to gives a read-only view and would refuse this write. cowarray gave "
        f"{subject} memory of its own and left the array it was broadcast from unchanged. "
        "If a writable array of that shape was meant, say so: take "
        "ca.broadcast_to(x, shape).copy(), a value of its own that never warns"
    )
