"""``%%agent --schema NAME`` and ``--choice "a|b|c"``: replies of a given shape.

``--schema`` names a variable of the notebook, a pydantic ``BaseModel`` class
or a JSON-schema dict, or is a JSON schema itself (``--schema '{"type":
"number"}'``); anything else is a one-line `UsageError` that says so.
``--choice`` lists the strings the reply may be. Both become the turn's
``output_schema`` in `turn_options`, and the cell shows the parsed value
(`agent_nb._core.reply.shown_text`): indented JSON in a fenced block, or the
chosen string as plain text, so no character of it acts as markup. ``-o var``
keeps the `Reply`; ``var.text`` is the chosen string and ``var.parsed`` the
value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError

from ..._core.schemas import is_model_class

__all__ = ["schema_from_namespace"]


def schema_from_namespace(name: str | None, ns: Mapping[str, Any]) -> Any:
    """The ``--schema NAME`` value (None without one)."""
    if name is None:
        return None
    if name.lstrip().startswith("{"):
        try:
            return json.loads(name)
        except ValueError as exc:
            raise UsageError(f"--schema: not a JSON schema ({exc}): {name[:60]!r}") from None
    allowed = "a pydantic BaseModel class or a JSON-schema dict"
    if name not in ns:
        raise UsageError(f"--schema: no variable {name!r}; define {allowed} first")
    value = ns[name]
    if not (is_model_class(value) or isinstance(value, Mapping)):
        raise UsageError(f"--schema {name}: expected {allowed}, got {type(value).__name__}")
    return value
