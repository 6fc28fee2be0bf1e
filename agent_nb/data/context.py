"""The user's own words for a table: column descriptions and value synonyms, not code.

As the Conversational Analytics API's glossary and pandas-ai's semantic
layer: a mapping, from ``--context VAR`` (a dict variable), ``--context
FILE.yaml``, ``DataAgent(context=...)`` or ``df.attrs["context"]``::

    {"TOEFL Score": "English test score",        # a column's description
     "GRE Score": ["graduate record", "GRE"],     # or its synonyms
     "Origin=USA": "American, US"}                # a value's synonyms

The words of a description become words that name the column; a value's
synonyms name that value ("American" filters ``Origin == "USA"``). Several
tables: ``{"cars": {...}, "penguins": {...}}`` (keyed by the ``--data`` name).
Nothing here is evaluated: the mapping is read as text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["describe_columns", "read_context", "table_context", "value_aliases"]


def read_context(source: Any) -> dict[str, Any]:
    """A context mapping from a dict, or from a YAML (or JSON) file's path; a clear error
    for anything else."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        return {str(k): v for k, v in source.items()}
    if isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
        import yaml  # type: ignore[import-untyped]

        with open(source, encoding="utf-8") as f:
            loaded = yaml.safe_load(f)
        if not isinstance(loaded, Mapping):
            raise ValueError(
                f"--context {source}: the file must hold a mapping, got {type(loaded).__name__}"
            )
        return {str(k): v for k, v in loaded.items()}
    raise ValueError(
        "--context takes a dict variable or a YAML file, e.g. "
        "{'TOEFL Score': 'English test score', 'Origin=USA': 'American'}; "
        f"got {type(source).__name__} {str(source)[:60]!r}"
    )


def table_context(context: Mapping[str, Any] | None, name: str) -> dict[str, Any] | None:
    """The part of ``context`` for table ``name`` (the whole when it is not keyed by table)."""
    if not context:
        return None
    inner = context.get(name)
    if isinstance(inner, Mapping):
        return dict(inner)
    if all(isinstance(v, Mapping) for v in context.values()):
        return None  # keyed by other tables
    return dict(context)


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple, set)):
        return ", ".join(map(str, value))
    return str(value) if value is not None else ""


def describe_columns(context: Mapping[str, Any] | None) -> dict[str, str]:
    """column -> its description (words that name it)."""
    if not context:
        return {}
    return {k: _text(v) for k, v in context.items() if "=" not in k and not isinstance(v, Mapping)}


def value_aliases(context: Mapping[str, Any] | None, column: str) -> dict[str, str]:
    """A value's synonyms (lower case) -> the value, for ``column``."""
    if not context:
        return {}
    out: dict[str, str] = {}
    for key, words in context.items():
        col, sep, value = key.partition("=")
        if not sep or col.strip() != column:
            continue
        for alias in _text(words).split(","):
            if alias.strip():
                out[alias.strip().lower()] = value.strip()
    return out
