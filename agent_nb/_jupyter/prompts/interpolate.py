"""Which braces in a ``%%agent`` cell are notebook variables, and which are text.

People paste code and JSON into cells (``d = {'a': 1}``,
``print(f"Total: {total}")``), so treating every brace as ``str.format``
syntax refuses ordinary questions, or worse, silently rewrites the code the
user asks about. So:

* **Markdown code is never touched**: fenced or indented blocks and
  ``inline code`` go to the model exactly as typed (blocks as markdown-it-py
  finds them, code spans as `agent_nb._core.render` does, so what renders as
  code is what is left alone).
* Elsewhere only clean variable references are interpolation, each naming a
  Python identifier first, with a format spec in Python's own mini-language::

    {name}  {name.attr}  {name[key]}  {name!r}  {name:.2f}  {name.attr[0]!s:>10}

  Any other brace text (``{x: x**2 for x in xs}``, ``{d["a"]}``) stays as typed.
* A reference whose name is not defined is still an error (it is almost
  always a typo), and so is one whose attribute, key or format spec fails.
  ``{{name}}`` gives a literal ``{name}``; other doubled braces are left
  alone, since ``}}`` ends plenty of JSON. ``%%agent --raw`` skips all of this.

`interpolate` also returns the references it filled, so the cell can say in
one line what it substituted: interpolation is never silent.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..._core.fences import block_parser
from ..._core.render import inline_code_spans

__all__ = ["Interpolated", "code_ranges", "interpolate"]

#: Python's format-spec mini-language: [[fill]align][sign][z][#][0][width][,|_][.precision][type]
_SPEC = r"(?:[^{}]?[<>=^])?[-+ ]?z?#?0?\d*[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%]?"
_FIELD = (
    r"(?P<name>[^\W\d]\w*)"  # an identifier
    r"(?:\.[^\W\d]\w*|\[[^\[\]{}'\"]+\])*"  # .attr and [key] parts (str.format keys: no quotes)
    r"(?:![rsa])?"  # a conversion
    r"(?::" + _SPEC + r")?"  # a format spec (no nested fields)
)
_LITERAL = _FIELD.replace("?P<name>", "")
_PATTERN = re.compile(r"\{\{(?P<literal>" + _LITERAL + r")\}\}|\{" + _FIELD + r"\}")
_HINT = "write {{name}} for a literal {name}, or use %%agent --raw to send the cell as typed"


class Interpolated(NamedTuple):
    """The interpolated text and the references filled, as typed (``{total}``)."""

    text: str
    fields: tuple[str, ...]


def code_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) character ranges of ``text`` that Markdown shows as code."""
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    blocks = [
        (starts[t.map[0]], min(starts[t.map[1]], len(text)))
        for t in block_parser().parse(text)
        if t.type in ("fence", "code_block") and t.map is not None
    ]
    ranges: list[tuple[int, int]] = []
    pos = 0
    for start, end in [*blocks, (len(text), len(text))]:
        prose = text[pos:start]
        ranges += [(pos + a, pos + d) for a, _, _, d in inline_code_spans(prose)]
        if end > start:
            ranges.append((start, end))
        pos = end
    return ranges


def _fields(template: str) -> list[re.Match[str]]:
    """The ``{...}`` fields (and ``{{...}}`` literals) outside Markdown code."""
    code = code_ranges(template)
    return [
        m
        for m in _PATTERN.finditer(template)
        if not any(start < m.end() and m.start() < end for start, end in code)
    ]


def interpolate(template: str, namespace: Mapping[str, Any]) -> Interpolated:
    """Fill ``{name...}`` references outside Markdown code from ``namespace``;
    `ValueError` names a bad reference."""
    formatter = string.Formatter()
    fields = _fields(template)
    for match in fields:  # every name is checked before anything is formatted
        name = match["name"]
        if name is not None and name not in namespace:
            raise ValueError(f"unknown variable {name!r} in {match[0]}; define it first or {_HINT}")
    parts: list[str] = []
    filled: list[str] = []
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
        filled.append(match[0])
    parts.append(template[end:])
    return Interpolated("".join(parts), tuple(dict.fromkeys(filled)))
