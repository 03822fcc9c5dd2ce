"""Soak the random semantics model of tests/core/test_state_machine.py.

Runs N random sequences of the model (``SemanticsModel``: derive, write,
delete, NumPy exports written through, 0-d arrays; every step checked
against eagerly copied NumPy models, docs/design.md rules 1-4), sequence i
from seed ``BASE + i`` (``--seed-base``, default 0), and prints how many ran
and how many diverged, grouped by what went wrong, with seeds to replay::

    python tools/semantics_soak.py 100000            # the long soak
    python tools/semantics_soak.py 2000 --jobs 1     # a quick one
    python tools/semantics_soak.py --show 1234       # one sequence as a script

The sequences run in worker processes (``--jobs``, default: one per CPU),
``--chunk`` sequences per process, so a sequence that kills its interpreter
(memory corruption) is counted as a crash and the run goes on with the next
seed. Exceptions nobody could catch (``__del__``, weakref callbacks) during a
sequence count as divergences too; ``ViewWriteWarning`` is ignored, as in the
suite. ``--report FILE`` writes every divergence as a JSON line. The exit
status is 1 when any sequence diverged.
"""

from __future__ import annotations

import argparse
import collections
import gc
import importlib.util
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODEL_FILE = ROOT / "tests" / "core" / "test_state_machine.py"


def _load_model() -> ModuleType:
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("_semantics_model", MODEL_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    import cowarray

    warnings.simplefilter("ignore", cowarray.ViewWriteWarning)
    return module


# -- one sequence ------------------------------------------------------------


def _one(model: ModuleType, seed: int, steps: int, unraisable: list[str]) -> dict[str, Any] | None:
    """Run one sequence; None if it kept to the model, else what went wrong."""
    del unraisable[:]
    try:
        model.run_sequence(seed, steps)
    except Exception as error:  # a divergence: a failed check or a raising step
        lines = str(error).splitlines() or [""]
        failed = "check" if isinstance(error, model.Divergence) else "step"
        return {
            "seed": seed,
            "kind": f"{type(error).__name__} ({failed})",
            "step": _last_step(error),
            "message": lines[0][:300],
        }
    if unraisable:
        return {
            "seed": seed,
            "kind": "unraisable",
            "step": "",
            "message": unraisable[0][:300],
        }
    return None


def _last_step(error: BaseException) -> str:
    # the script's last line is the step that failed, or was just checked
    notes = getattr(error, "__notes__", [])
    script = notes[-1].splitlines() if notes else []
    return script[-1] if len(script) > 4 else ""


def _worker(start: int, stop: int, steps: int) -> None:
    model = _load_model()
    # What the imports made is never garbage: keep the model's gc.collect()
    # from walking it (a full collection took 30-50 ms, most of the run).
    gc.freeze()
    unraisable: list[str] = []

    def hook(info: Any) -> None:
        unraisable.append(f"{info.exc_type.__name__}: {info.exc_value} in {info.object!r}")

    sys.unraisablehook = hook
    out = sys.stdout
    for seed in range(start, stop):
        out.write(f"start {seed}\n")
        out.flush()
        found = _one(model, seed, steps, unraisable)
        out.write(f"done {seed}\n" if found is None else f"diverged {json.dumps(found)}\n")
        out.flush()


def _show(seed: int, steps: int) -> int:
    model = _load_model()
    try:
        sequence = model.run_sequence(seed, steps)
    except Exception as error:
        traceback.print_exception(error)
        return 1
    print(f"sequence {seed} kept to the model:\n{sequence.script()}")
    return 0


# -- many sequences ----------------------------------------------------------


def _run_chunk(start: int, stop: int, steps: int, results: queue.Queue[Any]) -> None:
    """Run seeds start..stop-1 in worker processes, restarting after a crash."""
    while start < stop:
        command = [sys.executable, __file__, "--worker", str(start), str(stop)]
        command += ["--steps", str(steps)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert process.stdout is not None
        running: int | None = None
        for line in process.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            if word == "start":
                running = int(rest)
            elif word == "done":
                results.put(("done", int(rest)))
                running, start = None, int(rest) + 1
            elif word == "diverged":
                found = json.loads(rest)
                results.put(("diverged", found))
                running, start = None, found["seed"] + 1
        code = process.wait()
        if running is not None:  # the interpreter died inside this sequence
            results.put(
                (
                    "diverged",
                    {
                        "seed": running,
                        "kind": "crash",
                        "step": "",
                        "message": f"worker exited with status {code}",
                    },
                )
            )
            start = running + 1
        elif start < stop:
            raise RuntimeError(f"a worker for seeds {start}..{stop - 1} exited with {code}")


def _normalized(found: dict[str, Any]) -> str:
    # group divergences by what went wrong, not by names and values
    text = f"{found['kind']}: {found['message']}"
    text = re.sub(r"\b[aetc]\d+\b", "·", text)
    text = re.sub(r"\barray\(.*", "array(…)", text)
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", text)[:160]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=2000, help="sequences to run")
    parser.add_argument("--seed-base", type=int, default=0, help="seed of the first sequence")
    parser.add_argument("--steps", type=int, default=25, help="steps per sequence")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=1000, help="sequences per worker process")
    parser.add_argument("--report", type=Path, help="write each divergence as a JSON line")
    parser.add_argument("--show", type=int, metavar="SEED", help="run one sequence, print it")
    parser.add_argument("--worker", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker[0], args.worker[1], args.steps)
        return 0
    if args.show is not None:
        return _show(args.show, args.steps)

    first, stop = args.seed_base, args.seed_base + args.count
    chunks: queue.Queue[tuple[int, int]] = queue.Queue()
    for start in range(first, stop, args.chunk):
        chunks.put((start, min(start + args.chunk, stop)))
    results: queue.Queue[Any] = queue.Queue()
    errors: list[BaseException] = []

    def run_chunks() -> None:
        try:
            while True:
                try:
                    start, end = chunks.get_nowait()
                except queue.Empty:
                    return
                _run_chunk(start, end, args.steps, results)
        except BaseException as error:
            errors.append(error)

    began = time.perf_counter()
    threads = [threading.Thread(target=run_chunks) for _ in range(max(1, args.jobs))]
    for thread in threads:
        thread.start()
    ran, diverged = 0, []
    report = args.report.open("w") if args.report else None
    last_print = began
    while any(thread.is_alive() for thread in threads) or not results.empty():
        try:
            what, item = results.get(timeout=0.5)
        except queue.Empty:
            continue
        ran += 1
        if what == "diverged":
            diverged.append(item)
            if report:
                report.write(json.dumps(item) + "\n")
                report.flush()
        now = time.perf_counter()
        if now - last_print > 60:
            last_print = now
            print(
                f"  {ran}/{args.count} ran, {len(diverged)} diverged, {now - began:.0f} s",
                flush=True,
            )
    for thread in threads:
        thread.join()
    if report:
        report.close()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]

    print(
        f"ran {ran} sequences (seeds {first}..{stop - 1}, {args.steps} steps each, "
        f"{args.jobs} jobs) in {elapsed:.1f} s ({1000 * elapsed / max(ran, 1):.1f} ms each)"
    )
    print(f"diverged: {len(diverged)} ({100 * len(diverged) / max(ran, 1):.2f} %)")
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for found in sorted(diverged, key=lambda found: found["seed"]):
        groups[_normalized(found)].append(found)
    for key, members in sorted(groups.items(), key=lambda item: -len(item[1])):
        seeds = ", ".join(str(found["seed"]) for found in members[:8])
        print(f"  {len(members):6d}  {key}")
        print(f"          e.g. seeds {seeds}; last step: {members[0]['step']}")
    if diverged:
        seed = min(found["seed"] for found in diverged)
        print(f"replay one: python tools/semantics_soak.py --show {seed} --steps {args.steps}")
    return 1 if diverged or ran != args.count else 0


if __name__ == "__main__":
    sys.exit(main())
