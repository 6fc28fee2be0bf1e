"""A schema no grammar compiles from, told as the user can act on it.

llguidance reports a failure in terms of the grammar it was handed (line and
column of a ``%json`` island, the grammar echoed back). The user wrote a
schema, not that grammar, so `compile_error` says, in a few lines:

* which argument it was (``output_schema``, a tool's parameters);
* where in *that* schema, as a JSON pointer (``#/properties/when/$ref``),
  found by compiling the schema with one part at a time replaced by ``{}``
  (any value) and going down into the part whose removal makes it compile;
* llguidance's own reason, its first line only;
* what to do about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..errors import SchemaError
from .json_bounds import SUBSCHEMA_LISTS as _LISTS
from .json_bounds import SUBSCHEMA_MAPS as _MAPS
from .json_bounds import SUBSCHEMA_ONE

__all__ = ["compile_error", "llguidance_reason", "locate"]

_PREFIX = re.compile(r"^(?:at \d+\(\d+\): )?(?:failed to compile JSON schema: )?")
_ECHO = re.compile(r"^\s*\d+ \|")
#: Where subschemas sit: `json_bounds`' keywords, ``not`` too (a part to blame).
_ONE = (*SUBSCHEMA_ONE, "not")


def llguidance_reason(message: str) -> str:
    """llguidance's message cut to its reason: no position, no echoed grammar."""
    kept = []
    for line in message.strip().split("\n"):
        if _ECHO.match(line):  # the grammar echoed back: the user never wrote it
            break
        kept.append(line.strip())
    first = _PREFIX.sub("", " ".join(kept)).strip()
    first = re.sub(r"\s{2,}", " ", first)
    return first[:240] + ("..." if len(first) > 240 else "")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _children(node: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path below ``node``, subschema) for each direct subschema of ``node``."""
    for key in _ONE:
        if isinstance(node.get(key), Mapping):
            yield (key,), node[key]
    for key in _LISTS:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield (key, str(i)), sub
    for key in _MAPS:
        if isinstance(node.get(key), Mapping):
            for name, sub in node[key].items():
                if isinstance(sub, Mapping):
                    yield (key, name), sub


def _replaced(root: Any, path: tuple[str, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(root, list):
        out_list = list(root)
        out_list[int(head)] = _replaced(root[int(head)], rest, value)
        return out_list
    out = dict(root)
    out[head] = _replaced(root[head], rest, value)
    return out


def _at(root: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        root = root[int(part)] if isinstance(root, list) else root[part]
    return root


#: At most this many compiles to find the place (each one of a whole schema).
MAX_PROBES = 200


def locate(schema: Mapping[str, Any], compiles: Callable[[Any], bool]) -> str:
    """A JSON pointer to the smallest part of ``schema`` whose removal makes
    ``compiles`` true: the subschema to blame, or one keyword of it."""
    path: tuple[str, ...] = ()
    probes = 0
    while probes < MAX_PROBES:
        node = _at(schema, path)
        if not isinstance(node, Mapping):
            break
        for sub_path, _ in _children(node):
            probes += 1
            if compiles(_replaced(schema, path + sub_path, {})):
                path += sub_path
                break
        else:  # no one subschema is to blame: one of this node's own keywords?
            for key in node:
                probes += 1
                trimmed = {k: v for k, v in node.items() if k != key}
                if compiles(_replaced(schema, path, trimmed)):
                    path += (key,)
                    break
            break
    return "#" + "".join("/" + _escape(p) for p in path)


def _advice(reason: str) -> str:
    if "Resource" in reason or "retriev" in reason or "Pointer" in reason:
        return (
            "A $ref must point inside the schema: put the referenced schema under "
            '"$defs" and refer to it as "#/$defs/NAME" (agent_nb never fetches one).'
        )
    if "nsatisfiable" in reason:
        return "No value can match that part: fix the schema there."
    if "oneOf" in reason or "Unimplemented" in reason or "Unknown format" in reason:
        return (
            'The schema\'s "x-guidance" sets "lenient": false; drop it to opt in to '
            "compiling this part loosely and checking the reply against it afterwards."
        )
    if "regex" in reason.lower() or "look-around" in reason:
        return (
            "The grammar cannot hold this pattern: write it without look-around or "
            "back-references, or drop it."
        )
    return "Fix or remove that part of the schema (see docs/structured-output.md)."


def compile_error(
    what: str, schema: Mapping[str, Any], message: str, compiles: Callable[[Any], bool]
) -> SchemaError:
    """The `SchemaError` for ``schema`` (the user's, as given) that did not compile
    with llguidance's ``message``; ``compiles`` tries a variant of it."""
    reason = llguidance_reason(message)
    try:
        where = locate(schema, compiles)
    except Exception:  # a locator failure must not hide the real error
        where = "#"
    place = "" if where == "#" else f" at {where}"
    return SchemaError(
        f"{what} cannot be compiled into a grammar{place}: {reason}\n{_advice(reason)}"
    )
