"""Each test here names buffers from ``A``, as a fresh interpreter would."""

from __future__ import annotations

import pytest

from cowarray._observe import _reset_buffer_names


@pytest.fixture(autouse=True)
def _buffer_names_start_at_a() -> None:
    _reset_buffer_names()
