from collections.abc import Callable
from typing import Any, Final

PROVES_TEMPORARIES: Final[int]

class operator:  # (the C type's name)
    __wrapped__: Callable[[Any, Any], Any]
    def __init__(
        self,
        plain: Callable[[Any, Any], Any],
        on_temporaries: Callable[[Any, Any, int], Any],
        data_name: str,
        min_bytes: int,
    ) -> None: ...
    def __call__(self, self_: Any, other: Any, /) -> Any: ...
