"""Every word rule of the data agent: stop words, stems, synonyms, cues, numbers.

The planner (`planner`), the table's profile (`table`) and the matcher
(`lexicon`) read the question through these. All plain word matching: the
question is never parsed as code. The built-in synonym table stays small and
general; a table's own words come from the user's context (`context`).
The word lists themselves are data: the entries of
``lexicon/vocabulary-common.json``, read by name through `vocabulary`, each
with its class and the reason it is listed.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from . import vocabulary

__all__ = [
    "ADDITIVE",
    "AGG_WORDS",
    "ASKING",
    "ASK_BOOL",
    "COMPARATORS",
    "COMPARING",
    "CORR",
    "EXCEPT",
    "FILLER",
    "HIGH",
    "HOW_MANY",
    "LIST_CUE",
    "LOW",
    "MISSING",
    "MODE",
    "NAME_STOP",
    "NEGATION",
    "NUMBER",
    "QUANTITIES",
    "SHAPE",
    "STOPWORDS",
    "SYNONYMS",
    "TREND",
    "WHO",
    "number_value",
    "phrase",
    "question_words",
    "singular",
    "stem",
    "synonyms_of",
]


#: Words that carry no meaning of their own for a data question.
STOPWORDS = vocabulary.words("stopwords")
#: Words of a column's name that do not name it ("Weight_in_lbs": weight, lbs).
NAME_STOP = vocabulary.words("column_name_stopwords")
#: Content words that name no column or value but shape nothing either.
FILLER = vocabulary.words("filler_pronouns") | vocabulary.words("filler_operation_words")
#: The words of an order's ends, one tagged table (vocabulary entry "extremes"); each
#: list below is a selection from it.
_EXTREMES = "extremes"
#: The operations' own superlatives and comparatives: an extreme of whatever is measured.
GENERIC = frozenset(vocabulary.tagged(_EXTREMES, without="loose attribute"))
#: The superlatives that rank rows ("the top 5", "the second highest", "the longest").
RANKING = vocabulary.tagged(_EXTREMES, "most", without="loose")
#: The superlatives of a value's size: they ask for the extreme itself ("the largest").
SIZES = frozenset(vocabulary.tagged(_EXTREMES, "size"))
#: The low end of an order ("the fewest", "the worst").
ORDER_LOW = vocabulary.tagged(_EXTREMES, "low", "most", without="attribute")
#: The high end: the operations' own words, and (still) adjectives of one attribute.
HIGH = frozenset(vocabulary.tagged(_EXTREMES, "high", "most|order", without="attribute"))
HIGH |= vocabulary.words("high_adjectives")
LOW = frozenset(vocabulary.tagged(_EXTREMES, "low", "most|order", without="attribute"))
LOW |= vocabulary.words("low_adjectives")
TREND = vocabulary.words("trend_words")
CORR = vocabulary.words("correlation_words")
MISSING = vocabulary.words("missing_words")
SHAPE = vocabulary.words("shape_words")
AGG_WORDS = {op: frozenset(words) for op, words in vocabulary.mapping("aggregation_words").items()}
_MODE_EXTREMES = vocabulary.alternation("most_least")
_MODE_FREQUENCY = vocabulary.alternation("mode_frequency_words")
MODE = re.compile(
    rf"\b({_MODE_EXTREMES}) ({_MODE_FREQUENCY})\b|\bcommonest\b|"
    r"\bmode\b"
)
_COUNT_PHRASES = vocabulary.alternation("count_phrases")
HOW_MANY = re.compile(rf"\b({_COUNT_PHRASES})\b")
_ASKED_WH = vocabulary.alternation("asked_wh_words")
WHO = re.compile(rf"\b({_ASKED_WH})\b")
_AUXILIARIES = vocabulary.alternation("asking_auxiliaries")
_AUX_ASKS = rf"({_AUXILIARIES})\b"
_WH_WORDS = vocabulary.alternation("wh_words")
_WH = rf"(?:{_WH_WORDS})\b"
_SETTING = vocabulary.alternation("setting_prepositions")
ASK_BOOL = re.compile(
    rf"^\s*\W*{_AUX_ASKS}"
    # or after a setting of time or place, where no wh-word asks for something else:
    # "in 2002, did Rasnov have ...?" (not "before the distributor was which one?")
    rf"|^(?!.*\b{_WH})\s*\W*(?:{_SETTING})\s+"
    rf"(?:(?!{_WH})[\w.'-]+,?\s+){{1,3}}{_AUX_ASKS}",
    re.IGNORECASE,
)
#: The verbs that ask for the answer ("name a species ...", "can you list ...").
ASKING = vocabulary.words("asking_verbs")
_LIST_CUES = vocabulary.alternation("list_cues")
LIST_CUE = re.compile(rf"^\s*\W*(?:please\s+)?({_LIST_CUES})\b")
#: Phrases that leave the rows they name out, as a negation does ("outside of the USA").
EXCEPT: tuple[str, ...] = vocabulary.listed("exclusion_phrases")
NEGATION = frozenset(vocabulary.tagged("negations", "word|run|stem"))
ADDITIVE = vocabulary.words("additive_measures")
#: Comparison phrases, longest first: (words, operator).
COMPARATORS: tuple[tuple[str, str], ...] = tuple(
    (p, op) for op, phrases in vocabulary.mapping("comparators").items() for p in phrases
)
#: The content words of the comparison phrases ("least", "than", "under"): the words that
#: make a number a bound.
COMPARING = frozenset(w for p, _ in COMPARATORS for w in p.split()) - vocabulary.words(
    "comparison_function_words"
)
#: Nouns that only say "how much of" what follows ("the amount of votes" is the votes).
QUANTITIES = vocabulary.words("quantity_nouns")
_NUMBER_WORDS: dict[str, int] = vocabulary.mapping("number_words")
NUMBER = re.compile(
    # (no digit after the match: "10th" is no "1" before "0th")
    r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)(?![\d]|st\b|nd\b|rd\b|th\b)((?:k|m)\b)?|\b("
    + "|".join(_NUMBER_WORDS)
    + r")\b",
    re.IGNORECASE,
)


def number_value(match: re.Match[str]) -> float | None:
    """The number a `NUMBER` match says: ``2k`` is 2000, ``forty`` is 40."""
    if match.group(3):
        return float(_NUMBER_WORDS[match.group(3).lower()])
    raw = match.group(1).replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    suffix = (match.group(2) or "").strip().lower()
    return value * {"k": 1000, "m": 1_000_000}.get(suffix, 1)


#: A few groups of words a question may use for a column's name (and the other way round).
SYNONYMS = vocabulary.listed("synonym_groups")
_SYNONYM_OF: dict[str, frozenset[str]] = {}
for _group in SYNONYMS:
    _words = frozenset(_group.split())
    for _w in _words:
        _SYNONYM_OF[_w] = _SYNONYM_OF.get(_w, frozenset()) | _words


def synonyms_of(word: str) -> frozenset[str]:
    return _SYNONYM_OF.get(word, frozenset())


#: The plural endings after a sibilant that drop only their "es" ("matches": match).
_ES_ENDINGS = vocabulary.listed("plural_es_endings")
#: The suffixes `stem` takes off, the first that ends the word.
_STEM_SUFFIXES = vocabulary.listed("stem_suffixes")


@functools.lru_cache(maxsize=1 << 16)  # the same few thousand words, every question
def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(_ES_ENDINGS):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A rough stem, for matching a value's words ("squatting" and "Squat"). No "-er":
    "players" would name the status "Playing" (an agent is not its activity)."""
    w = singular(word.lower())
    for suffix in _STEM_SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]  # squatt -> squat
            break
    return w


_WORD = re.compile(r"[A-Za-z]+|[0-9]+")


def question_words(text: str) -> list[str]:
    """A question's lower-case words, in order, each as its singular."""
    return [singular(w.lower()) for w in _WORD.findall(text.replace("'", ""))]


@functools.lru_cache(maxsize=1 << 16)
def phrase(text: str) -> str:
    """``text`` as the reading compares words: lower case, accents folded ("ÍBV" and
    "ibv", "Malmö" and "malmo" name the same value: a question is often typed without
    them), runs of anything but letters and digits one space."""
    folded = text.lower()
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[_\W]+", " ", folded).strip()
