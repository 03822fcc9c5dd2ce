"""Run SciPy's own array-API tests on array_api_strict and on cowarray; compare.

For each SciPy subpackage this runs, in its own single-process ``pytest``
subprocess (under ``nice``), the installed SciPy's tests that use the ``xp``
fixture (``-m array_api_backends`` with ``SCIPY_ARRAY_API=1``), with the
``scipy_backends`` plugin making ``xp`` range over the chosen backends and
writing every instance's outcome to a JSON-lines file.  It then prints, per
subpackage, how many instances pass on array_api_strict (the reference) and on
cowarray, and how many of the strict-passing ones cowarray also passes; and
writes a failure report, grouped by error message, under ``/tmp``.

Usage (from the repository root)::

    /work/venv/bin/python tools/consumers/run_scipy.py --quick
    /work/venv/bin/python tools/consumers/run_scipy.py                  # all subpackages
    /work/venv/bin/python tools/consumers/run_scipy.py --subpackages stats,signal -k quantile
    /work/venv/bin/python tools/consumers/run_scipy.py --summarize /tmp/cowarray_scipy

SciPy's tests are run from the installed package; nothing of SciPy is copied.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compatibility  # noqa: E402 - needs HERE on sys.path
from scipy_backends import (  # noqa: E402
    BACKENDS_ENV,
    DEFAULT_BACKENDS,
    RESULTS_ENV,
    TIMEOUT_ENV,
    iter_records,
)

SUBPACKAGES = (
    "special",
    "stats",
    "signal",
    "ndimage",
    "fft",
    "cluster",
    "integrate",
    "interpolate",
    "_lib",
)
REFERENCE = "array_api_strict"
CANDIDATE = "cowarray"
#: --quick: a few small test files per subpackage (paths under the scipy package)
QUICK: dict[str, tuple[str, ...]] = {
    "special": ("special/tests/test_logsumexp.py::TestLogSumExp",),
    "stats": ("stats/tests/test_variation.py", "stats/tests/test_entropy.py"),
    "signal": ("signal/tests/test_savitzky_golay.py", "signal/tests/test_windows.py"),
    "ndimage": ("ndimage/tests/test_fourier.py",),
    "fft": ("fft/tests/test_helper.py", "fft/tests/test_fftlog.py"),
    "cluster": ("cluster/tests/test_vq.py",),
    "integrate": ("integrate/tests/test_quadrature.py::TestCumulativeSimpson",),
    "interpolate": ("interpolate/tests/test_rgi.py",),
    "_lib": ("_lib/tests/test__util.py",),
}
PASSING = ("passed",)
FAILING = ("failed", "error")


def scipy_dir() -> Path:
    """The installed ``scipy`` package directory (found without importing SciPy)."""
    import importlib.util

    spec = importlib.util.find_spec("scipy")
    if spec is None or spec.origin is None:
        raise SystemExit("scipy is not installed in this Python")
    return Path(spec.origin).parent


def pytest_command(
    targets: Sequence[str], *, keyword: str | None, extra: Sequence[str], use_nice: bool
) -> list[str]:
    """The command line for one single-process pytest run over ``targets``."""
    site = scipy_dir().parent
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(HERE / "scipy_pytest.ini"),  # not the repository's pytest settings
        "--rootdir",
        str(site),  # nodeids then read scipy/<subpackage>/tests/...
        "--confcutdir",
        str(site),
        "-p",
        "scipy_backends",
        "-m",
        "array_api_backends",
        "-q",
        "--disable-warnings",
        # No tracebacks nor short summary in the log: the results file has each
        # failure's message.  (Pytest's default traceback style re-parses the test
        # module for every entry, about 1 s per failure in scipy/signal's; and the
        # end-of-run report of thousands of failures takes minutes to print.)
        # ``--pytest-arg=--tb=short`` brings tracebacks back.
        "--tb=no",
        "-rN",
        "-o",
        "console_output_style=classic",
    ]
    if keyword:
        cmd += ["-k", keyword]
    cmd += [*extra, *targets]
    if use_nice and shutil.which("nice"):
        cmd = ["nice", "-n", "10", *cmd]
    return cmd


@dataclass
class Run:
    """One subpackage's pytest run: where its results are and how it went."""

    subpackage: str
    results: Path
    log: Path
    seconds: float = 0.0
    returncode: int = 0


def run_subpackage(
    sub: str,
    targets: Sequence[str],
    *,
    backends: Sequence[str],
    out_dir: Path,
    keyword: str | None,
    extra: Sequence[str],
    timeout: float,
    use_nice: bool,
) -> Run:
    """Run one subpackage's tests in a subprocess; results go to ``out_dir/<sub>.jsonl``."""
    run = Run(sub, out_dir / f"{sub}.jsonl", out_dir / f"{sub}.log")
    run.results.unlink(missing_ok=True)
    env = dict(os.environ)
    env.update(
        {
            "SCIPY_ARRAY_API": "1",
            BACKENDS_ENV: ",".join(backends),
            RESULTS_ENV: str(run.results),
            TIMEOUT_ENV: str(timeout),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS", "1"),
            "OPENBLAS_NUM_THREADS": env.get("OPENBLAS_NUM_THREADS", "1"),
        }
    )
    cmd = pytest_command(targets, keyword=keyword, extra=extra, use_nice=use_nice)
    start = time.monotonic()
    with open(run.log, "w", encoding="utf-8") as log:
        log.write(" ".join(cmd) + "\n\n")
        log.flush()
        proc = subprocess.run(cmd, env=env, cwd=out_dir, stdout=log, stderr=subprocess.STDOUT)
    run.seconds = time.monotonic() - start
    run.returncode = proc.returncode
    if proc.returncode not in (0, 1, 5):  # 1: some test failed; 5: nothing collected
        tail = run.log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        print(f"!! {sub}: pytest exited {proc.returncode}; log {run.log}:", *tail, sep="\n   ")
    return run


def load(path: Path) -> list[dict[str, Any]]:
    """The records a run wrote (none if it wrote no file)."""
    return list(iter_records(str(path))) if path.exists() else []


@dataclass
class Row:
    """One line of the summary table."""

    subpackage: str
    instances: int
    passed: dict[str, int]
    both: int = 0
    ref_passed: int = 0
    cand_fail_vww: int = 0
    cand_fail: int = 0
    #: strict-passed instances failing on cowarray that docs/compatibility.md
    #: explains (listed as relying on writes through views, and they warned)
    listed: int = 0
    seconds: float | None = None


def summarize(sub: str, records: Iterable[dict[str, Any]], backends: Sequence[str]) -> Row:
    """Count passes per backend, and cowarray's passes among strict's, for one subpackage."""
    outcome: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)  # backend -> key -> rec
    for rec in records:
        outcome[rec["backend"]][rec["key"]] = rec
    passed = {
        b: sum(r["outcome"] in PASSING for r in outcome.get(b, {}).values()) for b in backends
    }
    row = Row(sub, max((len(v) for v in outcome.values()), default=0), passed)
    ref, cand = outcome.get(REFERENCE, {}), outcome.get(CANDIDATE, {})
    ref_keys = [k for k, r in ref.items() if r["outcome"] in PASSING]
    row.ref_passed = len(ref_keys)
    row.both = sum(k in cand and cand[k]["outcome"] in PASSING for k in ref_keys)
    row.listed = sum(
        k in cand
        and cand[k]["outcome"] not in PASSING
        and compatibility.relies_on_view_writes(
            cand[k]["nodeid"], bool(cand[k].get("view_write_warning"))
        )
        for k in ref_keys
    )
    failures = [r for r in cand.values() if r["outcome"] in FAILING]
    row.cand_fail = len(failures)
    row.cand_fail_vww = sum(bool(r.get("view_write_warning")) for r in failures)
    return row


def format_table(rows: Sequence[Row], backends: Sequence[str]) -> str:
    """The summary table as aligned text (Markdown-compatible)."""
    compare = REFERENCE in backends and CANDIDATE in backends
    head = ["subpackage", "instances", *(f"{b} passed" for b in backends)]
    if compare:
        head += [
            f"{CANDIDATE} passed among {REFERENCE}-passed",
            "%",
            "listed view writes",
            "% not counting them",
        ]
    if CANDIDATE in backends:
        head += [f"{CANDIDATE} failed", "... with ViewWriteWarning"]
    head.append("time s")
    lines = []
    total = Row("total", 0, dict.fromkeys(backends, 0), seconds=0.0)
    for row in [*rows, total]:
        if row is not total:
            total.instances += row.instances
            for b in backends:
                total.passed[b] += row.passed.get(b, 0)
            total.both += row.both
            total.ref_passed += row.ref_passed
            total.cand_fail += row.cand_fail
            total.cand_fail_vww += row.cand_fail_vww
            total.listed += row.listed
            total.seconds = None if row.seconds is None else (total.seconds or 0) + row.seconds
        cells = [row.subpackage, str(row.instances), *(str(row.passed.get(b, 0)) for b in backends)]
        if compare:
            pct = 100.0 * row.both / row.ref_passed if row.ref_passed else float("nan")
            rest = row.ref_passed - row.listed
            pct_rest = 100.0 * row.both / rest if rest else float("nan")
            cells += [
                f"{row.both} / {row.ref_passed}",
                f"{pct:.1f}",
                str(row.listed),
                f"{pct_rest:.2f}",
            ]
        if CANDIDATE in backends:
            cells += [str(row.cand_fail), str(row.cand_fail_vww)]
        cells.append("" if row.seconds is None else f"{row.seconds:.0f}")
        lines.append(cells)
    widths = [max(len(c) for c in col) for col in zip(head, *lines, strict=True)]

    def fmt(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(cells) for cells in lines]
    return "\n".join(out)


_HEX = re.compile(r"0x[0-9a-fA-F]+")
_DTYPE = re.compile(r"\b(bool|u?int(8|16|32|64)|float(16|32|64)|complex(64|128))\b")
_REPR_ARRAY = re.compile(r"(array|Array)\(.*", re.DOTALL)
_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(\.\d*)?([eE][-+]?\d+)?j?")
#: where NumPy's and SciPy's tolerance-assertion messages start listing values
_MISMATCH = (" | Mismatched elements", " | Mismatch", " | x and y nan location mismatch")


def normalize(message: str) -> str:
    """The message with values, numbers, dtype names and addresses blanked.

    So that failures with one cause group together: for an assertion that two
    arrays are close, only its head (``Not equal to tolerance ...``) is kept.
    """
    text = message
    for marker in _MISMATCH:
        if marker in text:
            text = text.split(marker, 1)[0] + " | (values differ)"
            break
    text = _HEX.sub("0x?", text)
    text = _DTYPE.sub("<dtype>", text)
    text = _REPR_ARRAY.sub(r"\1(...)", text)
    text = _NUMBER.sub("#", text)
    return text[:200]


def group_key(record: dict[str, Any]) -> str:
    """What a failure is grouped by: its normalized message, and whether it warned."""
    tag = " [ViewWriteWarning]" if record.get("view_write_warning") else ""
    return normalize(record["error"]) + tag


def failure_report(
    records_by_sub: dict[str, list[dict[str, Any]]], *, top: int = 40
) -> tuple[str, list[tuple[str, int, dict[str, Any]]]]:
    """Markdown text grouping cowarray's failures by (normalized) error message.

    Returns the text and the groups of failures among strict-passed instances,
    most common first, as ``(message, count, example record)``.
    """
    regress: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    for records in records_by_sub.values():
        ref = {r["key"] for r in records if r["backend"] == REFERENCE and r["outcome"] in PASSING}
        for r in records:
            if r["backend"] == CANDIDATE and r["outcome"] in FAILING:
                (regress if r["key"] in ref else other).append(r)
    out = ["# cowarray failures in SciPy's array-API tests", ""]
    groups: list[tuple[str, int, dict[str, Any]]] = []
    for title, members in (
        (f"Failing on {CANDIDATE}, passing on {REFERENCE}", regress),
        (f"Failing on {CANDIDATE}, not passing on {REFERENCE} either", other),
    ):
        by_msg: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in members:
            by_msg[group_key(r)].append(r)
        ranked = sorted(by_msg.items(), key=lambda kv: -len(kv[1]))
        out += [f"## {title}: {len(members)} instances, {len(ranked)} messages", ""]
        for msg, rs in ranked[:top]:
            where = Counter(r.get("where", "") for r in rs).most_common(1)[0][0]
            vww = sum(bool(r.get("view_write_warning")) for r in rs)
            out += [
                f"- **{len(rs)}** x `{msg}`",
                f"  - raised at `{where}`; ViewWriteWarning in {vww}",
                f"  - e.g. `{rs[0]['nodeid']}`",
                f"  - message: `{rs[0]['error'][:300]}`",
            ]
        out.append("")
        if members is regress:
            groups = [(msg, len(rs), rs[0]) for msg, rs in ranked]
    out += [f"## Every instance failing on {CANDIDATE} and passing on {REFERENCE}", ""]
    out += [f"- `{r['nodeid']}`: {r['error'][:200]}" for r in regress]
    return "\n".join(out) + "\n", groups


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, run (or re-read) each subpackage, print the table and report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subpackages", default=",".join(SUBPACKAGES))
    parser.add_argument("--backends", default=",".join(DEFAULT_BACKENDS))
    parser.add_argument("--quick", action="store_true", help="a few small files each")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("--out-dir", type=Path, help="results and logs (default under /tmp)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per test call")
    parser.add_argument("--no-nice", action="store_true")
    parser.add_argument("--top", type=int, default=25, help="failure messages to print")
    parser.add_argument(
        "--pytest-arg", action="append", default=[], help="extra pytest argument (repeatable)"
    )
    parser.add_argument(
        "--summarize", type=Path, metavar="DIR", help="re-read DIR's results; run nothing"
    )
    args = parser.parse_args(argv)
    subs = [s.strip() for s in args.subpackages.split(",") if s.strip()]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = sorted(set(subs) - set(SUBPACKAGES))
    if unknown:
        parser.error(f"unknown subpackage(s) {unknown}; known: {SUBPACKAGES}")
    out_dir = (
        args.summarize
        or args.out_dir
        or Path("/tmp/cowarray_scipy_quick" if args.quick else "/tmp/cowarray_scipy")
    )
    out_dir.mkdir(parents=True, exist_ok=True)

    rows, records_by_sub = [], {}
    root = scipy_dir()
    for sub in subs:
        if args.summarize:
            run = Run(sub, out_dir / f"{sub}.jsonl", out_dir / f"{sub}.log")
            seconds = None
        else:
            targets = [str(root / t) for t in QUICK[sub]] if args.quick else [str(root / sub)]
            print(f"-- {sub} ...", flush=True)
            run = run_subpackage(
                sub,
                targets,
                backends=backends,
                out_dir=out_dir,
                keyword=args.keyword,
                extra=args.pytest_arg,
                timeout=args.timeout,
                use_nice=not args.no_nice,
            )
            seconds = run.seconds
        records_by_sub[sub] = load(run.results)
        row = summarize(sub, records_by_sub[sub], backends)
        row.seconds = seconds
        rows.append(row)
        if seconds is not None:
            print(f"   {row.instances} instances per backend, {seconds:.0f} s", flush=True)

    print()
    print(format_table(rows, backends))
    text, groups = failure_report(records_by_sub)
    report = out_dir / "failures.md"
    report.write_text(text, encoding="utf-8")
    if groups:
        print(f"\nTop {CANDIDATE} failures among {REFERENCE}-passed instances:")
        for msg, count, example in groups[: args.top]:
            print(f"{count:6d}  {msg[:150]}\n        e.g. {example['nodeid']}")
    print(f"\nfailure report: {report}\nresults and logs: {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
