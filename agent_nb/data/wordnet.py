"""What English words mean, from WordNet 3.1 as shipped in ``lexicon/wordnet.bin``.

The data agent needs to know that "Japanese" is about Japan, that "the
tallest" asks for the highest height, that "sugar-free" means no sugar and
that a boy is a male. None of that is typed in here: it is read off WordNet's
relations, compiled by `agent_nb.data.lexicon_build` (which alone needs NLTK).

Decisions:

* **Loaded once, lazily** (`wordnet_graph`): the first call reads and
  decompresses the file (about 50 ms of CPU) and keeps it for the process;
  ``import agent_nb`` never touches it.
* **Words in, words out.** Arguments are matched in lower case, with ``_`` as a
  space; answers are WordNet lemmas in lower case with spaces ("gross domestic
  product"), ordered by WordNet's sense order (most frequent sense first), with
  no repeats.
* **Inflections through WordNet's morphy**: its exception lists first (women ->
  woman, mice -> mouse, better -> good), then its detachment rules (the
  regular suffixes of plurals, past tenses and comparatives: tallest -> tall).
* **bases**: what a word is built on: its lemma, the pertainym of an
  adjective (Japanese -> japan, European -> europe), its derivations, a
  synonym that is its stem (southwestern -> southwest), and "-free"/"-less"
  compounds (sugar-free -> sugar) marked ``via="without"``: the word means
  none of it (sugar = 0).
* **attributes**: the noun an adjective measures and the adjective's pole on
  it. WordNet's attribute relation gives the noun (tall -> stature, height);
  an adjective without one gives its derived noun and that noun's hypernym
  (expensive -> expensiveness -> monetary value, price, cost). The pole: of
  the adjective and its antonym, the one nearer the noun (a derivation link to
  it, then a derivation landing in a synset that shares one of its words, then
  a shared stem) is +1, the other -1; a tie is 0, said, never guessed.
  Satellites (huge) take their head's (large) attribute and pole.
* **hypernyms** stop at a small depth (2 by default): far up, the words
  ("entity", "organism") fit anything and would place words wrongly.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from typing import Literal

from . import vocabulary
from .wordnet_graph import (
    ADJ,
    ADV,
    ANTONYM,
    ATTRIBUTE,
    DERIVATION,
    HYPERNYM,
    NOUN,
    PERTAINYM,
    SAT,
    SIMILAR,
    VERB,
    Graph,
    graph,
)

__all__ = [
    "Attribute",
    "Base",
    "antonyms",
    "attributes",
    "bases",
    "forms",
    "hypernyms",
    "is_a_name",
    "lemmas",
    "measured_by",
    "parts_of_speech",
    "pole",
    "pole_on",
    "synonyms",
]

# the suffixes of a compound that means "none of": sugar-free, sugarless
_WITHOUT = vocabulary.listed("privative_suffixes")
# the suffixes of an adjective's superlative and comparative: broadest, taller
_COMPARED = vocabulary.listed("comparison_suffixes")


@dataclasses.dataclass(frozen=True)
class Base:
    """A word another word is built on, and how: ``via`` says which relation."""

    word: str
    via: Literal["inflection", "pertainym", "derivation", "stem", "without"]


@dataclasses.dataclass(frozen=True)
class Attribute:
    """A noun an adjective measures, and the adjective's pole: +1 more, -1 less, 0 unknown."""

    noun: str
    direction: Literal[-1, 0, 1]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _key(word: str) -> str:
    if not isinstance(word, str):
        raise TypeError(f"a word must be a str, not {type(word).__name__}")
    return " ".join(word.strip().lower().replace("_", " ").split())


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def lemmas(word: str) -> tuple[str, ...]:
    """The word's dictionary forms in any part of speech: "women" -> ("woman",)."""
    wn, w = graph(), _key(word)
    return tuple(_unique(f for pos in (NOUN, VERB, ADJ, ADV) for f in wn.morphy(w, pos)))


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def bases(word: str) -> tuple[Base, ...]:
    """The words ``word`` is built on; see the module docstring for the relations used."""
    wn, w = graph(), _key(word)
    found: list[Base] = [Base(f, "inflection") for f in lemmas(w) if f != w]
    for form in [w, *(b.word for b in found)]:
        for sense in wn.senses(form):
            found += [Base(wn.lemma(t), "pertainym") for t in wn.related(sense, PERTAINYM)]
        for sense in wn.senses(form):
            found += [Base(wn.lemma(t), "derivation") for t in wn.related(sense, DERIVATION)]
        for s in wn.synsets(form):
            found += [
                Base(x, "stem")
                for x in wn.words_of(s)
                if len(x) >= 3 and form.startswith(x) and x != form
            ]
    for suffix in _WITHOUT:
        rest = w[: -len(suffix)].rstrip("-")
        if w.endswith(suffix) and len(rest) >= 3:
            found += [Base(n, "without") for n in wn.morphy(rest, NOUN)[:1]]
            break
    seen: dict[str, Base] = {}
    for b in found:
        if b.word != w:
            seen.setdefault(b.word, b)
    return tuple(seen.values())


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def synonyms(word: str) -> tuple[str, ...]:
    """The other words of the word's synsets (of its lemmas when it is inflected)."""
    wn, w = graph(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    out = [x for f in forms for s in wn.synsets(f) for x in wn.words_of(s)]
    return tuple(x for x in _unique(out) if x not in forms)


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def is_a_name(word: str) -> bool:
    """Whether the noun is only people's names: each of its (first two) noun senses
    has a full name among its words ("maya lin", "sir thomas more", "max born"), where
    a kind of person has a sense of its own ("member": a part of a body, beside "fellow
    member")."""
    wn, w = graph(), _key(word)
    nouns = wn.synsets(w, NOUN)[:2]
    return bool(nouns) and all(any(x.endswith(f" {w}") for x in wn.words_of(s)) for s in nouns)


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def hypernyms(word: str, depth: int = 2, *, senses: int | None = None) -> tuple[str, ...]:
    """The words of the more general synsets above the word's, up to ``depth`` steps;
    ``senses`` keeps only the word's most frequent senses (1: "point" is no unit)."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive int, not {depth!r}")
    if senses is not None and (not isinstance(senses, int) or senses < 1):
        raise ValueError(f"senses must be None or a positive int, not {senses!r}")
    wn, w = graph(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    out: list[str] = []
    for f in forms:
        for s in wn.synsets(f)[:senses]:
            level = [s]
            for _ in range(depth):
                level = [h for x in level for h in wn.linked(x, HYPERNYM)]
                out += [x for h in level for x in wn.words_of(h)]
    return tuple(x for x in _unique(out) if x not in forms)


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def antonyms(word: str) -> tuple[str, ...]:
    """Direct antonyms first (tall -> short), then those of a satellite's head (huge -> small)."""
    wn, w = graph(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    direct: list[str] = []
    indirect: list[str] = []
    for f in forms:
        for sense in wn.senses(f):
            direct += [wn.lemma(t) for t in wn.related(sense, ANTONYM)]
            synset = wn.owner(sense)
            if wn.pos[synset] == SAT:
                for head in wn.linked(synset, SIMILAR):
                    for k in range(wn.lemmas.offsets[head], wn.lemmas.offsets[head + 1]):
                        indirect += [wn.lemma(t) for t in wn.related(k, ANTONYM)]
    return tuple(x for x in _unique(direct + indirect) if x not in forms)


def _nearness(wn: Graph, sense: int, noun: int) -> int:
    """How close an adjective's sense is to a noun: 3 a derivation link, 2 a derivation
    into a synset that shares one of its words (tall -> tallness ~ height), 1 a stem,
    -1 the noun with "-less" (fearless)."""
    nouns = range(wn.lemmas.offsets[noun], wn.lemmas.offsets[noun + 1])
    derived = wn.related(sense, DERIVATION)
    if any(t in nouns for t in derived) or any(sense in wn.related(k, DERIVATION) for k in nouns):
        return 3
    words = set(wn.words_of(noun))
    if any(words & set(wn.words_of(s)) for s in {wn.owner(t) for t in derived}):
        return 2
    adjective = wn.lemma(sense)
    if _without(adjective, words):
        return -1  # fearless: the noun with none of it, the far end
    return 1 if any(_stem(adjective, n) for n in words) else 0


def _without(word: str, nouns: Iterable[str]) -> bool:
    """Whether ``word`` is one of ``nouns`` plus "-less"/"-free" (fearless, sugar-free)."""
    return any(word == n + s for n in nouns for s in _WITHOUT)


def _cluster(wn: Graph, synset: int, noun: int) -> float:
    """What an adjective's satellites say: one tied to the noun by a derivation or a stem
    (old: aged ~ age; expensive: costly ~ cost) leans to +, one that is the noun plus
    "-less"/"-free" (weightless) leans to -."""
    words = wn.words_of(noun)
    nouns = range(wn.lemmas.offsets[noun], wn.lemmas.offsets[noun + 1])
    lean = 0.0
    for satellite in wn.linked(synset, SIMILAR):
        for k in range(wn.lemmas.offsets[satellite], wn.lemmas.offsets[satellite + 1]):
            x = wn.lemma(k)
            if _without(x, words):
                return -0.5
            if any(_stem(x, n) for n in words) or any(
                t in nouns for t in wn.related(k, DERIVATION)
            ):
                lean = 0.5
    return lean


def _skeleton(word: str) -> str:
    return word[0] + "".join(ch for ch in word[1:] if ch.isalpha() and ch not in "aeiouy")


def _stem(a: str, b: str) -> bool:
    """Two words that share a stem: a common start of most of the shorter (wide, width),
    or the same consonants from the same first letter (long, length; deep, depth)."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    if n >= 3 and n * 4 >= min(len(a), len(b)) * 3:
        return True
    short, long_ = sorted((_skeleton(a), _skeleton(b)), key=len)
    return len(short) >= 3 and long_.startswith(short)


def _score(wn: Graph, synset: int, noun: int) -> float:
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    return max(_nearness(wn, k, noun) for k in lemmas) + _cluster(wn, synset, noun)


def _pole(wn: Graph, synset: int, noun: int) -> Literal[-1, 0, 1]:
    """+1 when the adjective is nearer the noun than its antonyms, -1 when farther, else 0."""
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    opposite = {wn.owner(t) for k in lemmas for t in wn.related(k, ANTONYM)}
    mine = _score(wn, synset, noun)
    if not opposite:
        return 1 if mine >= 2 else 0
    theirs = max(_score(wn, o, noun) for o in opposite)
    return 1 if mine > theirs else -1 if theirs > mine else 0


def _measured(wn: Graph, synset: int) -> list[tuple[int, int]]:
    """(noun synset, pole) for a head adjective synset: its attribute relation, else the
    nouns derived from it and their hypernyms (expensive -> expensiveness -> price). Each
    noun's pole is weighed on its own: that "inexpensiveness" is a kind of price says
    nothing about which end of price "cheap" is."""
    nouns = wn.linked(synset, ATTRIBUTE)
    if nouns:
        return [(n, _pole(wn, synset, n)) for n in nouns]
    out: list[tuple[int, int]] = []
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    derived = _unique_ints(wn.owner(t) for k in lemmas for t in wn.related(k, DERIVATION))
    for d in derived:
        if wn.pos[d] != NOUN:
            continue
        out += [(n, _pole(wn, synset, n)) for n in [d, *wn.linked(d, HYPERNYM)]]
    return out


def _unique_ints(items: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(items))


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def attributes(adjective: str) -> tuple[Attribute, ...]:
    """The nouns an adjective measures, with its pole on each: tall -> height +1."""
    wn, w = graph(), _key(adjective)
    found: list[tuple[int, int]] = []
    for form in wn.morphy(w, ADJ):
        for sense in wn.senses(form, ADJ):
            synset = wn.owner(sense)
            heads = [synset]
            if wn.pos[synset] == SAT:  # huge: the head's (large) attribute and pole
                heads = wn.linked(synset, SIMILAR)[:1]
            for head in heads:
                measured = _measured(wn, head)
                if not wn.linked(head, ATTRIBUTE):
                    # cheap: also what its antonym (expensive) measures, the other way
                    lemmas = range(wn.lemmas.offsets[head], wn.lemmas.offsets[head + 1])
                    for o in _unique_ints(
                        wn.owner(t) for k in lemmas for t in wn.related(k, ANTONYM)
                    ):
                        measured += [(n, -p) for n, p in _measured(wn, o)]
                found += measured
    seen: dict[str, Attribute] = {}
    for noun, pole in found:
        for x in wn.words_of(noun):
            seen.setdefault(x, Attribute(x, pole))  # type: ignore[arg-type]
    return tuple(seen.values())


_LETTER = {NOUN: "n", VERB: "v", ADJ: "a", ADV: "r"}


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def forms(word: str) -> tuple[tuple[str, str], ...]:
    """(lemma, part of speech) for each dictionary form of ``word``, the word itself first
    where it is one: "scored" -> (score, v); "women" -> (woman, n); "tallest" -> (tall, a).
    Parts of speech as letters: n, v, a (satellites included), r."""
    wn, w = graph(), _key(word)
    found = [(f, _LETTER[pos]) for pos in (NOUN, VERB, ADJ, ADV) for f in wn.morphy(w, pos)]
    found.sort(key=lambda x: x[0] != w)  # the word's own parts of speech first
    return tuple(dict.fromkeys(found))


def names_one_thing(word: str) -> bool:
    """Whether ``word`` is only a noun, of one or two senses ("UK", "Holland", "USA": a
    country and its army): a name whose synonyms ("United Kingdom", "Netherlands") name
    what it names, where a common word's ("first", "place", "total") range too wide."""
    wn, w = graph(), _key(word)
    return parts_of_speech(word) == {"n"} and 0 < len(wn.synsets(w)) <= 2


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech of ``word`` and of the lemmas it is a form of (empty: WordNet
    does not know it, as a name)."""
    return frozenset(p for _, p in forms(word))


def pole(word: str, nouns: Iterable[str] = ()) -> int:
    """+1 for a comparative or superlative at the high end of its attribute ("broadest",
    "taller"), -1 at the low end ("youngest", "cheaper"), 0 for any other word or one
    whose pole WordNet does not settle. ``nouns``: the attributes to read it on first
    (a table's column words: "cheapest" on a price is -1)."""
    w = _key(word)
    if not w.endswith(_COMPARED):
        return 0
    wanted = set(nouns)
    for lemma, pos in forms(w):
        if pos != "a" or lemma == w:
            continue
        found = attributes(lemma)
        on = [a.direction for a in found if a.noun in wanted and a.direction]
        signs = set(on) if on else {a.direction for a in found[:2]} - {0}
        if len(signs) == 1:
            return signs.pop()
    return 0


def pole_on(word: str, noun: str) -> int:
    """`pole` of a comparative or superlative on ``noun`` alone (0 where it measures
    another attribute): "fastest" on speed is +1, "slower" -1."""
    w = _key(word)
    if not w.endswith(_COMPARED):
        return 0
    for lemma, pos in forms(w):
        if pos == "a" and lemma != w:
            found = {a.direction for a in attributes(lemma)[:2] if a.noun == noun} - {0}
            if len(found) == 1:
                return found.pop()
    return 0


@functools.lru_cache(maxsize=1 << 12)
def measured_by(noun: str) -> tuple[str, ...]:
    """The adjectives that measure ``noun`` as an attribute (WordNet's attribute
    relation from the noun's side): weight -> heavy, light; height -> high, low."""
    wn, w = graph(), _key(noun)
    out = [
        x
        for f in wn.morphy(w, NOUN)
        for s in wn.synsets(f, NOUN)[:2]
        for adj in wn.linked(s, ATTRIBUTE)
        for x in wn.words_of(adj)
    ]
    return tuple(_unique(out))
