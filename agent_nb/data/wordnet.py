"""What English words mean, from WordNet 3.1 as shipped in ``lexicon/wordnet.bin``.

The data agent needs to know that "Japanese" is about Japan, that "the
tallest" asks for the highest height, that "sugar-free" means no sugar and
that a boy is a male. None of that is typed in here: it is read off WordNet's
relations, compiled by `agent_nb.data.lexicon_build` (which alone needs NLTK).

Decisions:

* **Loaded once, lazily.** The first call reads and decompresses the file
  (about 40 ms) and caches it for the process; ``import agent_nb`` never
  touches it.
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

import array
import bisect
import dataclasses
import functools
import json
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

__all__ = [
    "Attribute",
    "Base",
    "antonyms",
    "attributes",
    "bases",
    "hypernyms",
    "lemmas",
    "synonyms",
]

_FILE = Path(__file__).with_name("lexicon") / "wordnet.bin"
_POS = "nvasr"  # the codes of the file: noun, verb, adjective, satellite adjective, adverb
_NOUN, _VERB, _ADJ, _SAT, _ADV = range(5)
# relation kinds, as `lexicon_build` packs them
_ANTONYM, _DERIVATION, _PERTAINYM = range(3)
_HYPERNYM, _ATTRIBUTE, _SIMILAR, _ALSO = range(4)

# WordNet's detachment rules (morphy(7WN)): the regular inflectional suffixes
_DETACH: dict[int, tuple[tuple[str, str], ...]] = {
    _NOUN: (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    _VERB: (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    _ADJ: (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    _ADV: (),
}
# the suffixes of a compound that means "none of": sugar-free, sugarless
_WITHOUT = ("-free", "free", "-less", "less")


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


class _Csr:
    """Rows of integers stored flat: row ``i`` is ``items[offsets[i]:offsets[i + 1]]``."""

    __slots__ = ("items", "offsets")

    def __init__(self, offsets: bytes, items: bytes) -> None:
        self.offsets = _uint32(offsets)
        self.items = _uint32(items)

    def row(self, i: int) -> array.array[int]:
        return self.items[self.offsets[i] : self.offsets[i + 1]]


def _uint32(data: bytes) -> array.array[int]:
    out = array.array("I")
    out.frombytes(data)
    if sys.byteorder != "little":  # pragma: no cover - the file is little-endian
        out.byteswap()
    return out


class _WordNet:
    """The compiled graph: synsets, their lemmas (senses) and the relations between them."""

    def __init__(self, raw: bytes) -> None:
        head, _, body = raw.partition(b"\n")
        sections: dict[str, bytes] = {}
        at = 0
        for name, size in json.loads(head)["sections"]:
            sections[name] = body[at : at + size]
            at += size
        # words stay one bytes blob, sorted: bisection finds a word, no dict of 150,000 is built
        self.blob = sections["words"]
        self.starts = _uint32(sections["words.offsets"])
        self.pos = sections["pos"]
        self.lemmas = _Csr(sections["lemmas.offsets"], sections["lemmas.items"])
        self.lemma_rel = _Csr(sections["lemma_rel.offsets"], sections["lemma_rel.items"])
        self.synset_rel = _Csr(sections["synset_rel.offsets"], sections["synset_rel.items"])
        self.index = _Csr(sections["index.offsets"], sections["index.items"])
        self.exceptions: dict[tuple[int, int], list[int]] = {}
        triples = _uint32(sections["exceptions"])
        for k in range(0, len(triples), 3):
            pos = _ADJ if triples[k] == _SAT else triples[k]
            self.exceptions.setdefault((pos, triples[k + 1]), []).append(triples[k + 2])

    def word(self, i: int) -> str:
        return self.blob[self.starts[i] : self.starts[i + 1]].decode()

    def find(self, word: str) -> int | None:
        """The word's id, by bisection over the sorted blob."""
        key, starts, blob = word.encode(), self.starts, self.blob
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[starts[mid] : starts[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(starts) - 1 and blob[starts[lo] : starts[lo + 1]] == key:
            return lo
        return None

    def owner(self, sense: int) -> int:
        """The synset a sense belongs to."""
        return bisect.bisect_right(self.lemmas.offsets, sense) - 1

    def lemma(self, sense: int) -> str:
        return self.word(self.lemmas.items[sense])

    def synsets(self, word: str, pos: int | None = None) -> list[int]:
        """The word's synsets, most frequent sense first (adjective includes satellites)."""
        i = self.find(word)
        if i is None:
            return []
        rows = self.index.row(i)
        if pos is None:
            return list(rows)
        want = {_ADJ, _SAT} if pos == _ADJ else {pos}
        return [s for s in rows if self.pos[s] in want]

    def senses(self, word: str, pos: int | None = None) -> Iterator[int]:
        """The word's senses (a lemma in one synset), most frequent first."""
        i = self.find(word)
        for s in self.synsets(word, pos):
            row = self.lemmas.offsets
            for k in range(row[s], row[s + 1]):
                if self.lemmas.items[k] == i:
                    yield k

    def words_of(self, synset: int) -> list[str]:
        return [self.word(w) for w in self.lemmas.row(synset)]

    def related(self, sense: int, kind: int) -> list[int]:
        return [code >> 3 for code in self.lemma_rel.row(sense) if code & 7 == kind]

    def linked(self, synset: int, kind: int) -> list[int]:
        return [code >> 3 for code in self.synset_rel.row(synset) if code & 7 == kind]

    def morphy(self, word: str, pos: int) -> list[str]:
        """WordNet's lemmas of ``word`` as ``pos`` (itself first when it is one)."""
        found = [word] if self.synsets(word, pos) else []
        i = self.find(word)
        known = self.exceptions.get((pos, i)) if i is not None else None
        forms = [self.word(b) for b in known] if known else None
        if forms is None:
            forms = [word[: -len(old)] + new for old, new in _DETACH[pos] if word.endswith(old)]
        found += [f for f in forms if f and self.synsets(f, pos)]
        return _unique(found)


@functools.cache
def _wordnet() -> _WordNet:
    if not _FILE.is_file():  # pragma: no cover - a broken install
        raise FileNotFoundError(
            f"{_FILE} is missing: reinstall agent_nb, or rebuild it with "
            "python -m agent_nb.data.lexicon_build (see its docstring)"
        )
    return _WordNet(zlib.decompress(_FILE.read_bytes()))


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _key(word: str) -> str:
    if not isinstance(word, str):
        raise TypeError(f"a word must be a str, not {type(word).__name__}")
    return " ".join(word.strip().lower().replace("_", " ").split())


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def lemmas(word: str) -> tuple[str, ...]:
    """The word's dictionary forms in any part of speech: "women" -> ("woman",)."""
    wn, w = _wordnet(), _key(word)
    return tuple(_unique(f for pos in (_NOUN, _VERB, _ADJ, _ADV) for f in wn.morphy(w, pos)))


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def bases(word: str) -> tuple[Base, ...]:
    """The words ``word`` is built on; see the module docstring for the relations used."""
    wn, w = _wordnet(), _key(word)
    found: list[Base] = [Base(f, "inflection") for f in lemmas(w) if f != w]
    for form in [w, *(b.word for b in found)]:
        for sense in wn.senses(form):
            found += [Base(wn.lemma(t), "pertainym") for t in wn.related(sense, _PERTAINYM)]
        for sense in wn.senses(form):
            found += [Base(wn.lemma(t), "derivation") for t in wn.related(sense, _DERIVATION)]
        for s in wn.synsets(form):
            found += [
                Base(x, "stem")
                for x in wn.words_of(s)
                if len(x) >= 3 and form.startswith(x) and x != form
            ]
    for suffix in _WITHOUT:
        rest = w[: -len(suffix)].rstrip("-")
        if w.endswith(suffix) and len(rest) >= 3:
            found += [Base(n, "without") for n in wn.morphy(rest, _NOUN)[:1]]
            break
    seen: dict[str, Base] = {}
    for b in found:
        if b.word != w:
            seen.setdefault(b.word, b)
    return tuple(seen.values())


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def synonyms(word: str) -> tuple[str, ...]:
    """The other words of the word's synsets (of its lemmas when it is inflected)."""
    wn, w = _wordnet(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    out = [x for f in forms for s in wn.synsets(f) for x in wn.words_of(s)]
    return tuple(x for x in _unique(out) if x not in forms)


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def hypernyms(word: str, depth: int = 2, *, senses: int | None = None) -> tuple[str, ...]:
    """The words of the more general synsets above the word's, up to ``depth`` steps;
    ``senses`` keeps only the word's most frequent senses (1: "point" is no unit)."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive int, not {depth!r}")
    if senses is not None and (not isinstance(senses, int) or senses < 1):
        raise ValueError(f"senses must be None or a positive int, not {senses!r}")
    wn, w = _wordnet(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    out: list[str] = []
    for f in forms:
        for s in wn.synsets(f)[:senses]:
            level = [s]
            for _ in range(depth):
                level = [h for x in level for h in wn.linked(x, _HYPERNYM)]
                out += [x for h in level for x in wn.words_of(h)]
    return tuple(x for x in _unique(out) if x not in forms)


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def antonyms(word: str) -> tuple[str, ...]:
    """Direct antonyms first (tall -> short), then those of a satellite's head (huge -> small)."""
    wn, w = _wordnet(), _key(word)
    forms = [w] if wn.synsets(w) else list(lemmas(w))
    direct: list[str] = []
    indirect: list[str] = []
    for f in forms:
        for sense in wn.senses(f):
            direct += [wn.lemma(t) for t in wn.related(sense, _ANTONYM)]
            synset = wn.owner(sense)
            if wn.pos[synset] == _SAT:
                for head in wn.linked(synset, _SIMILAR):
                    for k in range(wn.lemmas.offsets[head], wn.lemmas.offsets[head + 1]):
                        indirect += [wn.lemma(t) for t in wn.related(k, _ANTONYM)]
    return tuple(x for x in _unique(direct + indirect) if x not in forms)


def _nearness(wn: _WordNet, sense: int, noun: int) -> int:
    """How close an adjective's sense is to a noun: 3 a derivation link, 2 a derivation
    into a synset that shares one of its words (tall -> tallness ~ height), 1 a stem,
    -1 the noun with "-less" (fearless)."""
    nouns = range(wn.lemmas.offsets[noun], wn.lemmas.offsets[noun + 1])
    derived = wn.related(sense, _DERIVATION)
    if any(t in nouns for t in derived) or any(sense in wn.related(k, _DERIVATION) for k in nouns):
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


def _cluster(wn: _WordNet, synset: int, noun: int) -> float:
    """What an adjective's satellites say: one tied to the noun by a derivation or a stem
    (old: aged ~ age; expensive: costly ~ cost) leans to +, one that is the noun plus
    "-less"/"-free" (weightless) leans to -."""
    words = wn.words_of(noun)
    nouns = range(wn.lemmas.offsets[noun], wn.lemmas.offsets[noun + 1])
    lean = 0.0
    for satellite in wn.linked(synset, _SIMILAR):
        for k in range(wn.lemmas.offsets[satellite], wn.lemmas.offsets[satellite + 1]):
            x = wn.lemma(k)
            if _without(x, words):
                return -0.5
            if any(_stem(x, n) for n in words) or any(
                t in nouns for t in wn.related(k, _DERIVATION)
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


def _score(wn: _WordNet, synset: int, noun: int) -> float:
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    return max(_nearness(wn, k, noun) for k in lemmas) + _cluster(wn, synset, noun)


def _pole(wn: _WordNet, synset: int, noun: int) -> Literal[-1, 0, 1]:
    """+1 when the adjective is nearer the noun than its antonyms, -1 when farther, else 0."""
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    opposite = {wn.owner(t) for k in lemmas for t in wn.related(k, _ANTONYM)}
    mine = _score(wn, synset, noun)
    if not opposite:
        return 1 if mine >= 2 else 0
    theirs = max(_score(wn, o, noun) for o in opposite)
    return 1 if mine > theirs else -1 if theirs > mine else 0


def _measured(wn: _WordNet, synset: int) -> list[tuple[int, int]]:
    """(noun synset, pole) for a head adjective synset: its attribute relation, else the
    nouns derived from it and their hypernyms (expensive -> expensiveness -> price). Each
    noun's pole is weighed on its own: that "inexpensiveness" is a kind of price says
    nothing about which end of price "cheap" is."""
    nouns = wn.linked(synset, _ATTRIBUTE)
    if nouns:
        return [(n, _pole(wn, synset, n)) for n in nouns]
    out: list[tuple[int, int]] = []
    lemmas = range(wn.lemmas.offsets[synset], wn.lemmas.offsets[synset + 1])
    derived = _unique_ints(wn.owner(t) for k in lemmas for t in wn.related(k, _DERIVATION))
    for d in derived:
        if wn.pos[d] != _NOUN:
            continue
        out += [(n, _pole(wn, synset, n)) for n in [d, *wn.linked(d, _HYPERNYM)]]
    return out


def _unique_ints(items: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(items))


@functools.lru_cache(maxsize=1 << 14)  # a kernel asks about the same words
def attributes(adjective: str) -> tuple[Attribute, ...]:
    """The nouns an adjective measures, with its pole on each: tall -> height +1."""
    wn, w = _wordnet(), _key(adjective)
    found: list[tuple[int, int]] = []
    for form in wn.morphy(w, _ADJ):
        for sense in wn.senses(form, _ADJ):
            synset = wn.owner(sense)
            heads = [synset]
            if wn.pos[synset] == _SAT:  # huge: the head's (large) attribute and pole
                heads = wn.linked(synset, _SIMILAR)[:1]
            for head in heads:
                measured = _measured(wn, head)
                if not wn.linked(head, _ATTRIBUTE):
                    # cheap: also what its antonym (expensive) measures, the other way
                    lemmas = range(wn.lemmas.offsets[head], wn.lemmas.offsets[head + 1])
                    for o in _unique_ints(
                        wn.owner(t) for k in lemmas for t in wn.related(k, _ANTONYM)
                    ):
                        measured += [(n, -p) for n, p in _measured(wn, o)]
                found += measured
    seen: dict[str, Attribute] = {}
    for noun, pole in found:
        for x in wn.words_of(noun):
            seen.setdefault(x, Attribute(x, pole))  # type: ignore[arg-type]
    return tuple(seen.values())
