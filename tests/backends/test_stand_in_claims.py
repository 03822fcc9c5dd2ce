"""The stand-in's numeric imitations each have a check against real CuPy.

tools/check_stand_in_claims.py runs each claim on real CuPy and on the
stand-in (on a GPU, from benchmarks/gpu_check.sh). Here, without a GPU, only
that every claim runs on the stand-in and that the stand-in's source and the
script name the same claims.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import types
from pathlib import Path

import numpy as np
import pytest
from _stand_in import fake_cupy

ROOT = Path(__file__).parents[2]
STAND_IN = Path(__file__).with_name("_stand_in.py")


def _script() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_stand_in_claims", ROOT / "tools" / "check_stand_in_claims.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


@pytest.mark.parametrize("name", sorted(SCRIPT.CLAIMS))
def test_every_claim_runs_on_the_stand_in(name: str) -> None:
    _, check = SCRIPT.CLAIMS[name]
    with np.errstate(all="ignore"):
        result = SCRIPT.run(check, fake_cupy())
    assert not (isinstance(result, str) and result.startswith("error")), result


def test_the_stand_in_marks_each_imitation_with_a_claim_that_exists() -> None:
    marks = re.findall(r"# Unverified; tools/check_stand_in_claims\.py: (.*)", STAND_IN.read_text())
    named = [name.strip() for line in marks for name in line.split(",")]
    claims = set(SCRIPT.CLAIMS)
    assert [name for name in named if not fnmatch.filter(claims, name)] == []
    assert [c for c in sorted(claims) if not any(fnmatch.fnmatch(c, n) for n in named)] == []
