"""The English words the reading code knows by name, kept as data: ``lexicon/vocabulary-*.json``.

Everything else a question's words mean comes from WordNet (`wordnet`). What
is left are the closed classes (determiners, pronouns, prepositions,
auxiliaries, question words), the operations' own words ("total", "before",
"at least"), and the words tables write values with ("yes", "million",
"March"). Each entry of the files says which of those it is and why, and the
code asks for it by name::

    {"order_ends": {"class": "operation",
                    "why": "an order's ends: 'the last to win', 'the next'",
                    "words": ["first", "last", "next", ...]}}

An entry holds ``words`` (a list, in the order a regular expression tries
them) or ``map`` (word to value: "top" to "desc"; or word to its tags, from
which `tagged` selects the lists that share words, so none is written twice).
``tests/data/test_vocabulary.py`` fails on any word list written in the code
instead, and on an entry that is not used or says no class or reason.

The files are split by the stage that reads them (the question's reading, the
planner, the placement of words, the wording of answers); a name is unique
across them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args

__all__ = [
    "CLASSES",
    "alternation",
    "alternation_of",
    "entries",
    "listed",
    "mapping",
    "tagged",
    "words",
]

#: What an entry may be: a closed class, an operation's own words, the words tables
#: write values with, or a list of content words still to be read from WordNet.
Class = Literal["closed", "operation", "format", "content"]
CLASSES: tuple[Class, ...] = get_args(Class)

_FOLDER = Path(__file__).with_name("lexicon")


@functools.cache
def entries() -> dict[str, dict[str, Any]]:
    """Every entry of every vocabulary file, by name."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(_FOLDER.glob("vocabulary-*.json")):
        for name, entry in json.loads(path.read_text(encoding="utf-8")).items():
            if name in out:
                raise ValueError(f"vocabulary entry {name!r} is defined twice ({path.name})")
            out[name] = {**entry, "file": path.name}
    return out


def _entry(name: str) -> dict[str, Any]:
    try:
        return entries()[name]
    except KeyError:
        raise KeyError(f"no vocabulary entry {name!r} in {_FOLDER}/vocabulary-*.json") from None


@functools.cache
def listed(name: str) -> tuple[str, ...]:
    """The entry's words in their order (phrases keep their spaces)."""
    return tuple(_entry(name)["words"])


@functools.cache
def words(name: str) -> frozenset[str]:
    """The entry's words as a set, for membership tests."""
    return frozenset(listed(name))


@functools.cache
def alternation(name: str) -> str:
    """The entry's words as a regular expression's alternation, in order: ``a|b|c``."""
    return alternation_of(listed(name))


def alternation_of(words: Iterable[str]) -> str:
    """``words`` as a regular expression's alternation, in order: ``a|b|c``."""
    return "|".join(re.escape(w).replace("\\ ", " ") for w in words)


@functools.cache
def tagged(name: str, *tags: str, without: str = "") -> tuple[str, ...]:
    """The words of a tagged entry (``map``: word to its tags) that carry each of
    ``tags`` (``"most|order"``: one of them) and none of ``without`` (tags apart by
    spaces), in the entry's order: one table of words and their kinds, each list a
    selection from it."""
    out = []
    for word, have in mapping(name).items():
        kinds, unwanted = set(have), set(without.split())
        if all(set(tag.split("|")) & kinds for tag in tags) and not unwanted & kinds:
            out.append(word)
    return tuple(out)


def mapping(name: str) -> dict[str, Any]:
    """The entry's map, word to value."""
    return dict(_entry(name)["map"])
