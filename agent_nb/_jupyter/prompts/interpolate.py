"""Which braces in a ``%%agent`` cell are notebook variables, and which are text.

People paste code and JSON into cells (``d = {'a': 1}``, ``{"k": [1, 2]}``),
so treating every brace as ``str.format`` syntax refuses ordinary questions.
Only these forms are interpolation, each naming a Python identifier first:

    {name}  {name.attr}  {name[key]}  {name!r}  {name:.2f}  {name.attr[0]!s:>10}

Any other brace text stays exactly as typed. A field of that form whose name
is not defined is still an error (it is almost always a typo), and so is one
whose attribute, key or format spec fails. ``{{name}}`` gives a literal
``{name}``; other doubled braces are left alone, since ``}}`` ends plenty of
JSON. ``%%agent --raw`` skips all of this for the cell.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

__all__ = ["interpolate"]

_FIELD = (
    r"(?P<name>[^\W\d]\w*)"  # an identifier
    r"(?:\.[^\W\d]\w*|\[[^\[\]{}]+\])*"  # .attr and [key] parts
    r"(?:![rsa])?"  # a conversion
    r"(?::[^{}]*)?"  # a format spec (no nested fields)
)
_LITERAL = _FIELD.replace("?P<name>", "")
_PATTERN = re.compile(r"\{\{(?P<literal>" + _LITERAL + r")\}\}|\{" + _FIELD + r"\}")
_HINT = "write {{name}} for a literal {name}, or use %%agent --raw to send the cell as typed"


def interpolate(template: str, namespace: Mapping[str, Any]) -> str:
    """Fill ``{name...}`` fields from ``namespace``; `ValueError` names a bad field."""
    formatter = string.Formatter()
    fields = list(_PATTERN.finditer(template))
    for match in fields:  # every name is checked before anything is formatted
        name = match["name"]
        if name is not None and name not in namespace:
            raise ValueError(f"unknown variable {name!r} in {match[0]}; define it first or {_HINT}")
    parts: list[str] = []
    end = 0
    for match in fields:
        parts.append(template[end : match.start()])
        end = match.end()
        if match["literal"] is not None:
            parts.append("{" + match["literal"] + "}")
            continue
        try:
            parts.append(formatter.vformat(match[0], (), dict(namespace)))
        except Exception as exc:  # a missing attribute or key, a bad format spec...
            raise ValueError(
                f"cannot interpolate {match[0]}: {type(exc).__name__}: {exc}; {_HINT}"
            ) from None
    parts.append(template[end:])
    return "".join(parts)
