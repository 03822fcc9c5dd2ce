"""Fit and predict every array-API scikit-learn estimator on cowarray and compare with NumPy.

Why: scikit-learn's common check ``check_array_api_input`` compares mostly shapes
and dtypes (values only for a few estimators).  Here each estimator that declares
array-API support is fitted on NumPy float64 data and on the same data as
cowarray arrays (and as array_api_strict arrays, the reference) under
``sklearn.config_context(array_api_dispatch=True)``; fitted array attributes and
the outputs of predict / transform / predict_proba / score / ... must match
NumPy's within a tolerance, and must be arrays of the input's library wherever
NumPy's answer is an ``ndarray``.

The estimator list comes from the ``array_api_support`` estimator tag (some
estimators declare it only for some parameters, e.g. ``GaussianMixture
(init_params="random")``, so a few parameter settings are tried), cross-checked
with the list in scikit-learn's ``doc/modules/array_api.rst`` (``DOCS_LISTED``);
estimators the docs name but whose tag is false in the installed version are
run too and marked "(docs only)".  A few specific cases (``LabelEncoder`` on
integers, ``f1_score(average=None)``, and default-parameter GaussianNB,
GaussianMixture, LogisticRegression, PoissonRegressor) follow the table::

    SCIPY_ARRAY_API=1 nice /work/venv/bin/python tools/consumers/sklearn_estimators.py
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import sklearn
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.utils import all_estimators
from sklearn.utils._tags import get_tags

NAMESPACES = ("array_api_strict", "cowarray")
METHODS = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "transform",
    "score_samples",
    "score",
)
RTOL, ATOL = 1e-6, 1e-8
VIEW_WRITE_WARNING = "ViewWriteWarning"

# scikit-learn's doc/modules/array_api.rst, "Estimators" and "Meta-estimators"
DOCS_LISTED = (
    "PCA",
    "Ridge",
    "RidgeCV",
    "RidgeClassifier",
    "RidgeClassifierCV",
    "LinearDiscriminantAnalysis",
    "Binarizer",
    "KernelCenterer",
    "LabelEncoder",
    "MaxAbsScaler",
    "MinMaxScaler",
    "Normalizer",
    "PolynomialFeatures",
    "StandardScaler",
    "GaussianMixture",
    "CalibratedClassifierCV",
    "GridSearchCV",
    "RandomizedSearchCV",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
)


class Mismatch(AssertionError):
    """An array-API result differs from NumPy's (value, type or namespace)."""


@dataclass
class Outcome:
    """What happened to one estimator (or case) on one namespace."""

    ok: bool
    error: str = ""
    step: str = ""
    view_write_warning: bool = False
    checked: list[str] = field(default_factory=list)

    def cell(self) -> str:
        """The table cell: ok / FAIL, with a flag for a ViewWriteWarning."""
        text = "ok" if self.ok else "FAIL"
        return text + (" (ViewWriteWarning)" if self.view_write_warning else "")


# ---------------------------------------------------------------- estimators


def _base_estimators() -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression, Ridge

    return {"estimator": LogisticRegression(), "regressor": Ridge()}


def _candidates(name: str, cls: type) -> Iterator[Any]:
    """Instances of ``cls`` to try, the plainest first (default, then sklearn's test ones)."""
    from sklearn.utils._test_common.instance_generator import _construct_instances

    tries: tuple[dict[str, Any], ...] = (
        {},
        {"init_params": "random"},
        {"method": "temperature"},
        {"solver": "lbfgs"},
        {"solver": "svd"},
        {"svd_solver": "full"},
    )
    for kwargs in tries:
        with contextlib.suppress(TypeError):  # the class lacks that parameter
            yield cls(**kwargs)
    with contextlib.suppress(Exception):  # sklearn's generator refuses a few classes
        yield from _construct_instances(cls)
    if name == "CalibratedClassifierCV":
        yield cls(estimator=_base_estimators()["estimator"], method="temperature")
    if name == "FrozenEstimator":
        yield cls(_base_estimators()["regressor"])
    if name.startswith("Halving"):
        grid = {"alpha": [0.1, 1.0]}
        yield cls(_base_estimators()["regressor"], grid, cv=2, min_resources=20)


def _supports(estimator: Any) -> bool:
    try:
        return bool(get_tags(estimator).array_api_support)
    except Exception:
        return False


def supported_estimators(include_docs_only: bool = True) -> list[tuple[str, Any]]:
    """(label, unfitted instance) for every estimator declaring array-API support.

    With ``include_docs_only``, estimators named in the docs list whose tag is false
    here are added with the label suffix " (docs only)".
    """
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401 (lists Halving*)

    found: list[tuple[str, Any]] = []
    classes = dict(all_estimators())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls in classes.items():
            candidates = list(_candidates(name, cls))
            chosen = next((c for c in candidates if _supports(c)), None)
            if chosen is not None:
                found.append((name, chosen))
            elif include_docs_only and name in DOCS_LISTED and candidates:
                found.append((f"{name} (docs only)", candidates[0]))
    return found


# ---------------------------------------------------------------------- data


def make_data(estimator: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """Float64 X (and y where the estimator takes one) suited to the estimator's tags."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.utils.estimator_checks import (
        _enforce_estimator_tags_X,
        _enforce_estimator_tags_y,
    )

    # a meta-estimator's data is its inner estimator's
    model = getattr(estimator, "estimator", None) or estimator
    if is_regressor(model):
        X, y = make_regression(n_samples=60, n_features=6, noise=0.5, random_state=0)
        y = y / np.abs(y).max()
    else:
        # full-rank X: redundant features make covariances singular, which the
        # array-API code paths (scipy.linalg.solve) detect and NumPy's do not
        X, y = make_classification(
            n_samples=60,
            n_features=6,
            n_informative=4,
            n_redundant=0,
            n_classes=3,
            random_state=0,
        )
    X = _enforce_estimator_tags_X(estimator, X.astype(np.float64))
    if get_tags(model).target_tags.required or is_classifier(model) or is_regressor(model):
        return X, _enforce_estimator_tags_y(model, y)
    return X, None


# --------------------------------------------------------------- comparisons


def _namespace(name: str) -> Any:
    return importlib.import_module(name)


def to_numpy(value: Any) -> np.ndarray:
    """A NumPy copy of an array of any namespace (through DLPack, as sklearn does)."""
    from sklearn.utils._array_api import move_to

    with sklearn.config_context(array_api_dispatch=True):
        return np.asarray(move_to(value, xp=np, device="cpu"))


def compare(what: str, expected: Any, got: Any, xp: Any) -> None:
    """Raise ``Mismatch`` unless ``got`` (from ``xp`` input) matches NumPy's ``expected``."""
    if isinstance(expected, np.ndarray):
        array_type = type(xp.asarray(0))
        if not isinstance(got, array_type):
            raise Mismatch(
                f"{what}: {type(got).__module__}.{type(got).__name__}, expected "
                f"{array_type.__module__}.{array_type.__name__}"
            )
        got_np = to_numpy(got)
        if got_np.shape != expected.shape:
            raise Mismatch(f"{what}: shape {got_np.shape} != {expected.shape}")
        if expected.dtype.kind in "fc":
            if not np.allclose(got_np, expected, rtol=RTOL, atol=ATOL, equal_nan=True):
                diff = np.nanmax(np.abs(got_np.astype(float) - expected.astype(float)))
                raise Mismatch(f"{what}: values differ (max abs diff {diff:.3g})")
        elif not np.array_equal(got_np, expected):
            raise Mismatch(f"{what}: values differ: {got_np[:5]} != {expected[:5]}")
    elif isinstance(expected, float | int | np.floating | np.integer):
        if not np.isscalar(got) and not isinstance(got, float | int):
            raise Mismatch(f"{what}: {type(got).__name__}, expected a Python scalar")
        if not np.isclose(float(got), float(expected), rtol=RTOL, atol=ATOL):
            raise Mismatch(f"{what}: {got} != {expected}")


def _guarded(body: Callable[[list[str]], None]) -> Outcome:
    """Run ``body(checked)``; an exception becomes a failed ``Outcome``."""
    checked: list[str] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            body(checked)
            outcome = Outcome(ok=True)
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [""])[0]
            error = f"{type(exc).__name__}: {first}"[:300]
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            outcome = Outcome(ok=False, error=error, step=checked[-1] if checked else "fit")
            outcome.error += f"  [{os.path.basename(frame.filename)}:{frame.lineno}]"
    outcome.checked = checked
    outcome.view_write_warning = any(type(w.message).__name__ == VIEW_WRITE_WARNING for w in seen)
    return outcome


def _fit(estimator: Any, X: Any, y: Any) -> Any:
    """A fitted clone with fixed random state; a FrozenEstimator freezes a fitted inner one."""
    from sklearn.frozen import FrozenEstimator
    from sklearn.utils.estimator_checks import set_random_state

    if isinstance(estimator, FrozenEstimator):
        return FrozenEstimator(_fit(estimator.estimator, X, y))
    fresh = clone(estimator)
    set_random_state(fresh)
    return fresh.fit(X, y)


def check_estimator(estimator: Any, namespace: str) -> Outcome:
    """Fit/predict ``estimator`` on NumPy and on ``namespace`` arrays; compare."""
    if type(estimator).__name__ == "LabelEncoder":  # fits on y alone
        return check_label_encoder(namespace, labels=[2, 0, 1, 2, 1, 1, 0])
    xp = _namespace(namespace)
    X, y = make_data(estimator)

    def body(checked: list[str]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = _fit(estimator, X, y)
        X_xp = xp.asarray(X)
        y_xp = None if y is None else xp.asarray(y)
        checked.append("fit")
        with sklearn.config_context(array_api_dispatch=True):
            fitted = _fit(estimator, X_xp, y_xp)
        for key, value in vars(reference).items():
            if key.endswith("_") and isinstance(value, np.ndarray) and key != "classes_":
                checked.append(key)
                compare(key, value, getattr(fitted, key), xp)
        for method in METHODS:
            if not hasattr(reference, method):
                continue
            checked.append(method)
            args = (X, y) if method == "score" else (X,)
            args_xp = (X_xp, y_xp) if method == "score" else (X_xp,)
            expected = getattr(reference, method)(*args)
            with sklearn.config_context(array_api_dispatch=True):
                got = getattr(fitted, method)(*args_xp)
            compare(method, expected, got, xp)
            if method == "transform" and hasattr(reference, "inverse_transform"):
                checked.append("inverse_transform")
                try:
                    inverse = reference.inverse_transform(expected)
                except (NotImplementedError, ValueError, AttributeError):
                    continue
                with sklearn.config_context(array_api_dispatch=True):
                    compare("inverse_transform", inverse, fitted.inverse_transform(got), xp)

    return _guarded(body)


# --------------------------------------------------------------- named cases


def check_label_encoder(namespace: str, labels: Any = (5, 3, 9, 1, 3)) -> Outcome:
    """``LabelEncoder().fit(xp.asarray(labels))``: sorted ``classes_``, transform, inverse."""
    from sklearn.preprocessing import LabelEncoder

    xp = _namespace(namespace)
    y = np.asarray(labels)

    def body(checked: list[str]) -> None:
        reference = LabelEncoder().fit(y)
        checked.append("fit")
        with sklearn.config_context(array_api_dispatch=True):
            fitted = LabelEncoder().fit(xp.asarray(y))
            checked.append("classes_")
            compare("classes_", reference.classes_, fitted.classes_, xp)
            checked.append("transform")
            encoded = fitted.transform(xp.asarray(y))
            compare("transform", reference.transform(y), encoded, xp)
            checked.append("inverse_transform")
            compare("inverse_transform", y, fitted.inverse_transform(encoded), xp)

    return _guarded(body)


def check_f1_average_none(namespace: str) -> Outcome:
    """``f1_score(y_true, y_pred, average=None)``: one score per class, as an array."""
    from sklearn.metrics import f1_score

    xp = _namespace(namespace)
    y_true = np.array([0, 1, 2, 0, 1, 2, 0, 2, 2, 1])
    y_pred = np.array([0, 2, 1, 0, 0, 2, 0, 2, 1, 1])

    def body(checked: list[str]) -> None:
        expected = f1_score(y_true, y_pred, average=None)
        checked.append("f1_score")
        with sklearn.config_context(array_api_dispatch=True):
            got = f1_score(xp.asarray(y_true), xp.asarray(y_pred), average=None)
        compare("f1_score(average=None)", expected, got, xp)

    return _guarded(body)


def _named_estimator_cases() -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression, PoissonRegressor
    from sklearn.mixture import GaussianMixture
    from sklearn.naive_bayes import GaussianNB

    return {
        "GaussianNB()": GaussianNB(),
        "GaussianMixture(n_components=3, init_params='random', random_state=0)": (
            GaussianMixture(n_components=3, init_params="random", random_state=0)
        ),
        "LogisticRegression()": LogisticRegression(),
        "PoissonRegressor()": PoissonRegressor(),
    }


def named_cases() -> dict[str, Callable[[str], Outcome]]:
    """The specific cases the brief names, each a function of the namespace name."""
    cases: dict[str, Callable[[str], Outcome]] = {
        "LabelEncoder().fit([5, 3, 9, 1, 3]).classes_": check_label_encoder,
        "f1_score(average=None)": check_f1_average_none,
    }
    for label, estimator in _named_estimator_cases().items():
        cases[label] = lambda namespace, estimator=estimator: check_estimator(estimator, namespace)
    return cases


# --------------------------------------------------------------------- main


def _row(label: str, outcomes: dict[str, Outcome], namespaces: tuple[str, ...]) -> str:
    cells = [outcomes[ns].cell() for ns in namespaces]
    failing = [ns for ns in reversed(namespaces) if not outcomes[ns].ok]
    error = ""
    if failing:
        ns = failing[0]
        prefix = "" if ns == namespaces[-1] else f"{ns}: "
        error = f"{prefix}[{outcomes[ns].step}] {outcomes[ns].error}".replace("|", "\\|")
    return f"| {label} | " + " | ".join(cells) + f" | {error} |"


def main(argv: list[str] | None = None) -> int:
    """Print the estimator table and the named cases; exit 1 if cowarray fails any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespaces", default=",".join(NAMESPACES))
    parser.add_argument("--only", default="", help="comma-separated estimator names")
    parser.add_argument("--json", type=Path, help="also write {label: {namespace: outcome}}")
    args = parser.parse_args(argv)
    namespaces = tuple(args.namespaces.split(","))
    header = "| estimator | " + " | ".join(namespaces) + " | error (first line) |"
    rule = "|---" * (len(namespaces) + 2) + "|"

    estimators = supported_estimators()
    if args.only:
        wanted = set(args.only.split(","))
        estimators = [(n, e) for n, e in estimators if n.split(" ")[0] in wanted]
    print(
        f"{sum('docs only' not in n for n, _ in estimators)} estimators with the tag,"
        f" {sum('docs only' in n for n, _ in estimators)} docs-only\n"
    )
    print(header + "\n" + rule)
    results: dict[str, dict[str, Outcome]] = {}
    for label, estimator in estimators:
        results[label] = {ns: check_estimator(estimator, ns) for ns in namespaces}
        print(_row(label, results[label], namespaces), flush=True)

    print("\n" + header.replace("estimator", "case") + "\n" + rule)
    for label, case in named_cases().items():
        results[label] = {ns: case(ns) for ns in namespaces}
        print(_row(label, results[label], namespaces), flush=True)
    if args.json:
        as_dicts = {k: {ns: asdict(o) for ns, o in v.items()} for k, v in results.items()}
        args.json.write_text(json.dumps(as_dicts, indent=1), encoding="utf-8")
    return 1 if any(not v[namespaces[-1]].ok for v in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
