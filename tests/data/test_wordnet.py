"""The shipped WordNet lexicon, read by `agent_nb.data.wordnet` (no NLTK at run time)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_nb.data import wordnet_graph
from agent_nb.data.wordnet import Attribute, Base, antonyms, attributes, bases, hypernyms, synonyms
from tests.data.wordnet_poles import held_out_pole, measure


def _pole(adjective: str, noun: str) -> int | None:
    return next((a.direction for a in attributes(adjective) if a.noun == noun), None)


@pytest.mark.parametrize(
    ("word", "base", "via"),
    [
        ("Japanese", "japan", "pertainym"),
        ("European", "europe", "pertainym"),
        ("Italians", "italy", "pertainym"),
        ("southwestern", "southwest", "stem"),
        ("sugar-free", "sugar", "without"),
        ("sugarless", "sugar", "without"),
        ("women", "woman", "inflection"),
        ("mice", "mouse", "inflection"),
        ("vegetarians", "vegetarian", "inflection"),
        ("married", "marry", "inflection"),
    ],
)
def test_bases_name_what_a_word_is_built_on(word: str, base: str, via: str) -> None:
    assert Base(base, via) in bases(word)  # type: ignore[arg-type]


def test_a_word_is_not_its_own_base_and_unknown_words_have_none() -> None:
    assert all(b.word != "japan" for b in bases("japan"))
    assert bases("qwertyuiop") == ()
    # "unless" is no compound of "un": a "without" base needs a word of three letters or more
    assert not [b for b in bases("unless") if b.via == "without"]


@pytest.mark.parametrize(
    ("adjective", "noun", "pole"),
    [
        ("tall", "height", 1),
        ("short", "height", -1),
        ("old", "age", 1),
        ("young", "age", -1),
        ("fast", "speed", 1),
        ("slow", "speed", -1),
        ("deep", "depth", 1),
        ("shallow", "depth", -1),
        ("expensive", "price", 1),
        ("expensive", "cost", 1),
        ("cheap", "price", -1),
        ("wide", "width", 1),
        ("broad", "width", 1),
        ("narrow", "width", -1),
        ("long", "length", 1),
        ("strong", "strength", 1),
        ("huge", "size", 1),  # a satellite takes its head's (large) attribute
        # inflected through morphy: rules, then WordNet's exception lists
        ("tallest", "height", 1),
        ("older", "age", 1),
        ("biggest", "size", 1),
        ("cheapest", "price", -1),
    ],
)
def test_attributes_give_the_noun_and_the_pole(adjective: str, noun: str, pole: int) -> None:
    assert _pole(adjective, noun) == pole


def test_a_pole_the_relations_do_not_settle_is_zero_not_a_guess() -> None:
    # heavy and light both derive a hyponym of weight: nothing in WordNet's links ranks them
    assert Attribute("weight", 0) in attributes("heavy")
    assert attributes("qwertyuiop") == ()


def test_synonyms_hypernyms_antonyms() -> None:
    assert "gross domestic product" in synonyms("gdp")
    assert "male" in hypernyms("boy", depth=1)
    assert "male" in hypernyms("boys")
    assert antonyms("tall")[0] == "short"
    assert "small" in antonyms("huge")  # through its head, large
    with pytest.raises(ValueError, match="positive int"):
        hypernyms("boy", depth=0)
    with pytest.raises(TypeError, match="must be a str"):
        synonyms(3)  # type: ignore[arg-type]


def test_the_pole_rule_agrees_with_a_held_out_rule_on_words_nobody_chose() -> None:
    """Every adjective of WordNet's attribute relation with an antonym (620): the rule gives
    a pole to most, and where markedness (un-, in-, -less) also judges, they agree."""
    assert held_out_pole("expensive", "inexpensive") == 1
    assert held_out_pole("careless", "careful") == -1
    m = measure()
    assert m.sampled >= 500
    assert m.decided / m.sampled >= 0.75, (m.decided, m.sampled)
    assert m.judged >= 200 and m.agree / m.judged >= 0.95, m.disagreements


def test_import_agent_nb_does_not_load_the_lexicon_and_no_nltk_is_needed() -> None:
    code = (
        "import sys, agent_nb, agent_nb.data.wordnet as w, agent_nb.data.wordnet_graph as g\n"
        "assert g.graph.cache_info().currsize == 0\n"
        "w.bases('Japanese')\n"
        "assert g.graph.cache_info().currsize == 1\n"
        "assert 'nltk' not in sys.modules, 'nltk at run time'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert wordnet_graph.FILE.stat().st_size < 4_000_000  # a few MB, shipped in the wheel
