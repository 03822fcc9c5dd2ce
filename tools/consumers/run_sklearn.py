"""Run scikit-learn's own array-API tests on cowarray and on array_api_strict, side by side.

Why: scikit-learn is the largest consumer of the array API standard; its tests,
run against the installed wheel (never a copy), show which parts of cowarray a
real library trips over.  array_api_strict is the reference: an instance that
passes there and fails on cowarray points at cowarray (or at a cowarray
behaviour scikit-learn does not expect).

One pytest process (single worker, under ``nice``) collects ``-k array_api`` over
the ``sklearn`` package with the ``sklearn_namespaces`` plugin, and
``sklearn_outcomes`` records each instance.  The instances fall in three groups:

* ``common``: the estimator checks ``check_array_api_input*``,
  ``check_array_api_mixed_inputs`` and ``check_array_api_same_namespace`` of
  ``sklearn/tests/test_common.py``;
* ``test_array_api``: ``sklearn/utils/tests/test_array_api.py`` (every test in it
  matches ``-k array_api`` through its file name);
* ``other``: the rest of the array-API-parametrized tests (metrics, losses,
  preprocessing, ...).

It prints ``group | strict passed | cowarray passed | cowarray passed among
strict-passed`` and writes a failure report grouped by error message to /tmp::

    /work/venv/bin/python tools/consumers/run_sklearn.py            # everything
    /work/venv/bin/python tools/consumers/run_sklearn.py --group common
    /work/venv/bin/python tools/consumers/run_sklearn.py \\
        --summarize /tmp/sklearn_array_api/outcomes-all.jsonl
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = "array_api_strict"
SUBJECT = "cowarray"

# group name -> (pytest targets as --pyargs, -k expression)
GROUPS: dict[str, tuple[list[str], str]] = {
    "common": (["sklearn.tests.test_common"], "array_api"),
    "test_array_api": (["sklearn.utils.tests.test_array_api"], ""),
    "other": (["sklearn"], "array_api and not test_common.py and not test_array_api.py"),
    "all": (["sklearn"], "array_api"),
}


def group_of(nodeid: str) -> str:
    """Which of the three groups an instance belongs to."""
    if nodeid.startswith("sklearn/tests/test_common.py"):
        return "common"
    if nodeid.startswith("sklearn/utils/tests/test_array_api.py"):
        return "test_array_api"
    return "other"


def site_packages() -> Path:
    """The directory holding the installed ``sklearn`` package (the pytest rootdir)."""
    spec = importlib.util.find_spec("sklearn")  # not imported: SciPy would come along
    if spec is None or spec.origin is None:
        raise RuntimeError("scikit-learn is not installed")
    return Path(spec.origin).resolve().parent.parent


def run_pytest(
    targets: list[str],
    keyword: str,
    record: Path,
    namespaces: str,
    extra: Iterable[str] = (),
    workdir: Path | None = None,
) -> tuple[int, float]:
    """Run pytest once in a subprocess; return (exit code, seconds).

    The run uses an empty ini file in a scratch directory so neither cowarray's
    pytest settings (doctests of its own package) nor a stray configuration
    apply, with scikit-learn's installed location as rootdir so node ids read
    ``sklearn/...``.
    """
    workdir = workdir or record.parent
    workdir.mkdir(parents=True, exist_ok=True)
    ini = workdir / "pytest.ini"
    ini.write_text("[pytest]\n")
    env = dict(os.environ)
    env.update(
        SCIPY_ARRAY_API="1",
        COWARRAY_CONSUMER_NAMESPACES=namespaces,
        COWARRAY_CONSUMER_RECORD=str(record),
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH", "")])),
        # two shared cores: keep BLAS/OpenMP to one thread each
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    command = [
        "nice",
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(ini),
        f"--rootdir={site_packages()}",
        "-p",
        "no:cacheprovider",
        "-p",
        "sklearn_namespaces",
        "-p",
        "sklearn_outcomes",
        "-q",
        "--tb=no",
        "-W",
        "ignore::pytest.PytestRemovedIn10Warning",
        *(["-k", keyword] if keyword else []),
        *extra,
        "--pyargs",
        *targets,
    ]
    print("$", " ".join(command), flush=True)
    start = time.monotonic()
    completed = subprocess.run(command, cwd=workdir, env=env, check=False)
    return completed.returncode, time.monotonic() - start


def load(record: Path) -> list[dict[str, object]]:
    """The instances of a record file (the last line wins for a repeated nodeid)."""
    rows: dict[str, dict[str, object]] = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[str(row["nodeid"])] = row
    return list(rows.values())


def table(rows: list[dict[str, object]]) -> str:
    """``group | strict passed | cowarray passed | cowarray passed among strict-passed``."""
    by_group: dict[str, dict[str, dict[str, dict[str, object]]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for row in rows:
        by_group[group_of(str(row["nodeid"]))][str(row["namespace"])][str(row["key"])] = row
    lines = [
        "| group | strict passed | cowarray passed | cowarray passed among strict-passed |",
        "|---|---|---|---|",
    ]
    totals = Counter()
    for group in ("common", "test_array_api", "other"):
        if group not in by_group:
            continue
        ref, sub = by_group[group].get(REFERENCE, {}), by_group[group].get(SUBJECT, {})
        ref_passed = {key for key, row in ref.items() if row["outcome"] == "passed"}
        twins = ref_passed & sub.keys()
        counts = {
            "ref_passed": len(ref_passed),
            "ref_total": len(ref),
            "sub_passed": sum(row["outcome"] == "passed" for row in sub.values()),
            "sub_total": len(sub),
            "both": sum(sub[key]["outcome"] == "passed" for key in twins),
            "twins": len(twins),
        }
        totals.update(counts)
        lines.append(_table_line(group, counts))
    lines.append(_table_line("**total**", totals))
    return "\n".join(lines)


def _table_line(name: str, c: dict[str, int] | Counter) -> str:
    return (
        f"| {name} | {c['ref_passed']}/{c['ref_total']} | {c['sub_passed']}/{c['sub_total']}"
        f" | {c['both']}/{c['twins']} |"
    )


def failure_report(rows: list[dict[str, object]], seconds: float | None) -> str:
    """Markdown: cowarray failures grouped by error message, then per-file counts."""
    from sklearn_causes import classify, normalize

    ref = {str(row["key"]): row for row in rows if row["namespace"] == REFERENCE}
    failing = [
        row for row in rows if row["namespace"] == SUBJECT and row["outcome"] in {"failed", "error"}
    ]
    causes: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in failing:
        causes[classify(str(row["error"]), row)].append(row)
    out = ["# scikit-learn array-API tests on cowarray: failures", ""]
    if seconds is not None:
        out.append(f"pytest wall time: {seconds:.0f} s")
    view_warned = [row for row in rows if row["namespace"] == SUBJECT and row["view_write_warning"]]
    out += [
        f"cowarray instances failing: {len(failing)}; with a ViewWriteWarning: {len(view_warned)}",
        "",
        table(rows),
        "",
        "## By cause",
        "",
    ]
    for cause, members in sorted(causes.items(), key=lambda item: -len(item[1])):
        strict_passed = sum(
            ref.get(str(row["key"]), {}).get("outcome") == "passed" for row in members
        )
        out.append(f"### {cause} — {len(members)} (strict passes {strict_passed} of them)")
        messages = Counter(normalize(str(row["error"])) for row in members)
        for message, count in messages.most_common(8):
            example = next(r for r in members if normalize(str(r["error"])) == message)
            out.append(f"- {count} x `{message}`  \n  e.g. `{example['nodeid']}`")
        out.append("")
    out += ["## Per file (cowarray passed / instances)", ""]
    per_file: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        if row["namespace"] in (SUBJECT, REFERENCE):
            name = str(row["nodeid"]).split("::")[0]
            per_file[name][f"{row['namespace']}_total"] += 1
            per_file[name][f"{row['namespace']}_passed"] += row["outcome"] == "passed"
    out.append("| file | strict | cowarray |")
    out.append("|---|---|---|")
    for name, c in sorted(per_file.items()):
        out.append(
            f"| {name} | {c[REFERENCE + '_passed']}/{c[REFERENCE + '_total']}"
            f" | {c[SUBJECT + '_passed']}/{c[SUBJECT + '_total']} |"
        )
    return "\n".join(out) + "\n"


def top_causes(rows: list[dict[str, object]], limit: int = 15) -> str:
    """A short text list of the commonest cowarray failure causes."""
    from sklearn_causes import classify

    counts = Counter(
        classify(str(row["error"]), row)
        for row in rows
        if row["namespace"] == SUBJECT and row["outcome"] in {"failed", "error"}
    )
    return "\n".join(f"{count:5d}  {cause}" for cause, count in counts.most_common(limit))


def rerun_targets(rows: list[dict[str, object]]) -> list[str]:
    """Paths of the failing cowarray instances and of their array_api_strict twins."""
    failing = {
        str(row["key"])
        for row in rows
        if row["namespace"] == SUBJECT and row["outcome"] in {"failed", "error"}
    }
    root = site_packages()
    return sorted(
        str(root / str(row["nodeid"]))
        for row in rows
        if row["namespace"] in (SUBJECT, REFERENCE) and row["key"] in failing
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: run (or re-summarize), print the table, write the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", choices=sorted(GROUPS), default="all")
    parser.add_argument("--namespaces", default=f"{SUBJECT},{REFERENCE}")
    parser.add_argument("--out", type=Path, default=Path("/tmp/sklearn_array_api"))
    parser.add_argument("--summarize", type=Path, help="summarize this record; run nothing")
    parser.add_argument(
        "--rerun",
        type=Path,
        help="rerun this record's failing cowarray instances (and their strict twins) on the"
        " cowarray now on the path; write the record with their new outcomes to --out",
    )
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))

    seconds = None
    if args.summarize:
        record = args.summarize
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        if args.rerun:
            old = load(args.rerun)
            record = args.out / "outcomes-rerun.jsonl"
            if record.resolve() == args.rerun.resolve():
                parser.error("--rerun reads the record --out would write; use another --out")
            record.write_text("".join(json.dumps(row) + "\n" for row in old), encoding="utf-8")
            targets, keyword = rerun_targets(old), ""
        else:
            record = args.out / f"outcomes-{args.group}.jsonl"
            record.unlink(missing_ok=True)
            targets, keyword = GROUPS[args.group]
        code, seconds = run_pytest(targets, keyword, record, args.namespaces, args.pytest_args)
        print(f"pytest exit code {code}, {seconds:.0f} s")
    rows = load(record)
    print(table(rows))
    print("\ntop cowarray failure causes:\n" + top_causes(rows))
    report = record.with_suffix(".report.md")
    report.write_text(failure_report(rows, seconds), encoding="utf-8")
    print(f"\nfailure report: {report}\nrecord: {record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
