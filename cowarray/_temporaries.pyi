from collections.abc import Callable
from typing import Any, Final

PROVES_TEMPORARIES: Final[int]

class operator:  # (the C type's name)
    __wrapped__: Callable[..., Any]
    def __init__(
        self,
        plain: Callable[..., Any],
        on_temporaries: Callable[..., Any],
        data_name: str,
        min_bytes: int,
        arity: int = 2,
    ) -> None: ...
    def __call__(self, *operands: Any) -> Any: ...
