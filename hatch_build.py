"""Build hook: compile cowarray's optional C helper where a compiler exists.

``cowarray/_temporaries.c`` tells the Array's operators which operands only
the interpreter's stack holds (CPython 3.14+), so that ``c * 2.0 + 1.0``
writes into the block of ``c * 2.0`` as NumPy does (docs/design.md, rule 12).
The package works without it: where the compile fails (no compiler, no
Python headers) the wheel is pure Python and every operator allocates its
result, as before. ``COWARRAY_PURE_PYTHON=1`` at run time ignores a built
helper.

setuptools compiles it (``build_ext`` with ``optional=True``: a failed compile
is a warning). ``pip install -e .`` builds it in place, next to the source;
a wheel carries it and is tagged for the interpreter that built it.

Run directly, ``python hatch_build.py`` builds it in place for the running
interpreter (tools/python_matrix.sh does, for the chroot's CPythons, whose
tests import the package from the source tree).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
MODULE = "cowarray._temporaries"
SOURCE = "cowarray/_temporaries.c"


def compile_helper(inplace: bool, build_dir: str | None = None) -> Path | None:
    """Compile the helper; its path, or None where it could not be built."""
    try:
        from setuptools import Distribution, Extension
    except ImportError:
        print("cowarray: setuptools is missing; the C helper is not built", file=sys.stderr)
        return None
    extension = Extension(MODULE, [SOURCE], optional=True)
    distribution = Distribution({"name": "cowarray", "ext_modules": [extension]})
    command: Any = distribution.get_command_obj("build_ext")
    command.inplace = inplace
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(ROOT):
        command.build_temp = os.path.join(scratch, "temp")
        command.build_lib = build_dir or os.path.join(scratch, "lib")
        try:
            command.ensure_finalized()
            command.run()
        except Exception as error:  # a missing compiler, even before optional= applies
            print(f"cowarray: the C helper is not built ({error})", file=sys.stderr)
            return None
        built = Path(command.get_ext_fullpath(MODULE)).resolve()
        return built if built.exists() else None


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run directly, without hatchling
    BuildHookInterface = object  # type: ignore[misc,assignment]


class CompiledHelperHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compile the helper into the wheel, or in place for an editable install."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            compile_helper(inplace=True)  # the editable wheel points at the source tree
            return
        self._build_dir = tempfile.mkdtemp(prefix="cowarray-helper-")
        built = compile_helper(inplace=False, build_dir=self._build_dir)
        if built is None:
            return
        build_data["force_include"][str(built)] = f"cowarray/{built.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        import shutil

        if hasattr(self, "_build_dir"):
            shutil.rmtree(self._build_dir, ignore_errors=True)


if __name__ == "__main__":
    path = compile_helper(inplace=True)
    print(f"built {path}" if path else "not built")
    sys.exit(0)
