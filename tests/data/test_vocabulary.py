"""The data agent's code holds no English word list: the words it knows by name are data.

Issue 47 asks that the data agent know words through WordNet, not through
lists written for the questions at hand, and keep only the closed classes
(determiners, pronouns, prepositions, question words, auxiliaries) and the
operations' own words ("total", "average", "before") as lists. Those are the
entries of ``agent_nb/data/lexicon/vocabulary-*.json`` (`agent_nb.data.vocabulary`),
each saying which class it is and why. This test reads every module of
`agent_nb.data` and fails on any literal that lists English words: a set,
list, tuple or dict of them, a ``cues("...")`` string, or a regular
expression's alternation ``(a|b|c)``. Names the code itself defines (the
plan's operations and roles, its fields, its functions) are identifiers, not
English, and are allowed.
"""

from __future__ import annotations

import ast
import functools
import re
import typing
from collections.abc import Iterator
from pathlib import Path

import pydantic
import pytest

import agent_nb.data as data
from agent_nb.data import query, table, vocabulary

_PACKAGE = Path(data.__file__).parent
#: The script that compiles WordNet reads WordNet's own file names ("index.noun").
_NOT_READING = {"lexicon_build.py"}
#: An alternation of two or more words inside a regular expression: "(least|fewest)".
_ALTERNATION = re.compile(r"\(\??:?([a-z' ]+(?:\|[a-z' ]+)+)\)")
_WORD = re.compile(r"[a-z][a-z'-]*")
#: JSON Schema's keywords (the plan grammar the model fills): the schema's names.
_JSON_SCHEMA = frozenset(("type", "properties", "required", "items", "minimum", "maximum"))


@functools.cache
def _identifiers() -> frozenset[str]:
    """The names the code defines: every ``Literal`` value and every model field."""
    names: set[str] = set()
    for module in (query, table):
        for value in vars(module).values():
            if typing.get_origin(value) is typing.Literal:
                names |= {a for a in typing.get_args(value) if isinstance(a, str)}
            if isinstance(value, type) and issubclass(value, pydantic.BaseModel):
                names |= set(value.model_fields)
    for path in _PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id == "Literal"
            ):
                names |= {c.value for c in ast.walk(node.slice) if isinstance(c, ast.Constant)}
            # the code's own names: its functions and classes
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
    return frozenset(n for n in names if isinstance(n, str)) | _JSON_SCHEMA


@functools.cache
def _closed() -> frozenset[str]:
    entries = vocabulary.entries().values()
    return frozenset(w for e in entries if e["class"] == "closed" for w in e.get("words", ()))


def _english(word: str) -> bool:
    """An open-class word of English: one WordNet knows and no closed class holds (the
    issue allows closed classes: "who" or "whom" may be written in the code); letters
    and suffixes ("s", "ing") are no words."""
    from agent_nb.data.word_classes import parts_of
    from agent_nb.data.wordnet import parts_of_speech

    if len(word) < 3 or not _WORD.fullmatch(word) or word in _closed():
        return False
    return bool(parts_of_speech(word)) or bool(parts_of(word)[0])


def _strings(node: ast.AST) -> list[str] | None:
    """The strings a literal lists, or None where it is no literal list of strings."""
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        items = node.elts
    elif isinstance(node, ast.Dict):
        # a record's keys name its fields ("table": self.table); a map of words to
        # constants ("top": "desc") is a word list
        if not all(isinstance(v, ast.Constant) for v in node.values):
            return None
        items = [k for k in node.keys if k is not None]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "cues"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return str(node.args[0].value).split()
    else:
        return None
    if not items or not all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items
    ):
        return None
    return [str(e.value) for e in items if isinstance(e, ast.Constant)]


def _lists(path: Path, identifiers: frozenset[str]) -> Iterator[str]:
    tree = ast.parse(path.read_text())
    exported = {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
    }
    for node in ast.walk(tree):
        found = None if id(node) in exported else _strings(node)
        if found is not None:
            english = [w for w in found if _english(w) and w not in identifiers]
            if len(english) >= 2:
                yield f"{path.name}:{node.lineno} {' '.join(english[:8])}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for m in _ALTERNATION.finditer(node.value):
                english = [w for w in m.group(1).split("|") if all(map(_english, w.split()))]
                if len(english) >= 2:
                    yield f"{path.name}:{node.lineno} ({'|'.join(english[:8])})"


def _modules() -> list[Path]:
    return sorted(p for p in _PACKAGE.rglob("*.py") if p.name not in _NOT_READING)


def test_the_scan_finds_a_word_list_and_passes_identifiers(tmp_path: Path) -> None:
    # the check itself must be able to fail: a list of words, a cues string and a regex
    # alternation are each found; the plan's own names and single words are not
    source = tmp_path / "sample.py"
    source.write_text(
        "A = frozenset(('tallest', 'heaviest'))\n"
        "B = cues('wins victories')\n"
        "C = re.compile(r'\\b(most|least) common')\n"
        "D = ('sum', 'mean', 'median')\n"
        "E = ('first',)\n"
    )
    found = list(_lists(source, _identifiers()))
    assert sorted(f.split()[0] for f in found) == ["sample.py:1", "sample.py:2", "sample.py:3"]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(_PACKAGE)))
def test_no_english_word_list_outside_the_vocabulary(path: Path) -> None:
    found = list(_lists(path, _identifiers()))
    assert not found, (
        "English word lists belong in agent_nb/data/words.py (an operation's own words) "
        "or word_classes.py (a closed class), or come from WordNet: " + "; ".join(found)
    )


def _used_names() -> str:
    return "\n".join(p.read_text() for p in _PACKAGE.rglob("*.py"))


def test_every_vocabulary_entry_says_its_class_and_why_and_is_used() -> None:
    source = _used_names()
    for name, entry in vocabulary.entries().items():
        assert entry["class"] in vocabulary.CLASSES, (name, entry["class"])
        assert len(entry["why"]) > 10, name
        held = entry.get("words", entry.get("map"))
        assert held and len(held) == len(set(held)), f"{name}: empty or a word twice"
        assert f'"{name}"' in source, f"vocabulary entry {name!r} is used nowhere"


def test_content_words_are_the_known_few_still_to_come_from_wordnet() -> None:
    # content-word lists are what issue 47 asks to read from WordNet instead: each one
    # left is named here, so that a new one fails and a replaced one is struck off
    content = {n for n, e in vocabulary.entries().items() if e["class"] == "content"}
    assert content == _CONTENT_LEFT


_CONTENT_LEFT = {
    "additive_measures",  # measures that add up (sales, deaths): summed, not averaged
    "high_adjectives",  # "tallest", "heaviest": WordNet's attributes give most of them
    "low_adjectives",
    "identifier_nouns",
    "of_part_nouns",
    "order_asking_words",
    "period_nouns",
    "place_kinds",
    "placing_name_parts",
    "standing_names",
    "synonym_groups",  # the built-in synonym table
    "text_column_names",
    "timed_attribute_nouns",
}


def test_no_list_is_written_twice() -> None:
    # one entry per list: two entries holding the same words are one rule written twice
    seen: dict[frozenset[str], str] = {}
    for name, entry in vocabulary.entries().items():
        held = frozenset(entry.get("words", ())) or frozenset(
            f"{k}={v}" for k, v in entry.get("map", {}).items()
        )
        assert held not in seen, f"{name} holds the same words as {seen[held]}"
        seen[held] = name


def test_lists_that_share_words_are_selections_of_one_tagged_table() -> None:
    # the ends of an order and the negations are each one table of words and their
    # kinds: a reader's list is a selection by tags ("a|b": either), not a copy
    low_ends = vocabulary.tagged("extremes", "low", "most", without="attribute")
    assert low_ends[:3] == ("lowest", "smallest", "worst") and "shortest" not in low_ends
    either = set(vocabulary.tagged("extremes", "low", "most|order", without="attribute"))
    assert either == set(low_ends) | {"lower", "smaller"}
    assert not {"leading", "peak"} & set(vocabulary.tagged("extremes", without="loose"))
    stems = set(vocabulary.tagged("negations", "stem"))
    assert "haven" in stems and not stems & set(vocabulary.tagged("negations", "word"))
    names = [n for n, e in vocabulary.entries().items() if "map" in e]
    assert {"extremes", "negations"} <= set(names)
