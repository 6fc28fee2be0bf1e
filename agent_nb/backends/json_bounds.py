"""Default bounds under a grammar: a looping model still closes its JSON.

A grammar lets a small model write only valid JSON, but valid JSON can go on
for ever: ``"_id": "1234567890123…"``, ``"topo1", "topo2", … "topo40"``, a
float whose digits never end. Greedy decoding falls into such loops, and the
reply is then cut off at the token limit with its JSON open. So where a
schema sets no bound, the *grammar* (never the check afterwards) gets one:

* a string: at most `JsonBounds.max_length` characters (``maxLength``);
* an array: at most `JsonBounds.max_items` items (``maxItems``);
* a number: at most `JsonBounds.integer_digits` digits before the point
  (``minimum`` / ``maximum``) and `JsonBounds.fraction_digits` after it
  (``multipleOf``); an integer only the first;
* an object that lists its keys: at most `JsonBounds.extra_properties` keys
  beyond them (``maxProperties``, which llguidance's lenient mode counts over
  the required and the unlisted keys), each with a bounded string, number,
  boolean or null value; an object that lists none (a map): at most
  `JsonBounds.max_items` keys, as an array's items;
* a schema that allows any value (``{}``, or one of annotations only): a
  bounded one, such a scalar or an array or object of them.

Beyond these bounds the schema is never rewritten: its
``additionalProperties`` stay as given (``false`` on every object makes valid
``allOf`` schemas unsatisfiable), and an object that branches (``allOf``,
``anyOf``, ``oneOf``), a ``$ref``, ``dependencies`` or ``if`` join gets no
bound on its keys, since another part may list or require them.

A bound the schema sets itself wins, and so does a larger ``minLength`` /
``minItems``. A schema changes the defaults for all its values with an
``"x-bounds"`` object at its root (``{"max_length": 200}``; ``null`` lifts a
bound), which is an annotation to JSON Schema and is never sent to a server.
A bound that would leave a string's ``pattern`` or ``format`` nothing to
match is not added. The reply is still validated against the schema as
given (`agent_nb._core.schemas.Schema.validate`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import SchemaError

__all__ = [
    "BOUNDS_KEY",
    "DEFAULT_BOUNDS",
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "SUBSCHEMA_ONE",
    "JsonBounds",
    "bounded",
    "bounds_of",
    "without_bounds",
]

#: The root key of a schema that changes its default bounds.
BOUNDS_KEY = "x-bounds"


@dataclasses.dataclass(frozen=True)
class JsonBounds:
    """The bounds a grammar adds where a schema sets none (None: no bound)."""

    #: Characters of a string.
    max_length: int | None = 40
    #: Items of an array.
    max_items: int | None = 4
    #: Digits before the decimal point of a number or an integer.
    integer_digits: int | None = 12
    #: Digits after the decimal point of a number.
    fraction_digits: int | None = 6
    #: Keys of an object beyond the ones it lists in ``properties`` (and those
    #: it requires): what a small model invents after the keys it was asked for.
    extra_properties: int | None = 0


DEFAULT_BOUNDS = JsonBounds()

_FIELDS = tuple(f.name for f in dataclasses.fields(JsonBounds))


def bounds_of(schema: Mapping[str, Any]) -> JsonBounds:
    """The defaults with the schema's own ``"x-bounds"`` applied; a bad one raises
    `SchemaError` saying what is allowed."""
    given = schema.get(BOUNDS_KEY)
    if given is None:
        return DEFAULT_BOUNDS
    allowed = f"an object with any of {list(_FIELDS)}, each a positive integer or null"
    if not isinstance(given, Mapping):
        raise SchemaError(f'output_schema: "{BOUNDS_KEY}" must be {allowed}, got {given!r}')
    for key, value in given.items():
        ok = value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0)
        if key not in _FIELDS or not ok:
            raise SchemaError(
                f'output_schema: "{BOUNDS_KEY}" must be {allowed}, got {key!r}: {value!r}'
            )
    return dataclasses.replace(DEFAULT_BOUNDS, **dict(given))


def without_bounds(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``"x-bounds"`` key (what a server or llguidance sees)."""
    return {k: v for k, v in schema.items() if k != BOUNDS_KEY}


def _types(node: Mapping[str, Any]) -> set[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@functools.lru_cache(maxsize=1024)
def _satisfiable(string_schema: str) -> bool:
    """Whether a lone string schema (JSON text) still matches something."""
    from llguidance import LLMatcher

    grammar = f"%llguidance {{}}\nstart: s\ns: %json {string_schema}\n"
    return not LLMatcher.validate_grammar(grammar, None)


def _bound_string(node: dict[str, Any], limit: int) -> None:
    if "maxLength" in node or "enum" in node or "const" in node:
        return
    limit = max(limit, _int(node.get("minLength")))
    if "pattern" in node or "format" in node:
        alone: dict[str, Any] = {
            k: node[k] for k in ("pattern", "format", "minLength") if k in node
        }
        alone |= {"type": "string", "maxLength": limit, "x-guidance": {"lenient": True}}
        if not _satisfiable(json.dumps(alone, sort_keys=True)):
            return
    node["maxLength"] = limit


def _bound_array(node: dict[str, Any], limit: int) -> None:
    if "maxItems" in node:
        return
    fixed = node.get("prefixItems", node.get("items"))
    at_least = len(fixed) if isinstance(fixed, list) else 0
    node["maxItems"] = max(limit, at_least, _int(node.get("minItems")))


def _bound_number(node: dict[str, Any], bounds: JsonBounds, integer: bool) -> None:
    if "enum" in node or "const" in node:
        return
    if bounds.integer_digits is not None:
        top = 10**bounds.integer_digits - 1
        low, high = node.get("minimum"), node.get("maximum")
        open_above = "maximum" not in node and "exclusiveMaximum" not in node
        if open_above and (not _number(low) or low < top):
            node["maximum"] = top
        open_below = "minimum" not in node and "exclusiveMinimum" not in node
        if open_below and (not _number(high) or high > -top):
            node["minimum"] = -top
    if not integer and bounds.fraction_digits is not None and "multipleOf" not in node:
        node["multipleOf"] = 10.0**-bounds.fraction_digits


def _bound_object(node: dict[str, Any], bounds: JsonBounds) -> None:
    if "maxProperties" in node or node.get("additionalProperties") is False:
        return
    required = node.get("required")
    count = len(set(required)) if isinstance(required, list) else 0
    extras = node.get("additionalProperties")
    if "properties" in node and "patternProperties" not in node and extras in (None, True):
        limit = bounds.extra_properties  # keys it did not ask for
        if limit is None:
            return
        node["additionalProperties"] = _scalar(bounds)
    else:  # a map (or one with typed extra keys): its keys are its items
        limit = bounds.max_items
        if limit is None:
            return
    node["maxProperties"] = max(count + limit, _int(node.get("minProperties")))


def _scalar(bounds: JsonBounds) -> dict[str, Any]:
    """A bounded string, number, boolean or null: an unlisted key's value."""
    number: dict[str, Any] = {"type": "number"}
    _bound_number(number, bounds, integer=False)
    string: dict[str, Any] = {"type": "string"}
    if bounds.max_length is not None:
        string["maxLength"] = bounds.max_length
    return {"anyOf": [string, number, {"type": ["boolean", "null"]}]}


#: Keywords that only annotate: a schema of these alone allows any value.
_ANNOTATIONS = frozenset(
    (
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$id",
        "id",
        "$schema",
    )
)


def _any(bounds: JsonBounds) -> dict[str, Any]:
    """Any value, bounded: a scalar, or an array or object of scalars."""
    scalar = _scalar(bounds)
    array: dict[str, Any] = {"type": "array", "items": scalar}
    if bounds.max_items is not None:
        array["maxItems"] = bounds.max_items
    obj: dict[str, Any] = {"type": "object", "additionalProperties": scalar}
    if bounds.max_items is not None:
        obj["maxProperties"] = bounds.max_items
    return {"anyOf": [*scalar["anyOf"], array, obj]}


#: Keywords whose value is one subschema, a list of them, or a map of them.
#: ``not`` is left alone: a bound inside it would widen what it allows.
SUBSCHEMA_ONE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
#: Branches that hold together with their parent (llguidance intersects them,
#: ``oneOf`` included): one may list or require the keys another holds.
_JOINED = ("allOf", "anyOf", "oneOf")
#: Keywords by which other parts of a schema may ask an object for more keys.
_JOINING = (*_JOINED, "$ref", "dependencies", "dependentRequired", "dependentSchemas", "if")
SUBSCHEMA_MAPS = (
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependencies",
    "dependentSchemas",
)


def _walk(node: Any, visit: Callable[[dict[str, Any], bool], None], joined: bool = False) -> Any:
    """A copy of ``node`` with ``visit`` applied to every subschema (schema keywords
    only, so a property named ``items`` stays a property); ``joined``: the node is
    a branch of an ``allOf`` (or holds one), so other branches constrain it too."""
    if not isinstance(node, Mapping):
        return node
    out = dict(node)
    for key in SUBSCHEMA_ONE:
        if isinstance(out.get(key), Mapping):
            out[key] = _walk(out[key], visit)
    for key in SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_walk(s, visit, key in _JOINED) for s in out[key]]
    for key in SUBSCHEMA_MAPS:
        if isinstance(out.get(key), Mapping):
            out[key] = {name: _walk(s, visit) for name, s in out[key].items()}
    visit(out, joined or any(key in out for key in _JOINING))
    return out


def bounded(schema: Mapping[str, Any], objects: bool = True) -> dict[str, Any]:
    """The schema the grammar is compiled from: ``schema`` with the default bounds
    added where it sets none (see the module docstring), ``"x-bounds"`` removed;
    ``objects=False`` leaves out the bounds on objects' keys."""
    bounds = bounds_of(schema)

    def visit(node: dict[str, Any], joined: bool) -> None:
        kinds = _types(node)
        is_object = "object" in kinds or ("type" not in node and "properties" in node)
        if objects and is_object and not joined:
            _bound_object(node, bounds)
        if set(node) <= _ANNOTATIONS:
            node["anyOf"] = _any(bounds)["anyOf"]  # a schema that allows anything
        if "string" in kinds and bounds.max_length is not None:
            _bound_string(node, bounds.max_length)
        if "array" in kinds and bounds.max_items is not None:
            _bound_array(node, bounds.max_items)
        if "number" in kinds:
            _bound_number(node, bounds, integer=False)
        elif "integer" in kinds:
            _bound_number(node, bounds, integer=True)

    return dict(_walk(without_bounds(schema), visit))
