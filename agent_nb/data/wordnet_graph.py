"""The compiled WordNet graph in ``lexicon/wordnet.bin``, read without NLTK.

`lexicon_build` writes it; `wordnet` answers questions with it. Reading is one
decompression and a few ``array.frombytes``: the words stay one sorted bytes
blob, found by bisection, so no dict of 150,000 entries is built and a
kernel's first question waits about 50 ms (CPU) for it. The graph is loaded
once per process, on first use.
"""

from __future__ import annotations

import array
import bisect
import functools
import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

from . import vocabulary

__all__ = [
    "ADJ",
    "ADV",
    "ALSO",
    "ANTONYM",
    "ATTRIBUTE",
    "DERIVATION",
    "DETACH",
    "FILE",
    "HYPERNYM",
    "NOUN",
    "PERTAINYM",
    "POS",
    "SAT",
    "SIMILAR",
    "VERB",
    "Graph",
    "graph",
]

FILE = Path(__file__).with_name("lexicon") / "wordnet.bin"
POS = "nvasr"  # the codes of the file: noun, verb, adjective, satellite adjective, adverb
NOUN, VERB, ADJ, SAT, ADV = range(5)
# relation kinds, as `lexicon_build` packs them
ANTONYM, DERIVATION, PERTAINYM = range(3)
HYPERNYM, ATTRIBUTE, SIMILAR, ALSO = range(4)

# WordNet's detachment rules (morphy(7WN)): the regular inflectional suffixes, and what
# replaces each, by part of speech
_PARTS = {"noun": NOUN, "verb": VERB, "adj": ADJ, "adv": ADV}
DETACH: dict[int, tuple[tuple[str, str], ...]] = {
    _PARTS[part]: tuple((old, new) for old, new in rules)
    for part, rules in vocabulary.mapping("wordnet_detachment_rules").items()
}


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


class Graph:
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
            pos = ADJ if triples[k] == SAT else triples[k]
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
        want = {ADJ, SAT} if pos == ADJ else {pos}
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
            forms = [word[: -len(old)] + new for old, new in DETACH[pos] if word.endswith(old)]
        found += [f for f in forms if f and self.synsets(f, pos)]
        return list(dict.fromkeys(found))


@functools.cache
def graph() -> Graph:
    if not FILE.is_file():  # pragma: no cover - a broken install
        raise FileNotFoundError(
            f"{FILE} is missing: reinstall agent_nb, or rebuild it with "
            "python -m agent_nb.data.lexicon_build (see its docstring)"
        )
    return Graph(zlib.decompress(FILE.read_bytes()))
