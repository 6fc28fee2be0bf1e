"""Every word rule of the data agent, in one place: stop words, stems, synonyms, cues, numbers.

The planner (`planner`), the table's profile (`table`) and the matcher
(`lexicon`) read the question through these. All plain word matching: the
question is never parsed as code. The built-in synonym table stays small and
general; a table's own words come from the user's context (`context`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

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
    "cues",
    "number_value",
    "phrase",
    "question_words",
    "singular",
    "stem",
    "synonyms_of",
]


def cues(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that carry no meaning of their own for a data question.
STOPWORDS = cues(
    "a an the of in on for to is are was were be been being and or by with what which who how "
    "do does did has have had it its this that these those there their our we us you your i me "
    "my any all some each every from as at than then into about please can could would should "
    "will give tell show list find get answer single category value values number numbers "
    "dataset data table database record records row rows entry entries one given ever "
    "so far yet same also just only much many whose whom where when why if not no"
)
#: Words of a column's name that do not name it ("Weight_in_lbs": weight, lbs).
NAME_STOP = cues("in of the a an per and or to by for with is are was")
#: Content words that name no column or value but shape nothing either.
FILLER = cues(
    "someone anyone somebody anybody everyone everybody something anything thing things "
    "total overall unique different distinct them they he she his her "
    "him whom"
)
HIGH = cues(
    "highest most best top largest biggest greatest max maximum leading peak higher larger "
    "heaviest longest hottest warmest wettest deepest tallest oldest fastest richest "
    "expensive strongest windiest rainiest populous popular record busiest led"
)
LOW = cues(
    "lowest least worst bottom smallest fewest min minimum weakest lower smaller lightest "
    "shortest coldest cheapest youngest slowest poorest driest"
)
TREND = cues(
    "trend change changed grow grew growth rise rose fall fell drop dropped increase increased "
    "decrease decreased evolve evolved develop developed over_time"
)
CORR = cues("correlation correlated correlate relationship related relate associated association")
MISSING = cues("missing null nan blank")
SHAPE = cues("row column shape size record entry observation big")
AGG_WORDS = {
    "sum": cues("total sum overall combined altogether"),
    "mean": cues("average mean avg typical typically"),
    "median": cues("median middle"),
    "std": cues("std deviation"),
    "range": cues("range spread gap gaps"),
    "share": cues("share percent percentage proportion fraction"),
    "nunique": cues("distinct unique different"),
}
MODE = re.compile(
    r"\b(most|least) (common|commonly|frequent|frequently|often|popular|usual)\b|\bcommonest\b|"
    r"\bmode\b"
)
HOW_MANY = re.compile(r"\b(how many|number of|count)\b")
WHO = re.compile(r"\b(who|which|what|when)\b")
_AUX_ASKS = r"(is|are|was|were|does|do|did|has|have|had|can|could|will|would)\b"
_WH = r"(?:which|what|whose|whom|who|how|when|where)\b"
ASK_BOOL = re.compile(
    rf"^\s*\W*{_AUX_ASKS}"
    # or after a setting of time or place, where no wh-word asks for something else:
    # "in 2002, did Rasnov have ...?" (not "before the distributor was which one?")
    rf"|^(?!.*\b{_WH})\s*\W*(?:in|on|at|during|after|before|by)\s+"
    rf"(?:(?!{_WH})[\w.'-]+,?\s+){{1,3}}{_AUX_ASKS}",
    re.IGNORECASE,
)
#: The verbs that ask for the answer ("name a species ...", "can you list ...").
ASKING = frozenset(("name", "list", "give", "find", "show", "tell"))
LIST_CUE = re.compile(
    r"^\s*\W*(?:please\s+)?(list|name|enumerate|give me|show me|what are|which are)\b"
)
#: Phrases that leave the rows they name out, as a negation does.
EXCEPT: tuple[str, ...] = (
    "other than",
    "excluding",
    "except",
    "apart from",
    "besides",
    "aside from",
    "outside of",  # "held outside of the USA": the rows of every other country
    "outside",
)
NEGATION = cues(
    "not no without never non nobody none dont doesnt didnt isnt arent wasnt nor don doesn didn "
    "isn aren wasn hasn haven"
)
ADDITIVE = cues(
    "sales revenue count amount total units quantity number population deaths births profit "
    "sold visitors precipitation rain jobs employment volume passengers murders crimes generation"
)
#: Comparison phrases, longest first: (words, operator).
COMPARATORS: tuple[tuple[str, str], ...] = tuple(
    (p, op)
    for op, phrases in (
        (">=", "at least|no less than|or more|or above|or greater|minimum of|not less than|since"),
        (
            "<=",
            "at most|no more than|or less|or below|or fewer|maximum of|not more than|up to|until",
        ),
        (
            ">",
            "more than|greater than|higher than|larger than|bigger than|better than|"
            "older than|longer than|heavier than|taller than|above|over|exceeding|exceeds|"
            "exceed|beyond|after|later than|bigger|greater",
        ),
        (
            "<",
            "less than|fewer than|lower than|smaller than|worse than|younger than|"
            "shorter than|lighter than|below|under|beneath|before|prior to|earlier than|"
            "cheaper than",
        ),
        ("=", "exactly|equal to|equals|equal|same as|score of|rating of|of exactly"),
    )
    for p in phrases.split("|")
)
#: The content words of the comparison phrases ("least", "than", "under"): the words that
#: make a number a bound.
COMPARING = frozenset(w for p, _ in COMPARATORS for w in p.split()) - {
    "of", "to", "as", "or", "no", "not",
}  # fmt: skip
#: Nouns that only say "how much of" what follows ("the amount of votes" is the votes).
QUANTITIES = frozenset(("amount", "quantity"))
_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
}
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
SYNONYMS = (
    "weight mass heavy heavier heaviest light lighter lightest lbs kg weigh",
    "price cost costs expensive cheap cheapest priced",
    "sales revenue revenues income earnings sold turnover money",
    "temperature temp warm warmest hot hottest cold coldest",
    "precipitation rain rainfall rainy wet wettest",
    "horsepower power powerful hp",
    "mpg miles gallon economy efficient efficiency",
    "length long longest",
    "depth deep deepest",
    "population pop people inhabitants populous",
    "unemp unemployment unemployed jobless",
    "generation generated produced",
    "count number",
    "wind windy windiest",
    "age old older oldest young younger youngest",
    "height tall tallest",
    "quantity units qty",
    "murder murders homicide",
    "speed fast fastest",
    "profit profits",
    "score scores rating grade",
    "species kind",
    "country nation origin",
    "employment employed jobs",
    "sex gender male female",
    "author writer",
    "lift lifted lifting",
    "distance far miles km kilometers",
    "university college school",
)
_SYNONYM_OF: dict[str, frozenset[str]] = {}
for _group in SYNONYMS:
    _words = frozenset(_group.split())
    for _w in _words:
        _SYNONYM_OF[_w] = _SYNONYM_OF.get(_w, frozenset()) | _words


def synonyms_of(word: str) -> frozenset[str]:
    return _SYNONYM_OF.get(word, frozenset())


@functools.lru_cache(maxsize=1 << 16)  # the same few thousand words, every question
def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A rough stem, for matching a value's words ("squatting" and "Squat"). No "-er":
    "players" would name the status "Playing" (an agent is not its activity)."""
    w = singular(word.lower())
    for suffix in ("ing", "ed", "ly", "y"):
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
