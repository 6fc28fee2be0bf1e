"""Word classes the placement rules read: closed classes, and what WordNet says a word is.

The closed classes (prepositions, conjunctions, determiners, pronouns,
auxiliaries) and the operations' own superlatives are the only word lists:
everything else (is it a noun, a verb form, a kind of person named by a
property) comes from WordNet (`wordnet`). The lists are entries of
``lexicon/vocabulary-common.json``, read through `vocabulary`.
"""

from __future__ import annotations

import functools

from . import vocabulary
from .words import COMPARATORS, GENERIC, singular, stem

__all__ = [
    "AUX",
    "CLOSED",
    "COMPARISON_STARTS",
    "COMPLEX_PREPOSITIONS",
    "DETERMINERS",
    "FEWER",
    "GENERIC",
    "LINKS",
    "MORE",
    "NEUTRAL",
    "OCCURRENCES",
    "OPERATING",
    "forms",
    "is_noun",
    "marked_kind",
    "parts_of",
]


def forms(word: str) -> set[str]:
    """A word, its singular, its rough stem and its WordNet lemmas ("ids": id): how a
    question word meets a name."""
    from .wordnet import lemmas

    return {word, singular(word), stem(word), *lemmas(word)}


#: The comparatives of any quantity, a count's included: the operation's own words.
MORE = vocabulary.words("more_words")
FEWER = vocabulary.words("fewer_words")

#: Closed-class words the question's stop words do not hold (prepositions, conjunctions,
#: determiners, pronouns): they place nothing and change nothing on their own.
CLOSED = vocabulary.words("closed_words")
#: The closed-class words that operate: a range or a difference ("between"), an
#: exclusion ("other than", "another"), a bound in time ("since", "until", "while") or a
#: negation ("neither ... nor"). Left out, each would change the answer.
OPERATING = vocabulary.words("operating_closed_words")
#: Prepositions of several words ("in terms of"): closed-class as a whole, so their
#: inner nouns ("terms", "behalf") place nothing and change nothing.
COMPLEX_PREPOSITIONS = vocabulary.listed("complex_prepositions")
DETERMINERS = vocabulary.words("determiners")
#: Words between a determiner and its noun that do not qualify it ("a single given season").
NEUTRAL = vocabulary.words("neutral_qualifiers")
LINKS = vocabulary.words("link_words")
AUX = vocabulary.words("auxiliary_words")
#: A count's own word for the rows themselves: "how many times", "on how many occasions".
OCCURRENCES = vocabulary.words("occurrence_words")


#: How a comparison starts ("more than", "at least", "over"): the comparators' own words.
COMPARISON_STARTS = frozenset(p for p, _ in COMPARATORS)


#: The words that ask for a row or a group by its name.
WHICH = vocabulary.words("which_words")


def offers_choice(tokens: list[str]) -> bool:
    """Whether a question offers named values to choose from: "A or B", or "of A and B,
    which ..." (a which-question over values joined by "and")."""
    if "or" in tokens:
        return True
    return "and" in tokens and any(t in WHICH for t in tokens)


def parts_of(word: str) -> tuple[set[str], dict[str, str]]:
    """(the parts of speech of ``word`` itself, {part of speech: lemma} of the lemmas it
    is an inflected form of), from WordNet (`wordnet.lemmas`)."""
    from .wordnet import forms as dictionary_forms

    own: set[str] = set()
    inflected: dict[str, str] = {}
    for lemma, pos in dictionary_forms(word):
        if lemma == word.lower():
            own.add(pos)
        else:
            inflected.setdefault(pos, lemma)
    return own, inflected


def is_noun(word: str) -> bool:
    own, inflected = parts_of(word)
    return "n" in own or "n" in inflected


@functools.lru_cache(maxsize=1 << 14)  # every word of every question over a Name column
def a_person(word: str) -> bool:
    """Whether WordNet files the noun's first sense under person ("player", "swimmer");
    not a verb's form that is also a name ("born": Max Born, "drew"), nor one person's
    name ("more": Thomas More, "lin": Maya Lin)."""
    from .wordnet import hypernyms, is_a_name

    own, inflected = parts_of(word)
    if not ("n" in own or "n" in inflected):
        return False
    if "v" in inflected and inflected["v"] != inflected.get("n", word):
        return False  # "born" is bear's, "drew" draw's: the noun is a name (Max Born)
    return "person" in {word, *hypernyms(word, 6, senses=1)} and not is_a_name(word)


@functools.lru_cache(maxsize=1 << 12)
def a_time(word: str) -> bool:
    """Whether WordNet files the noun's first sense under a period or a unit of time
    ("year", "season", "week", "date": a day): a question asking for one asks for a time."""
    return is_noun(word) and _first_sense_under(word, {"time period", "time unit"})


@functools.lru_cache(maxsize=1 << 10)
def a_kind_of_character(word: str) -> bool:
    """Whether ``word`` names a kind of letter or figure ("vowel", "consonant", "digit"),
    by WordNet's kinds of its first sense: "begins with a vowel" names no text to match."""
    if len(word) < 3 or not word.isalpha() or word in vocabulary.words("small_cardinals"):
        return False  # "starting with Ten": the text of a title
    return _first_sense_under(word, {"speech sound", "integer"})


def _first_sense_under(word: str, kinds: set[str]) -> bool:
    """Whether WordNet files ``word``'s first sense under one of ``kinds`` (to depth 3)."""
    from .wordnet import hypernyms

    return bool(kinds & set(hypernyms(word, 3, senses=1)))


def marked_kind(word: str) -> str | None:
    """The property that a noun's nearest kind names, where that kind is a person
    named by a property ("women": female, "boys": male, "men": adult); None else."""
    from .wordnet import hypernyms, parts_of_speech

    for kind in hypernyms(word, 1, senses=1)[:1]:
        if "a" in parts_of_speech(kind) and hypernyms(kind, 1, senses=1)[:1] == ("person",):
            return kind
    return None
