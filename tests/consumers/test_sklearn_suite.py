"""scikit-learn as a consumer: its own array-API tests and a few estimators, on cowarray.

Why: the Array API standard is only worth implementing if real consumers run on
it.  This runs, in a subprocess, a fast subset of scikit-learn's installed
array-API tests with cowarray added as a namespace next to array_api_strict (the
``tools/consumers/sklearn_namespaces.py`` plugin), and asserts that every
instance that passes on array_api_strict passes on cowarray too.  A second test
fits a handful of estimators on cowarray arrays and compares with NumPy
(``tools/consumers/sklearn_estimators.py``).  The full comparison is
``tools/consumers/run_sklearn.py``.

Both skip when scikit-learn or array_api_strict is not installed.  Both run in
subprocesses because scikit-learn's array-API dispatch needs ``SCIPY_ARRAY_API=1``
before SciPy is first imported, which this test process cannot promise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("array_api_strict")

TOOLS = Path(__file__).resolve().parents[2] / "tools" / "consumers"
sys.path.insert(0, str(TOOLS))

import compatibility  # noqa: E402
import run_sklearn  # noqa: E402

# Fast (~1 minute) and between them touching the causes seen so far: the array-API
# helpers, LabelEncoder (unique_values), GaussianMixture (writes through views),
# pairwise kernels (np.asarray export into compiled code), naive Bayes, scalers.
FAST_SUBSET = (
    "sklearn.utils.tests.test_array_api",
    "sklearn.preprocessing.tests.test_label",
    "sklearn.preprocessing.tests.test_data",
    "sklearn.mixture.tests.test_gaussian_mixture",
    "sklearn.metrics.tests.test_pairwise",
    "sklearn.tests.test_naive_bayes",
)

ESTIMATORS = (
    "StandardScaler",
    "MinMaxScaler",
    "Ridge",
    "PCA",
    "LinearDiscriminantAnalysis",
    "GaussianNB",
    "LabelEncoder",
    "LogisticRegression",
    "GaussianMixture",
)


@pytest.fixture(scope="module")
def suite_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The recorded instances of the fast subset, both namespaces, one pytest run."""
    record = tmp_path_factory.mktemp("sklearn") / "outcomes.jsonl"
    code, _ = run_sklearn.run_pytest(
        list(FAST_SUBSET), "array_api", record, f"{run_sklearn.SUBJECT},{run_sklearn.REFERENCE}"
    )
    assert record.exists(), f"pytest (exit {code}) recorded nothing"
    return run_sklearn.load(record)


def test_strict_passes_imply_cowarray_passes(suite_rows: list[dict[str, Any]]) -> None:
    """Every scikit-learn instance that passes on array_api_strict passes on cowarray,
    but those docs/compatibility.md lists as relying on writes through views,
    which must fail loudly (with a ViewWriteWarning)."""
    by_ns: dict[str, dict[str, dict[str, Any]]] = {}
    for row in suite_rows:
        by_ns.setdefault(row["namespace"], {})[row["key"]] = row
    strict, cowarray = by_ns.get("array_api_strict", {}), by_ns.get("cowarray", {})
    assert len(cowarray) > 300, "the plugin did not add cowarray instances"
    twins = [key for key, row in strict.items() if row["outcome"] == "passed" and key in cowarray]
    failing = [
        cowarray[key]
        for key in twins
        if cowarray[key]["outcome"] != "passed"
        and not compatibility.relies_on_view_writes(
            cowarray[key]["nodeid"], cowarray[key]["view_write_warning"]
        )
    ]
    assert not failing, (
        f"{len(failing)} of {len(twins)} strict-passing instances fail on cowarray:\n"
        + ("\n".join(f"{row['nodeid']}: {row['error']}" for row in failing))
    )


@pytest.fixture(scope="module")
def estimator_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """sklearn_estimators.py's outcomes for ``ESTIMATORS`` and the named cases."""
    out = tmp_path_factory.mktemp("sklearn") / "estimators.json"
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    command = [sys.executable, str(TOOLS / "sklearn_estimators.py"), "--json", str(out)]
    subprocess.run(
        [*command, "--only", ",".join(ESTIMATORS)],
        env=env,
        check=False,
        capture_output=True,
        timeout=600,
    )
    assert out.exists(), "sklearn_estimators.py wrote no results"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_matches_numpy(estimator_outcomes: dict[str, Any], name: str) -> None:
    """Fitted on cowarray arrays, the estimator's attributes and outputs match NumPy's."""
    outcome = estimator_outcomes[name]
    if not outcome["array_api_strict"]["ok"]:
        pytest.skip(f"fails on array_api_strict too: {outcome['array_api_strict']['error']}")
    cow = outcome["cowarray"]
    if name in compatibility.listed_names():
        # relies on writes through views: NumPy's answer, or a loud warning
        assert cow["ok"] or cow["view_write_warning"], f"silent: [{cow['step']}] {cow['error']}"
        return
    assert cow["ok"], f"[{cow['step']}] {cow['error']}"


def test_named_cases(estimator_outcomes: dict[str, Any]) -> None:
    """LabelEncoder on integers and f1_score(average=None) on cowarray match NumPy."""
    for label in ("LabelEncoder().fit([5, 3, 9, 1, 3]).classes_", "f1_score(average=None)"):
        cow = estimator_outcomes[label]["cowarray"]
        assert cow["ok"], f"{label}: [{cow['step']}] {cow['error']}"
