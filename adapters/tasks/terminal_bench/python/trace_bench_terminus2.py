"""Terminus-2 with the prompt template trace-bench optimizes.

Harbor imports this module (`--agent-import-path trace_bench_terminus2:TraceBenchTerminus2`,
with this folder on PYTHONPATH). The agent takes two extra keyword arguments, which Harbor's own
Terminus-2 does not know: `prompt_template_path` (a file holding the template; preferred) and
`prompt_template` (the template itself). Everything else is Harbor's Terminus-2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

try:  # Harbor is needed only when Harbor itself imports this module.
    from harbor.agents.terminus_2.terminus_2 import Terminus2
except Exception as import_error:  # pragma: no cover - exercised only without Harbor
    _IMPORT_ERROR: Optional[Exception] = import_error
    Terminus2 = None  # type: ignore[assignment, misc]
else:
    _IMPORT_ERROR = None


def _template_from(path: Optional[str], text: Optional[str]) -> Optional[str]:
    if path:
        return Path(path).read_text(encoding="utf-8")
    return None if text is None else str(text)


if Terminus2 is None:

    class TraceBenchTerminus2:  # type: ignore[no-redef]
        """Stands in when Harbor is not installed: constructing it says so."""

        def __init__(self, *_args: Any, **_kwargs: Any) -> None:
            raise ImportError(f"TraceBenchTerminus2 needs Harbor (pip install 'harbor[daytona]>=0.6.0'); importing it failed: {_IMPORT_ERROR}")

else:

    class TraceBenchTerminus2(Terminus2):  # type: ignore[no-redef, valid-type, misc]
        """Terminus-2 whose prompt template is trace-bench's candidate."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            template = _template_from(kwargs.pop("prompt_template_path", None), kwargs.pop("prompt_template", None))
            super().__init__(*args, **kwargs)
            if template is not None:
                # Terminus-2 formats this with {instruction} and {terminal_state} at every turn.
                self._prompt_template = template
