"""Whether a plan answers the question's form, beyond placing its words: the second half
of the gate before a value (`placement` sorts the words; this module the plan).

A question asks for a kind of answer: "which ..." and "who ..." a row or a group
by its name, "A or B?" one of the two, "how many" a count, "the average" a mean,
"the only X" one value. A plan that uses every word can still answer another
question: "When was the only 8th place?" read as the number of rows with place 8.
Each check is a row of `FORM_RULES`; `form_faults` applies them all, and each fault
keeps the value from being stated (`answer.Answer.understood`), with why.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Collection
from typing import Any

from . import vocabulary
from .cells import DETAIL, is_placeholder, read_cell
from .execute import run_plan
from .placement import Unplaced, a_name_answers, means_column, shown_column
from .planner_cues import default_agg
from .query import AGG_NAME, COMPARING, LOOKUP_ENDS, Filter, Plan
from .reading import Reading
from .result import PlanError
from .row_nouns import counting_columns, names_kind, row_name_columns
from .rows import rows_where
from .table import Column, Table, holds_years
from .word_classes import (
    AUX,
    CLOSED,
    DETERMINERS,
    FEWER,
    GENERIC,
    LINKS,
    MORE,
    NEUTRAL,
    OCCURRENCES,
    WHICH,
    a_time,
    forms,
    is_noun,
    offers_choice,
    parts_of,
)
from .words import (
    AGG_WORDS,
    ASKING,
    COMPARATORS,
    HOW_MANY,
    MODE,
    NEGATION,
    QUANTITIES,
    RANKING,
    STOPWORDS,
    phrase,
    singular,
)

__all__ = ["FORM_RULES", "Form", "form_faults"]


@dataclasses.dataclass(frozen=True)
class Form:
    """What a check reads: the question, the plan, the words the plan used, and what it
    computed (its value, over how many rows)."""

    r: Reading
    plan: Plan
    used: set[str]
    rows: int
    value: Any


def _question_word(r: Reading, words: Collection[str]) -> int:
    """Where the question's asking word (one of ``words``) stands: first, or first after
    a preposition or a link ("in which year", "and what ..."); -1 where it asks with none."""
    for i in (0, 1):
        if i < len(r.tokens) and r.tokens[i] in words:
            return i if i == 0 or r.tokens[0] in CLOSED | LINKS else -1
    # or first after a clause set off by a comma ("besides Merthyr Town, which team ...")
    after = re.search(r",\s*(\w+)", r.text.lower())
    if after and after.group(1) in words and after.group(1) in r.tokens:
        return r.tokens.index(after.group(1))
    return -1


def _table_nouns(r: Reading) -> set[str]:
    """The forms of the words of the table's name: "cars" of a table named cars."""
    return {x for w in phrase(r.table.name).split() for x in forms(w)}


def _asks_which(f: Form) -> list[Unplaced]:
    """ "which ..." and "who ..." ask for a row or a group by its name: an answer that is
    a number of the measure, or yes or no, names none ("which stage had the most
    withdrawals?" answered "7"). "which is the highest price?" asks for the value."""
    r, plan, used = f.r, f.plan, f.used
    i = _question_word(r, WHICH)
    if i < 0:
        return _a_noun_phrase_asked(f)
    if r.tokens[i] == "which" and r.tokens[i + 1 : i + 2] in (["is"], ["are"], ["was"], ["were"]):
        # "which is the highest price?" asks for the value; "which is the only
        # subdivision ...?" for a row, by the noun no part of the plan placed
        phrase_ = r.tokens[i + 3 : i + 6] if r.tokens[i + 2 : i + 3] == ["the"] else []
        noun = next((t for t in phrase_ if t not in STOPWORDS | used and is_noun(t)), "")
        noun = "" if noun in _OPERATION_WORDS else noun
        col = r.table.columns.get(shown_column(plan) or "")
        if not noun or (col is not None and col.role in ("label", "id")):
            return []
        return [Unplaced(noun, f"'which is the {noun}' asks for a row by its name, "
                               f"and the answer is {plan.describe()}")]  # fmt: skip
    j = i + 2 if r.tokens[i + 1 : i + 2] in (["other"], ["another"]) else i + 1
    asked = r.tokens[j] if j < len(r.tokens) else ""  # "which other nation": the nation
    generic = asked in GENERIC or (asked in STOPWORDS and is_noun(asked))  # "which value"
    answers = {w for _, ws in plan.words for w in ws}  # the words of what it computes
    if r.tokens[i] == "which" and ((asked in used and asked in answers) or generic):
        # "which rating is ...", "which value is ...": what it asks is placed (not only
        # by a filter: "which other nation than Switzerland" asks for a nation still)
        return []
    shown = shown_column(plan)
    if forms(asked) & _table_nouns(r):  # "which car" of a table named cars: a row, by its name
        col = r.table.columns.get(shown or "")
        if col is not None and col.role in ("label", "id"):
            return []
        return [Unplaced(asked, f"'{asked}' asks for a row of {r.table.name} by its name, "
                                f"and the answer is {plan.describe()}")]  # fmt: skip
    word = r.tokens[i]
    if shown is not None:
        col = r.table.columns.get(shown)
        roles = ("label", "id", "category") + (() if word in ("who", "whom") else ("time",))
        named = col is None or col.role in roles  # "who won the first game?" is no date
        if named and word in ("who", "whom") and _not_names(r.table, shown):
            return [Unplaced(word, f"'{word}' asks for a name, and the cells of {shown} "
                                   "are dates, scores or numbers")]  # fmt: skip
        if named or (shown != plan.measure and word == "which"):
            return []
    return [
        Unplaced(word, f"'{word}' asks for a row or a group, and the answer is {plan.describe()}")
    ]


def _a_noun_phrase_asked(f: Form) -> list[Unplaced]:
    """A question said as a noun phrase, with no asking word ("boat with the least
    tonnage that was attacked"), asks for what its head noun names: where no part of
    the plan placed that noun, a number of the measure names none (a time noun is
    answered by a time: "the year the last ship was built")."""
    r, plan = f.r, f.plan
    if not r.tokens or set(r.tokens) & (_WH_WORDS | ASKING) or r.expect is not None:
        return []
    if r.tokens[0] in AUX:  # "is the ...", "does ...": a yes-or-no question
        return []
    head = next((t for t in r.tokens[:2] if t not in STOPWORDS), "")
    if not head or head in f.used or not is_noun(head) or head in _OPERATION_WORDS:
        return []
    if forms(head) & _table_nouns(r):  # "car with the most horsepower" of cars
        return []
    col = r.table.columns.get(shown_column(plan) or "")
    if col is None and plan.op != "aggregate":
        return []
    if col is not None and col.role in ("label", "id", "category"):
        return []
    if (
        col is not None
        and a_time(head)
        and (col.role == "time" or holds_years(r.table.df[col.name]))
    ):
        return []  # "the year the last ship was built": the year is the answer
    return [Unplaced(head, f"'{head}' asks for a row by its name, and the answer is "
                           f"{plan.describe()}")]  # fmt: skip


def _not_names(table: Table, column: str) -> bool:
    """Whether most of ``column``'s cells hold a number once any detail in brackets is
    dropped ("Apr 10, 1947", "0–3", "66-72-70=208"; not "Warren Tredrea (81)"): such
    text is no one's name, though nothing read it as dates or numbers."""
    if column not in table.df.columns:
        return False
    cells = table.df[column].dropna().head(200).astype(str)
    if cells.empty:
        return False
    digits = cells.map(lambda c: any(ch.isdigit() for ch in DETAIL.sub("", c.strip())))
    return bool(digits.mean() >= 0.5)


_OPERATION_WORDS = frozenset(w for ws in AGG_WORDS.values() for w in ws) | GENERIC
#: Nouns that say which part of what follows them is asked ("the name of the swara").
_OF_WORDS = vocabulary.words("of_part_nouns")
_WH_WORDS = vocabulary.words("wh_words")


def _what_names_a_column(f: Form) -> list[Unplaced]:
    """ "what artist scored the least points?", "what tribunal had the least autos da
    fe?": "what" before a word that names a column of names asks for one of its names,
    as "which" does; a number of the measure ("4 is the lowest Points") names none."""
    r, plan = f.r, f.plan
    # "what artist ...", "in what year ...", a question that is a phrase: "the team
    # with the most caps", and one that asks by a verb: "(can you) name a party ..."
    verb = r.asking_verb
    by_word = 0 if r.tokens[:1] == ["the"] else _question_word(r, ("what",))
    i = verb if verb >= 0 else by_word
    if i < 0 or i + 1 >= len(r.tokens):
        return []
    j = i + 1  # "what is the only province ...": past the verb, the article, "only"
    if r.tokens[i] == "what" or i == verb:
        skipped = (AUX if i != verb else {"me", "us"}) | DETERMINERS | NEUTRAL | {"only"}
        while j + 1 < len(r.tokens) and r.tokens[j] in skipped:
            j += 1
        if i == verb and j == i + 1:
            return []  # "name players ...", "list all": no article, no one noun asked
    asked = r.tokens[j]
    if asked in _OPERATION_WORDS | _OF_WORDS:
        return []  # "what is the name of ...", "what was the total ...": not a row's noun
    after = r.tokens[j + 1] if j + 1 < len(r.tokens) else ""
    if after in f.used and is_noun(after):
        return []  # "list the product codes": the codes are asked for (a compound's head)
    named = [
        name for name, (_, ws) in r.named.items()
        if asked in ws and r.table.columns[name].role in ("label", "category", "id")
    ]  # fmt: skip
    shown = shown_column(plan)
    if not named or {shown, plan.group_by, plan.measure} & set(named):
        return []
    said = " ".join(r.tokens[i : j + 1]) if i == verb else f"what {asked}"
    return [Unplaced(asked, f"'{said}' asks for a {named[0]}, and the answer is {plan.describe()}")]


def _words_and_forms(col: Column) -> set[str]:
    """The words that name ``col``: its own, and the forms of its name's words."""
    return set(col.words) | {x for p in col.parts for x in forms(p)}


def _noun_asked(r: Reading) -> int:
    """Where the noun a "what" or "which" question asks for stands, past the verb and the
    article ("what was the year of ...": year); -1 where it asks with neither ("who
    wins": a verb, not a noun asked)."""
    i = _question_word(r, ("what", "which"))
    if i < 0 or i + 1 >= len(r.tokens):
        return -1
    if r.tokens[i] == "which":  # "which has the same WG as X?": the noun is left unsaid
        return i + 1
    j = i + 1
    while j + 1 < len(r.tokens) and r.tokens[j] in AUX | DETERMINERS | NEUTRAL | {"only"}:
        j += 1
    return j


def _noun_of_another_column(f: Form) -> list[Unplaced]:
    """ "what year did the champions have a 3-0 record?", "which swara holds the last
    position?": the noun the question asks for (`_noun_asked`) is a word of another
    column's name (Year, Swara), and of none the plan computes (Champion, Position): the
    answer names another thing than the one asked for."""
    r, plan = f.r, f.plan
    shown = r.table.columns.get(shown_column(plan) or "")
    j = _noun_asked(r)
    if shown is None or j < 0 or offers_choice(r.tokens):
        return []  # ("what has zip code 80110, downtown or dos?": one of the two is asked)
    asked = r.tokens[j]
    if asked in STOPWORDS | AUX | _OPERATION_WORDS | _OF_WORDS:
        return []
    if any(parts_of(asked)) and not is_noun(asked):
        return []  # a word the dictionary knows as no noun ("which came first")
    mine = forms(asked)
    beside = r.tokens[max(j - 1, 0) : j] + r.tokens[j + 1 : j + 3]
    if {x for t in beside for x in forms(t)} & _words_and_forms(shown):
        return []  # "the input/output format", "what single release": the shown's noun beside
    # what the plan computes, not what it filters by ("what year ... before 1983")
    computed = {plan.measure, plan.group_by, plan.other, shown.name} & set(r.table.columns)
    if any(mine & _words_and_forms(r.table.columns[str(c)]) for c in computed):
        return []  # "which psip is higher, A or B?": the noun is what the plan compares
    others = [
        c.name for c in r.table.columns.values()
        if c.name != shown.name and any(mine & forms(p) for p in c.parts)
    ]  # fmt: skip
    if not others:
        return []
    return [Unplaced(asked, f"'{asked}' asks for a {others[0]}, "
                            f"and the answer is {plan.describe()}")]  # fmt: skip


def _which_kind_is_answered(f: Form) -> list[Unplaced]:
    """ "which election had the most votes?" asks for an election: a Party names none,
    though the rule that a noun after "which" names the rows placed the word. The noun
    must be (a kind of) what the answer's column names, by WordNet: "which country"
    of Nation (a synonym), "which athlete" of Lifter (a lifter is an athlete), or
    kinds of one thing."""
    r, plan = f.r, f.plan
    i = _question_word(r, ("which", "what"))
    if i < 0 or i + 1 >= len(r.tokens):
        return []
    nouns = [
        t for t in r.tokens[i + 1 : i + 3]
        if t not in f.used and t not in GENERIC and t not in STOPWORDS and is_noun(t)
    ]  # fmt: skip
    shown = shown_column(plan)
    col = r.table.columns.get(shown or "")
    if not nouns or col is None or col.role not in ("label", "category", "id"):
        return []
    if r.tokens[i + 1] in f.used or any(_kind_of(n, col) for n in nouns):
        return []
    if any(forms(n) & _table_nouns(r) for n in nouns):
        return []
    if a_name_answers(nouns[0], r.table, col):  # "which lake": the rows' Name, whatever
        return []
    asked = nouns[0]
    why = f"'{r.tokens[i]} {asked}' asks for a {singular(asked)}, and the answer is a {col.name}"
    return [Unplaced(asked, why)]


def _kind_of(noun: str, col: Any) -> bool:
    """Whether ``noun`` and a word of ``col``'s name are one kind of thing in WordNet: the
    same word, synonyms, one a kind of the other, or kinds of one thing."""
    from .wordnet import hypernyms, synonyms

    mine, kinds = set(forms(noun)), set(hypernyms(noun, 2))
    for part in col.words | set(col.parts):
        theirs, their_kinds = set(forms(part)), set(hypernyms(part, 2))
        near = mine | kinds | set(synonyms(noun))
        if theirs & near or mine & (their_kinds | set(synonyms(part))) or kinds & their_kinds:
            return True
    return False


def _asks_to_choose(f: Form) -> list[Unplaced]:
    """ "which chapter was founded first, Zeta Eta or Zeta Omega?", "does Vitonen or
    Kutonen have the larger division?" ask to choose one of the values named: an answer
    that is not one of them (a count of both, yes or no) answers another question."""
    r, plan = f.r, f.plan
    if not offers_choice(r.tokens):
        return []
    joiner = "or" if "or" in r.tokens else "and"
    if joiner == "and" and not (r.up | r.down | MORE | FEWER) & set(r.tokens):
        return []  # "who is the manufacturer for A and B?": what both share, no choice
    choice = next(
        (f for f in (*plan.filters, *plan.condition)
         if f.op in ("in", "!=") and isinstance(f.value, tuple) and len(f.value) > 1),
        None,
    )  # fmt: skip
    if choice is None or shown_column(plan) == choice.column:
        return []
    if choice.op == "!=" and _negates_the_values(r, choice):
        return []  # "which ruler is not king or marquis?": the values negated, no choice
    which = r.tokens[0] in WHICH or any(t in WHICH for t in r.tokens[r.tokens.index(joiner) :])
    compared = r.tokens[0] in AUX and bool(r.up | r.down)
    if not (which or compared):
        return []
    values = choice.value if isinstance(choice.value, tuple) else (choice.value,)
    named = " or ".join(str(v) for v in values)
    return [Unplaced(joiner, f"it asks which of {named}, and the answer is {plan.describe()}")]


def _negates_the_values(r: Reading, test: Filter) -> bool:
    """Whether the negation of ``test`` stands right before its values ("not king or
    marquis"), not before a verb with the values offered apart ("not released in 2004,
    A or B?")."""
    negations = [i for i, t in enumerate(r.tokens) if t in NEGATION]
    values = [i for i, t in enumerate(r.tokens) if t in test.words and t not in NEGATION]
    return bool(negations and values) and 0 < min(values) - negations[-1] <= 2


def _both_offered(f: Form) -> list[Unplaced]:
    """ "Was it A or B that won at Misano?" is answered by the one the rows named hold;
    where they hold both (or the value is not one alone), neither answers it."""
    r, plan = f.r, f.plan
    if plan.op != "lookup" or r.options is None or plan.group_by != r.options:
        return []
    picked = _picked(f, plan.filters)
    held = set() if picked is None else {str(v) for v in picked[plan.group_by].dropna()}
    if len(held) == 1:
        return []
    if not held:
        return [Unplaced("or", "no row fits the rest of the question with either")]
    return [Unplaced("or", f"both {' and '.join(sorted(held))} fit the rest of the question")]


def _yes_or_no_to_a_choice(f: Form) -> list[Unplaced]:
    """ "is the sample size of Siena more or less than Quinnipiac's?", "did hydro power
    increase or decrease?" offer alternatives joined by "or": the answer is one of them,
    and yes or no answers neither."""
    if not isinstance(f.value, bool) or "or" not in f.r.tokens[1:-1]:
        return []
    i = f.r.tokens.index("or", 1)
    offered = f"{f.r.tokens[i - 1]} or {f.r.tokens[i + 1]}"
    return [Unplaced("or", f"it asks which of {offered}, and the answer is yes or no")]


def _same_as_rows_exist(f: Form) -> list[Unplaced]:
    """ "is the population of A the same as B's?", "is a water closet the same as a
    toilet?" compare two values; whether rows of A or B exist answers another question."""
    plan = f.plan
    if not isinstance(f.value, bool) or "same" not in f.r.tokens or plan.op != "exists":
        return []
    if not any(x.op == "in" for x in (*plan.filters, *plan.condition)):
        return []
    return [Unplaced("same", "it asks whether two values are the same, and the answer "
                             "tests whether such rows exist")]  # fmt: skip


def _same_as_another(f: Form) -> list[Unplaced]:
    """ "which team has the same score as Rah Ahan?" asks for the other rows that share
    one row's value: the answer that reads Rah Ahan's own score (or counts its rows)
    answers another question. "the same year as 1974" names the value itself: the
    plan that keeps the rows of that value of that column answers it."""
    r, plan = f.r, f.plan
    if "same" not in r.tokens or "as" not in r.tokens[r.tokens.index("same") :]:
        return []  # ("the same across all rows" asks whether one value holds everywhere)
    if r.same_as is not None:  # the named row's value read (`reading_same_row`)
        if plan.op == "values" and plan.group_by == r.same_as:
            return []  # the other rows' names: what is asked
        why = f"it asks for the other rows' {r.same_as}, and the answer is {plan.describe()}"
        return [Unplaced("same", why)]
    start = r.tokens.index("same") + 1
    end = r.tokens.index("as", start)
    compared = {x for w in r.tokens[start:end] if w not in STOPWORDS for x in forms(w)}
    for x in (*plan.filters, *plan.condition):
        col = r.table.columns.get(x.column)
        if x.op not in ("=", "in", "contains") or col is None:
            continue  # ("the same distance recorded" read as "a distance is recorded")
        if "same" in x.words or compared & set(col.words):
            return []  # the rows of that value of the compared column
    return [Unplaced("same", "it asks for the other rows that share one row's value, and "
                             "the answer reads that row's own")]  # fmt: skip


def _operation_as_value(f: Form) -> list[Unplaced]:
    """A filter read from an operation's own word ("how many total clubs": the value
    'Total' of Club): the word asked for the operation, not for the rows it names."""
    out = []
    for test in (*f.plan.filters, *f.plan.condition):
        if test.words and set(test.words) <= _OPERATION_WORDS:
            word = test.words[0]
            out.append(Unplaced(word, f"'{word}' names an operation, and the answer reads it "
                                      f"as {test.describe()}"))  # fmt: skip
    return out


#: What a question says to ask for each aggregation the plan may compute: a value is
#: stated only for an operation the question asks for ("when was the only 8th place?"
#: is no count, "what was the only song over 20 points?" no mean).
_ASKS_FOR: dict[str, frozenset[str]] = {
    "count": AGG_WORDS["sum"],  # "how many" or "number of" too (`_asks`)
    "sum": AGG_WORDS["sum"],
    **{agg: AGG_WORDS[agg] for agg in ("mean", "median", "std", "share")},
}


def _asks(r: Reading, agg: str) -> bool:
    """Whether a word of the question asks for ``agg``: its own words; "how many" also
    asks for a count or for the total of what is counted ("how many passengers")."""
    if agg in ("count", "sum") and HOW_MANY.search(" ".join(r.tokens)):
        return True
    return bool(_ASKS_FOR[agg] & set(r.tokens))


def _not_asked(f: Form) -> list[Unplaced]:
    """The plan's aggregation, when no word of the question asks for it: an answer of
    another kind than the question's. A mean over one row is that row's value."""
    r, plan, rows = f.r, f.plan, f.rows
    if plan.op != "aggregate" or plan.combine is not None:
        return []
    if plan.agg == "nunique" and rows <= 1 and plan.filters:
        # "how many riders does the Skater model include?": the number is in the row
        why = f"they are counted in one row, where {plan.measure} holds one value"
        return [Unplaced(f"the distinct {plan.measure} values", why, asked=False)]
    agg = "count" if plan.measure is None and plan.agg in ("sum", "count") else plan.agg
    # a mean over one row is that row's value, unless the row was picked by that value
    # ("the only song over 20 points": its 31 points restate the comparison)
    compared = any(x.column == plan.measure and x.op in COMPARING for x in plan.filters)
    if (
        agg not in _ASKS_FOR
        or _asks(r, agg)
        or (agg in ("mean", "median") and rows == 1 and not compared)
    ):
        return []
    col = r.table.columns.get(plan.measure or "")
    if agg == "sum" and col is not None and default_agg(col) == "sum":
        return []  # "what were Asia-Pacific's sales?": an amount adds up unasked
    if agg == "sum" and "long" in r.tokens and any(d.name == plan.measure for d in plan.derive):
        return []  # "how long was X in office": the years of each term add up
    what = "a count" if agg == "count" else f"a {AGG_NAME.get(agg, agg)}"
    return [Unplaced(what, f"no word of the question asks for {what}", asked=False)]


def _rows_or_kinds(f: Form) -> list[Unplaced]:
    """ "how many opponents are listed?": the rows that name an opponent (8), or the
    opponents they name (5)? Where the two differ and no word says "different", the
    question does not say which it counts, and neither number is stated. So too for a
    count of rows whose noun names a column ("how many sports had silver medals": 10
    rows, 4 sports)."""
    plan = f.plan
    if plan.op != "aggregate" or plan.combine is not None or plan.group_by2 is not None:
        return []
    if AGG_WORDS["nunique"] & set(f.r.tokens) or _rows_named(f.r.table):
        return []  # "penguins": the species are no penguins
    counted = _kinds_counted(f)
    if counted is None:
        return []
    column, rows, kinds = counted
    col = f.r.table.columns.get(column)
    if col is None or col.role == "id" or "id" in col.parts or col.listy:
        return []  # ids name things one each
    if kinds >= rows:
        return []
    why = (
        f"it counts {rows} rows or {kinds} different {column} values, and does not"
        " say which ('how many different ...' counts the values)"
    )
    return [Unplaced("how many", why)]


def _kinds_counted(f: Form) -> tuple[str, int, int] | None:
    """The column a count may count the kinds of, the rows counted, and the kinds among
    them: a count of distinct values, or a count of rows whose noun names a column."""
    plan = f.plan
    if plan.agg == "nunique" and plan.measure is not None:
        return (plan.measure, f.rows, f.value) if isinstance(f.value, int) else None
    if plan.agg != "count" or plan.measure is not None:
        return None
    # the rows' noun names a column of kinds, not of names (a name a few rows share,
    # "two stadiums named Bloomfield", names two stadiums) nor a time ("how many years")
    nouns = {w for part, ws in plan.words if part == "rows" for w in ws} - OCCURRENCES
    table = f.r.table
    named = [
        c
        for c, (_, ws) in f.r.named.items()
        if ws & nouns and c not in plan.columns() and _kinds(table.columns[c], table)
    ]
    picked = _picked(f, plan.filters) if len(named) == 1 else None
    if picked is None:
        return None
    return named[0], len(picked), int(picked[named[0]].nunique(dropna=False))


def _kinds(col: Column, table: Table) -> bool:
    """Whether ``col`` holds kinds the rows fall into: text whose values repeat, each
    over two rows or more on average (a sport, a competition; not a stadium's name,
    which a few rows share)."""
    return col.role not in ("time", "id") and not col.numeric and 2 * col.nunique <= len(table.df)


def _rows_named(table: Table) -> bool:
    """Whether the table's name says what its rows are (``penguins``, ``sales``; not
    ``df``): a count of another noun then counts that noun's values."""
    return any(len(w) > 2 and is_noun(w) for w in phrase(table.name).split())


def _statistic_not_taken(f: Form) -> list[Unplaced]:
    """A mean, median or standard deviation the question asks for and no part of the
    plan takes: "the average monthly income" of a table with no income, read as the
    month with the most rows."""
    taken = {p.agg for p in _parts(f.plan)}
    for agg in ("mean", "median", "std"):
        asked = [t for t in f.r.tokens if t in AGG_WORDS[agg] and t not in f.used]
        if asked and agg not in taken:
            name = AGG_NAME.get(agg, agg)
            return [Unplaced(asked[0], f"it asks for a {name}, and the plan takes none")]
    return []


def _total_not_taken(f: Form) -> list[Unplaced]:
    """ "the total role in 2008", "the total design variations with vacuum brakes": a
    total (of a measure, or of rows) that the plan reads off a row instead of adding up
    ("the first of the 2 rows where Brakes vacuum")."""
    # "the first two games": rows picked by their place, listed, are added up too
    picked = bool(f.plan.filters) or (f.plan.op == "values" and f.plan.k > 1)
    if f.plan.op not in ("lookup", "values", "distinct") or not picked or f.rows < 2:
        # an extreme or a rank orders by the total ("the highest total points"); one
        # row's cell may be a running total ("the total attendance in the last week")
        return []
    asked = [t for t in f.r.tokens if t in AGG_WORDS["sum"] and t not in f.used]
    if not asked:
        return []
    return [Unplaced(asked[0], "it asks for a total, and the answer reads a row's cell")]


#: The aggregations that take an end of an order: what a superlative asks for.
_ORDERING = frozenset(("max", "min", "range", "nth", "mode", "streak"))


def _superlative_not_applied(f: Form) -> list[Unplaced]:
    """A superlative ("before 1990, the highest percentage of the vote") that no part of
    the plan applies: an answer with no order in it (a share of the rows) is the answer
    to another question. A superlative inside a value or a column's name is placed by it;
    one inside a comparison ("at least 5") by the filter."""
    plan, r = f.plan, f.r
    parts = _parts(plan)
    if {p.op for p in parts} & _ORDERS or {p.agg for p in parts} & _ORDERING:
        return []
    placed = {w for x in (*plan.filters, *plan.condition) for w in x.words}
    cols = [r.table.columns[c] for c in plan.columns() if c in r.table.columns]
    placed |= {w for c in cols for w in c.words} | {w for c in cols for w in phrase(c.name).split()}
    tokens = r.tokens
    for i, t in enumerate(tokens):
        superlative = _superlative(t)
        hedged = t in _MOST_LEAST and tokens[i - 1 : i] == ["at"]  # "at least how many"
        hedged |= bool(set(tokens[i + 1 : i + 2]) & placed)  # "a top speed over 100": Max Speed
        if superlative and t in r.up | r.down and t not in placed and not hedged:
            return [Unplaced(t, "it asks for an extreme, and the answer orders nothing")]
    return []


def _extreme_value_asked(f: Form) -> list[Unplaced]:
    """ "what is the shortest time ...?", "what is the largest amount of seats?": a
    superlative whose noun names the measure asks for its value; a row's name ("7983
    has the lowest Time") answers "which". ("what is the highest city in altitude?" asks
    for a city: its noun names the row.)"""
    r, plan = f.r, f.plan
    shown = shown_column(plan)
    if plan.op not in ("extreme", "rank") or plan.measure is None or shown in (None, plan.measure):
        return []
    tokens = r.tokens
    if len(tokens) < 5 or tokens[0] != "what" or tokens[1] not in AUX or tokens[2] != "the":
        return []
    if tokens[3] not in r.up | r.down:
        return []
    if offers_choice(tokens):
        return []  # "what is the larger laps, 1963 or 1968?": one of the two is asked for
    j = 4  # the phrase's head: "the top grossing film", "the largest amount of seats listed"
    while j < len(tokens) and tokens[j] in _OPERATION_WORDS | QUANTITIES | {"of"}:
        j += 1
    phrase_ = list(itertools.takewhile(lambda t: t not in STOPWORDS, tokens[j:]))
    noun = next((t for t in reversed(phrase_) if is_noun(t)), "")
    named = r.named.get(plan.measure, (0, set()))[1]
    if noun and noun in named:
        said = " ".join(tokens[: tokens.index(noun) + 1])
        return [Unplaced(noun, f"'{said}' asks for the {plan.measure}, and the answer is "
                               f"the {shown} of a row")]  # fmt: skip
    return []


def _order_unasked(f: Form) -> list[Unplaced]:
    """ "what many games does each episode have?", "what was the difference in attendance
    from week 1 and week 12?": a plan that ranks the groups, or picks the row with an
    extreme, answers "which has the most"; a question with no word that orders (a
    superlative or comparative, "first", "top", "record", "won") asks something else.
    Over the rows a filter picks, the top group is the one those rows share ("X and Y
    both came from which country?"), which needs no order to be asked for; a rank of every
    group ("the total units by region") lists them all, and the groups with so many rows
    ("which names appear exactly 5 times?") are picked by a count, not an order. "Which
    nations earned at least 5 silver medals?" asks for every nation over the bound, not
    the one with the most."""
    plan, r = f.plan, f.r
    if plan.op not in ("rank", "extreme") or plan.each or plan.having:
        return []
    if any(x.op in _NAMES_A_VALUE for x in plan.filters):
        return []  # the group the named rows share
    if plan.filters and _rows_picked(f, plan.filters) == 1:
        return []  # "which province has a density under 30?": the one row that has
    # "at least 5": a bound the filter applies, no extreme asked for
    words = [t for t in r.tokens if t not in r.bound_words | r.spent]
    if any(r.side(t) or _superlative(t) or t in _ASKS_ORDER for t in words):
        return []
    end = "highest" if plan.order == "desc" else "lowest"
    what = plan.measure or "rows"
    why = "no word of the question asks for an extreme or an order"
    return [Unplaced(f"the {end} {what}", why, asked=False)]


#: The operations that order (a lookup or a list reads the table's order or its top k).
_ORDERS = frozenset(("extreme", "rank", "trend", "compare", "lookup", "values", "distinct"))


def _parts(plan: Plan) -> list[Plan]:
    """The plan and the plans inside it (the value a compare tests, the other side)."""
    out, stack = [], [plan]
    while stack:
        p = stack.pop()
        out.append(p)
        stack += [s for s in (p.of, p.versus) if s is not None]
    return out


#: "most" and "least", which make a bound after "at" ("at least 5").
_MOST_LEAST = vocabulary.words("most_least")


def _superlative(word: str) -> bool:
    return word.endswith("est") or word in RANKING  # "most", "top", "maximum"


#: Words beyond the superlatives and `Reading.side`'s ends that ask for an order:
#: places, ranks and winners.
_ASKS_ORDER = vocabulary.words("order_asking_words")


def _than_a_kept_value(f: Form) -> list[Unplaced]:
    """ "the only province with a higher population than Malaga" compares the rows with
    Malaga's: a plan that keeps only Malaga's rows reads the word as their value."""
    t = f.r.tokens
    if f.plan.versus is not None:
        return []  # "how many more A than B": the two sides apart, as asked
    for x in (*f.plan.filters, *f.plan.condition):
        if x.op != "=" or not x.words or x.words[0] not in t:
            continue
        i = t.index(x.words[0]) - 1
        while i >= 0 and t[i] in DETERMINERS:
            i -= 1
        if i >= 0 and t[i] == "than":
            why = f"'than {x.words[0]}' compares with its row, and the answer keeps only it"
            return [Unplaced(x.words[0], why)]
    return []


def _distinct_of_missing(f: Form) -> list[Unplaced]:
    """ "how many aircraft were forced to land": no distinct Aircraft among 3 rows that
    match says their cells are empty, not that none was (missing values are said,
    never counted as none)."""
    if f.plan.op != "aggregate" or f.plan.agg != "nunique" or f.value != 0 or f.rows < 1:
        return []
    why = f"the {f.rows} rows it counts have no {f.plan.measure} value: missing, not none"
    return [Unplaced(str(f.plan.measure), why)]


def _difference_of_unasked_counts(f: Form) -> list[Unplaced]:
    """ "the difference in tonnes between the Malabar class and the UT507 class" asks for
    a difference of a measure: the difference of the two classes' numbers of rows (1
    and 1) answers how many more rows one has, which no word asked."""
    plan = f.plan
    if plan.combine not in ("difference", "gap") or plan.versus is None:
        return []  # a ratio of two counts is asked by its own word
    sides = (plan, plan.versus)
    if any(p.measure is not None or p.agg not in ("count", "sum") for p in sides):
        return []
    if _asks(f.r, "count") or vocabulary.words("count_difference_words") & set(f.r.tokens):
        return []
    return [Unplaced("a count", "no word of the question asks for a count", asked=False)]


#: The nouns of a sum: "the total of", "the sum of".
_SUM_OF = frozenset(("total", "sum"))


def _a_share_for_how_many(f: Form) -> list[Unplaced]:
    """ "how many nations share the seventh rank?" asks for a number of rows: their share
    of all rows (33.3 %) answers "what share". A question that says its unit ("how many
    percent", "how many per cent") asks for one."""
    r = f.r
    if f.plan.agg != "share" or "how many" not in " ".join(r.tokens):
        return []
    if set(r.tokens) & (AGG_WORDS["share"] - {"share"} | {"cent"}) or "%" in r.text:
        return []
    return [Unplaced("how many", "it asks for a number of rows, and the answer is a share")]


def _a_list_for_how_many(f: Form) -> list[Unplaced]:
    """ "how many teams are in the top five positions?" asks for a number: the five teams
    themselves answer another question. So does "what is the total of the first two core
    diameters?": the two diameters are not their total."""
    text = " ".join(f.r.tokens)
    if not isinstance(f.value, list) or " and " in text:
        return []  # (not "how many ... and which ...?")
    if "how many" in text:
        why = f"it asks for a number, and the answer is {len(f.value)} values"
        return [Unplaced("how many", why)]
    t = f.r.tokens  # "the total of ..." ("the top 3 total points" lists totals)
    summed = [w for w, nxt in itertools.pairwise(t) if w in _SUM_OF and nxt == "of"]
    if summed and f.plan.op != "rank":  # (not "the teams with the highest total")
        why = f"'{summed[0]}' asks for one number, and the answer is {len(f.value)} values"
        return [Unplaced(summed[0], why)]
    return []


def _in_the_top(f: Form) -> list[Unplaced]:
    """ "who was the last player in the top 10?": "in the top 10" places the rows among
    the top ten; the ten themselves answer "which players are the top 10?", not what
    the question asks of them."""
    t = f.r.tokens
    placed = any(
        t[i] in ("in", "within", "into") and t[i + 1 : i + 3] == ["the", "top"]
        for i in range(len(t) - 2)
    )
    if not placed or not isinstance(f.value, list) or len(f.value) < 2 or f.plan.k < 2:
        return []
    return [Unplaced("top", "'in the top' places the rows; what it asks of them is not read")]


def _only_one(f: Form) -> list[Unplaced]:
    """ "the only team whose ..." says one row matches: where several do, the reading is
    not the question's (its premise fails), and no list of them answers it. Nor does a
    number of rows: "what is the number of the only locomotive withdrawn before 1945?"
    says there is one, and asks for its Number."""
    r, value = f.r, f.value
    said = any(a == "the" and b == "only" for a, b in zip(r.tokens, r.tokens[1:], strict=False))
    if said and f.plan.op == "aggregate" and f.plan.agg == "count":
        return [Unplaced("only", "the question says there is one, and asks for more than how many")]
    distinct = len({str(v) for v in value}) if isinstance(value, list) else 1
    if said and distinct > 1:
        why = f"the question says only one, and {distinct} match what was read"
        return [Unplaced("only", why)]
    return []


def _adds_up_row_numbers(f: Form) -> list[Unplaced]:
    """A column that numbers the rows (1, 2, ..., n down the table: "No.", "#", a rank;
    or games 75, 76, ... 82 of a season), or the rows of each group (1, 2, ... for the
    winners, 1, 2, ... for the runners-up), has no total and no mean that means anything
    ("55 is the total No." of the winners), whether it is stated, ranks the groups
    ("the month with the lowest mean Game") or compares two sides ("the mean Round
    where Raymond Roche won")."""
    if f.plan.op in ("rank", "compare") and len(f.r.table.df) < _FEW_TO_LABEL:
        return []  # a measure of 1, 2, 3, 4 in four rows is as likely as a label
    for plan in _adding(f.plan):
        assert plan.measure is not None
        col = f.r.table.columns.get(plan.measure)
        if col is None or not col.numeric:
            continue  # (a derived column, computed by the plan)
        head = f.r.table.df[plan.measure].head(_GLANCE).dropna()
        if not bool((head % 1 == 0).all()):
            continue  # fractions: amounts, not labels (seen in the first rows: 10⁶ unread)
        if _one_row_each(f, plan):
            continue  # "the difference in pick numbers between A and B": each side's own
        what = f"the {AGG_NAME.get(plan.agg, plan.agg)} {plan.measure}"
        if plan.agg == "share":
            what = f"the share of {plan.measure}"
        numbered = _numbers_rows(f.r.table, plan.measure)
        if numbered is not None:
            return [Unplaced(what, f"{plan.measure} numbers {numbered}", asked=False)]
        # (a share of a measure's total is of its sum: "50.2 % of the total Election")
        adds = plan.agg in ("sum", "share")
        places = _places_or_years(f.r.table, plan.measure) if adds else None
        if places is not None:
            return [Unplaced(what, f"{plan.measure} holds {places}, which add up to nothing")]
        groups = _labels_groups(f.r.table, plan.measure)
        if groups is not None:
            why = f"{plan.measure} numbers {groups}; 'how many different' counts them"
            return [Unplaced(what, why, asked=False)]
        counted = _counts_down(f.r.table, plan.measure)
        if counted is not None:
            return [Unplaced(what, f"{plan.measure} numbers {counted}", asked=False)]
    return []


#: The first rows a check reads before it reads a whole column.
_GLANCE = 1_000
#: The fewest rows whose numbers, counting down the table, are read as the rows' labels
#: where groups are ranked or two sides compared by them.
_FEW_TO_LABEL = 8


def _one_row_each(f: Form, plan: Plan) -> bool:
    """Whether ``plan`` reads the numbers one row at a time, as labels: it ranks groups of
    one row each ("the team with the highest pick"), or it is one side, of one row, of
    a difference or a comparison ("the difference in pick numbers between A and B").
    The total of one row's label alone ("how many goals against Nigeria?" as the Goal
    that numbers that row) still answers nothing."""
    table = f.r.table
    if plan.op == "rank":
        col = table.columns.get(plan.group_by or "")
        one = col is not None and col.nunique == len(table.df)
        return plan.group_by2 is None and plan.period is None and one
    # one side of a difference or a comparison; or the row's own label asked for
    # ("which ranking is Mexico?"), where no word asks to add up or count
    sides = f.plan.op == "compare" or f.plan.combine is not None
    adds = HOW_MANY.search(" ".join(f.r.tokens)) or f.r.cues & (
        AGG_WORDS["sum"] | AGG_WORDS["mean"]
    )
    return (sides or not adds) and _rows_picked(f, plan.filters) == 1


def _adding(plan: Plan) -> list[Plan]:
    """The parts of ``plan`` that add up, average or share out a measure: the plan itself
    (a value, or the groups' values it ranks), or the two sides it compares."""
    parts = [plan.of, plan.versus] if plan.op == "compare" else [plan]
    return [
        p
        for p in parts
        if p is not None
        and p.op in ("aggregate", "rank")
        and p.measure is not None
        and p.agg in ("sum", "mean", "share")
    ]


#: The parts of a column's name that say its numbers place or label the rows.
_PLACING = vocabulary.words("placing_name_parts")


def _places_or_years(table: Any, name: str) -> str | None:
    """What column ``name`` holds where its numbers place or label the rows rather than
    count anything: ranks or numbers by its name ("Position", "Yard no.", "STS Number";
    "No. of reigns" counts), or years by its values (an "Election" of 1961, 1966, ...)."""
    col = table.columns.get(name)
    if col is None or not col.numeric:
        return None
    parts = set(col.parts)
    counts = "of" in parts or re.search(r"\bof\b", name.lower()) is not None  # "# of votes"
    if not counts and (parts & _PLACING or "#" in name or col.parts[-1:] == ("number",)):
        return "places or numbers"
    if table.df[name].count() > 1 and holds_years(table.df[name]):
        return "years"
    return None


def _numbers_rows(table: Any, name: str) -> str | None:
    """What column ``name`` numbers, where it counts 1, 2, 3 ... down the table ("the rows
    1 to 32"), or down the rows of each value of a text column ("the rows of each
    Outcome"); None where it does not (the profile first: a column read from text
    such as "1." is numbered too, though its cells were no integers)."""
    import numpy as np

    values = _whole_from_one(table, name)
    if values is None:
        return None
    n = len(values)
    if np.array_equal(values.to_numpy(dtype=float), np.arange(1, n + 1)):
        return f"the rows 1 to {n}"  # whatever its name ("Points" 1 to 9 is no total)
    for other in table.columns.values():
        if other.role != "category" or other.name == name or not 1 < other.nunique < n / 2:
            continue
        groups = values.groupby(table.df[other.name], sort=False)
        if all(
            np.array_equal(g.to_numpy(dtype=float), np.arange(1, len(g) + 1)) for _, g in groups
        ):
            return f"the rows of each {other.name}"
    return None


def _counts_down(table: Any, name: str) -> str | None:
    """ "the rows 75 to 82" where column ``name`` counts down the table one by one, from
    wherever it starts (a season's games 75 to 82, a list's numbers 1 to 32), skipping
    a few at most; under a name in the singular, as a label's ("Game"; "Goals" 1, 2,
    3 ... would count)."""
    import numpy as np

    col = table.columns.get(name)
    last = phrase(name).split()[-1:]
    if col is None or not col.numeric or not last or singular(last[0]) != last[0]:
        return None
    values = table.df[name]
    if len(values) < _FEW_TO_LABEL or values.isna().any() or not (values % 1 == 0).all():
        return None  # (prices 3, 4, 5, 6 of four dishes: as likely amounts)
    steps = np.diff(values.to_numpy(dtype=float))
    if (steps > 0).all() and float(np.mean(steps == 1)) >= 0.8:
        return f"the rows {int(values.iloc[0])} to {int(values.iloc[-1])}"
    return None


def _labels_groups(table: Any, name: str) -> str | None:
    """What column ``name`` labels where it reads 1, 1, 2, 4, 4, 5 ... down the table: the
    rows' groups in order (a draft's rounds, the constituencies of their members), each
    number held by the rows of its group, under a name in the singular (a label's)."""
    import numpy as np

    last = phrase(name).split()[-1:]
    if not last or singular(last[0]) != last[0]:
        return None  # "Goals" 1, 2, 2, 3 counts: a plural names a quantity
    values = _whole_from_one(table, name)
    if values is None or values.max() >= len(values):
        return None
    steps = np.diff(values.to_numpy(dtype=float))
    if bool((steps >= 0).all()) and bool((steps == 0).any()):
        return f"the rows' groups in order, 1 to {int(values.max())}"
    return None


def _whole_from_one(table: Any, name: str) -> Any:
    """Column ``name``'s cells where they are whole numbers from 1, none missing (three
    rows at least): what numbers the rows or their groups; else None."""
    col = table.columns.get(name)
    if col is None or not col.numeric or len(table.df) < 3:
        return None
    values = table.df[name]
    if values.isna().any() or not bool((values % 1 == 0).all()) or values.min() != 1:
        return None
    return values


def _totals_what_it_compares(f: Form) -> list[Unplaced]:
    """ "how many results were at least 45?" counts the rows whose value meets the
    comparison: the total of those values ("273.455 is the total Result where Result
    at least 45") answers another question."""
    r, plan = f.r, f.plan
    if plan.op != "aggregate" or plan.agg != "sum" or plan.measure is None:
        return []
    if not HOW_MANY.search(" ".join(r.tokens)):
        return []
    if not any(x.column == plan.measure and x.op in COMPARING for x in plan.filters):
        return []
    why = f"'how many' counts the rows whose {plan.measure} meets the comparison, not its total"
    return [Unplaced(f"the total {plan.measure}", why, asked=False)]


def _counts_a_named_row(f: Form) -> list[Unplaced]:
    """ "how many people live in Micoud?" on a table with one row per place: the rows
    whose name is Micoud are one, always; the question asks for a number in that row,
    and a count of the rows (or of their values: "the number of visitors at
    Hiidenportti") answers nothing. So does the difference of two such counts ("how
    many more strokes were in the KLM Open than the Scottish Open?": 1 - 1)."""
    plan = f.plan
    if plan.versus is None:
        why = _named_rows(f, plan, f.value)
    elif plan.combine in ("difference", "gap"):
        sides = [_named_rows(f, p, _rows_picked(f, p.filters)) for p in (plan, plan.versus)]
        why = sides[0] if all(sides) else None
    else:
        why = None
    return [] if why is None else [Unplaced("how many", why)]


def _picked(f: Form, filters: tuple[Filter, ...]) -> Any:
    """The rows of the profiled table ``filters`` pick (None: not computable)."""
    try:
        return rows_where(f.r.table.df, filters)
    except PlanError:
        return None


def _rows_picked(f: Form, filters: tuple[Filter, ...]) -> int | None:
    """How many rows of the profiled table ``filters`` pick (None: not computable)."""
    picked = _picked(f, filters)
    return None if picked is None else len(picked)


def _named_rows(f: Form, plan: Plan, value: Any) -> str | None:
    """Why ``plan`` (computed to ``value``, None where unknown) counts the rows, or their
    values, that names pick one by one; None where it counts anything else."""
    if plan.op != "aggregate" or plan.agg not in ("count", "nunique"):
        return None
    table = f.r.table
    n = len(table.df)
    for test in plan.filters:
        col = table.columns.get(test.column)
        if test.op not in ("=", "in") or col is None:
            continue
        # a year names its row as a name does: "how many games were awarded in 2014?" of
        # a table with a row per year counts that year's one row, and asks for a value of it
        year = col.numeric and holds_years(table.df[test.column])
        if not year and (col.numeric or col.role not in _NAMING):
            continue
        # a name a few rows share ("River-class" twice among 46 ships) still names rows
        # one by one: the row named here is one, and the rows of two names named are two
        names = test.value if isinstance(test.value, tuple) else (test.value,)
        own = col.nunique == n or (value == len(names) and col.nunique >= _OWN_NAMES * n)
        if n > 1 and own:
            named = " or ".join(map(str, names))
            one = "are one" if len(names) == 1 else f"are {len(names)}, one each"
            return f"each row has its own {test.column}: the rows named {named} {one}"
    return None


def _counts_no_row_of_its_values(f: Form) -> list[Unplaced]:
    """ "how many champions were there in the 2000 - 2005 seasons?" read as the rows whose
    Season holds 2000 and holds 2005; "how many awards did Chicago win in 1997?" as the
    rows whose Title is Chicago and whose Opening is 1997. Each value the question names
    picks rows of its own, and no row holds them all: the reading has joined what the
    question did not (a range read as two values, a name and a year of two different
    things), and 0 would be a guess stated as a count. A value no row holds at all ("the
    2010-11 season" where only 2012-13 is listed) and a bound no row meets ("heavier
    than 10 kg") are counts of 0."""
    plan, table = f.plan, f.r.table
    if plan.op != "aggregate" or plan.agg != "count" or plan.measure is not None:
        return []
    named = [x for x in plan.filters if x.op in _NAMES_A_VALUE]
    if f.value != 0 or not named or plan.versus is not None or plan.combine is not None:
        return []
    if not all(_rows_picked(f, (x,)) for x in named):
        return []  # a value no row holds (0), or one not computable (None)
    both = " and ".join(x.phrase() for x in named)
    why = f"no row of {table.name} has {both}, though each picks rows of its own"
    return [Unplaced("how many", why)]


#: The tests that name a value the rows hold, not a bound they meet.
_NAMES_A_VALUE = ("=", "in", "contains", "startswith")


_NAMING = ("label", "id", "category")
#: The share of rows with a name of their own that makes a column the rows' names.
_OWN_NAMES = 0.9


def _ranks_by_rows_unasked(f: Form) -> list[Unplaced]:
    """ "what is the top speed?", "which party won the top place?": a superlative of a
    quality ranks by a value. Ranking the groups by how many rows hold each answers "how
    often", which only a word of quantity asks ("the most", "the largest number of",
    "how many times", "the most common")."""
    plan, r = f.plan, f.r
    if plan.op != "rank" or plan.measure is not None or plan.agg != "count":
        return []
    # "what team is first on the list?": first in the table's order, not by its rows
    marks = [t for t in r.tokens if t in r.up | r.down or t in vocabulary.words("first_last")]
    text = " ".join(r.tokens)
    if not marks or set(r.tokens) & (_HOW_OFTEN | AGG_WORDS["sum"]):
        return []
    if r.expect == "list" and (r.k or 0) > 1:
        return []  # "the top 5 categories": a category has no value but its rows
    if HOW_MANY.search(text) or MODE.search(text):
        return []
    why = f"'{marks[0]}' ranks by a value, and the answer ranks {plan.group_by} by its rows"
    return [Unplaced(marks[0], why)]


#: The words of quantity that ask how often: the superlatives and comparatives of
#: "many" and "few", and the count's own nouns and adverbs.
_HOW_OFTEN = vocabulary.words("how_often_words")


def _total_of_each(f: Form) -> list[Unplaced]:
    """ "Zé Roberto and Emerson each scored how many goals?", "A and B both received how
    many bids?", "A and B have the same GDP of?": the value each named row holds, which
    their total is not."""
    plan = f.plan
    if plan.op != "aggregate" or plan.agg != "sum":
        return []
    said = [t for t in f.r.tokens if t in _EACH_OF]
    named = any(x.op == "in" for x in plan.filters)
    own = set(phrase(plan.measure or "").split())  # "the same Total GDP": a name's word
    if not said or not named or (set(f.r.tokens) & AGG_WORDS["sum"]) - own:
        return []  # "both teams' points combined": their total
    why = f"'{said[0]}' asks for what each named row holds, and the answer is their total"
    return [Unplaced(said[0], why)]


#: The words that ask for the value each of several named rows holds.
_EACH_OF = vocabulary.words("each_of_words")


def _bound_read_as_equal(f: Form) -> list[Unplaced]:
    """ "how many years did they place 15th or lower?", "how many games did not have at
    least 15,000 in attendance?": the comparison makes the value a bound, and the rows
    whose cell is exactly that value answer another question. (Which places are lower
    depends on the measure: a standing's lower places are its larger numbers.)"""
    t = f.r.tokens
    for test in (*f.plan.filters, *f.plan.condition):
        if test.op not in ("=", "!="):
            continue
        words = [w for w in test.words if w in t and w not in NEGATION]
        number = isinstance(test.value, (int, float)) or read_cell(test.value).number is not None
        if not words or not number:
            continue  # (a name is no bound: "the team after Santa Clara" is a neighbour)
        first, last = t.index(words[0]), len(t) - 1 - t[::-1].index(words[-1])
        bound = ""
        after = t[last + 2] if t[last + 1 : last + 2] == ["or"] and last + 2 < len(t) else ""
        if after and (f"or {after}" in _OR_BOUNDS or f.r.side(after)):
            bound = f"or {after}"  # "or more"; "or lower", whose way depends on the measure
        for phrase_, op in COMPARATORS:
            said = phrase_.split()
            if op != "=" and t[max(0, first - len(said)) : first] == said:
                bound = bound or phrase_
        if bound:
            why = f"'{bound}' makes {test.value} a bound, and the answer reads exactly {test.value}"
            return [Unplaced(bound, why)]
    return []


#: The bounds a value's "or" phrase sets ("5 or more", "2 or fewer").
_OR_BOUNDS = frozenset(p for p, _ in COMPARATORS if p.startswith("or "))


def _counts_tied(f: Form) -> list[Unplaced]:
    """ "which album produced the most singles?" asks for one album. Ranked by how many
    rows each holds, two tie at 8: the rows are a proxy for what is counted (singles,
    appearances, wins), and a tie on the proxy does not say which the question means.
    The reply names the tie instead of stating both as the one asked for (a ranking by
    a value of the rows' own, "the tallest model", states its tie)."""
    plan, value = f.plan, f.value
    if plan.op != "rank" or plan.measure is not None or plan.agg != "count":
        return []
    if plan.k != 1 or plan.listed or f.r.expect == "list" or not isinstance(value, list):
        return []
    if len(value) < 2:
        return []
    shown = ", ".join(str(v) for v in value[:5]) + (", …" if len(value) > 5 else "")
    most = "most" if plan.order == "desc" else "fewest"
    why = f"it asks for one {plan.group_by}, and {len(value)} tie for the {most} rows: {shown}"
    marks = [t for t in f.r.tokens if t in f.r.up | f.r.down | _HOW_OFTEN]
    return [Unplaced(marks[0] if marks else f"the {plan.group_by}", why)]


def _measures_text_unasked(f: Form) -> list[Unplaced]:
    """ "who was the longest head coach?", "which is longer, the Carolina or the Kentucky
    race?" measure a tenure or a distance, not the characters of a cell. A text's length
    answers a question that says its unit (letters, characters, words) or measures a
    name, a title or a text, which is what has a length in characters."""
    texts = [d for d in f.plan.derive if d.op in ("length", "words")]
    if not texts or set(f.r.tokens) & _TEXT_UNITS:
        return []
    col = f.r.table.columns.get(texts[0].column)
    if col is not None and set(col.parts) & _TEXTS:
        return []
    what = texts[0].name
    return [
        Unplaced(
            what,
            f"no word of the question measures text, and the answer is the {what}",
            asked=False,
        )
    ]


#: The units of a text's length, and the columns whose cells are texts to be measured.
_TEXT_UNITS = vocabulary.words("text_length_units")
_TEXTS = vocabulary.words("text_column_names")


def _counts_rows_of_another_kind(f: Form) -> list[Unplaced]:
    """ "how many wins?" read as the number of rows: a count of rows answers "how many X"
    only where each row is one X. X names the table ("cars" of cars), a column that
    tells the rows apart ("players" of Player, "athletes" of Lifter Name, or a column
    the user's context describes so); "how many times" counts the rows themselves.
    Where X names another column, a row is something else that holds X ("the total
    number of wins" over 17 tournaments with a W-L column is not 17; "how many teams"
    over matches with a Team column); where X names nothing, the rows may be X or not."""
    plan, table = f.plan, f.r.table
    if plan.op != "aggregate" or plan.agg != "count" or plan.measure is not None:
        return []
    counted = dict(plan.words).get("rows", ())
    if not counted or counted[-1] in OCCURRENCES:
        return []
    word = counted[-1]
    if word in {w for x in plan.filters for w in x.words}:
        return []  # "more bronze medals than Sweden": the filter's own noun
    counting = counting_columns(word, table)
    if counting:  # "how many medals did Chile win?" over Gold and Silver counts
        why = f"{' and '.join(counting[:3])} count {word}: the rows of {table.name} do not"
        return [Unplaced(word, why)]
    mine = forms(word)
    if mine & {singular(w) for w in phrase(table.name).split()}:
        return []
    naming = row_name_columns(word, table)
    if any(c.role != "measure" for c in naming):
        return []
    if plan.filters or plan.condition:
        # the filter's words say which rows: what they are matters less, unless a column
        # of whole amounts is named for X, right after "how many" ("how many votes ..."
        # over a Votes column)
        at = f.r.tokens.index(word) if word in f.r.tokens else 0
        while at > 1 and f.r.tokens[at - 1] in AGG_WORDS["sum"]:  # "how many total points"
            at -= 1
        if at == 0 or f.r.tokens[at - 1] not in ("many", "of"):
            return []
        used = {p for c in plan.columns() if c in table.columns for p in table.columns[c].parts}
        numbers = [
            c.name
            for c in table.columns.values()
            if c.role == "measure" and c.integer and mine & set(c.parts) and not mine & used
        ]
        if numbers:
            why = f"{numbers[0]} holds the number of {word}: the rows do not count them"
            return [Unplaced(word, why)]
        if _a_unit(word):  # "how many points were scored": an amount, no row is a point
            return [Unplaced(word, f"{word} measure an amount: no row is one {singular(word)}")]
        return []
    if naming:  # one whole number per row, such as an EmployeeNumber
        return []
    held = [c.name for c in table.columns.values() if mine & c.words]
    why = (
        f"{held[0]} holds {word}: a count of the rows of {table.name} does not count them"
        if held
        else f"nothing says each row of {table.name} is one {singular(word)} (a table "
        f"named for its rows, `{word} = {table.name}`, says so)"
    )
    return [Unplaced(word, why)]


def _a_unit(word: str) -> bool:
    """Whether ``word`` names a unit of measurement in WordNet (points, miles, dollars)."""
    from .wordnet import hypernyms

    return "unit of measurement" in hypernyms(singular(word), 4)


def _names_a_placeholder(f: Form) -> list[Unplaced]:
    """ "which single had the highest chart position?" answered "-": a cell that marks a
    missing value names no row nor group (the rows the table gives no single for)."""
    values = f.value if isinstance(f.value, list) else [f.value]
    marks = [v for v in values if is_placeholder(v)]
    if not marks:
        return []
    what = f.plan.group_by or f.plan.measure or "value"
    why = f"the {what} the answer reads is '{marks[0]}', which marks a missing value"
    return [Unplaced(what, why)]


def _value_part_of_other_cells(f: Form) -> list[Unplaced]:
    """ "how many times has she played herself?" read as the rows whose Role is Herself:
    4 rows hold exactly that, and 2 more hold it within a longer cell ("Herself (voice)",
    "Herself / Host"). Whether the question means the whole cell or a part of it the
    words do not say, and the two readings answer differently; so the value is not
    stated, and the reply says both counts. A row named to look up, or one of a few
    named to compare ("the album after Kitty Wells"), is the one named exactly: a name
    within a longer one ("Kitty Wells Sings") names another row."""
    if f.plan.op in ("lookup", "extreme"):
        return []
    for test in (x for p in _parts(f.plan) for x in p.filters):
        col = f.r.table.columns.get(test.column)
        # several names ("skater or surf's up") pick their rows one by one, exactly
        if test.op != "=" or col is None or col.numeric:
            continue
        within = _cells_holding(f.r.table.df[test.column], str(test.value))
        if within is not None and not _same_either_way(f, test):
            exact, more, example = within
            rows = f"{exact} rows have" if exact != 1 else "1 row has"
            hold = "hold" if more != 1 else "holds"
            why = (
                f"{rows} {test.column} exactly {test.value}, and {more} more {hold} it"
                f" within a longer cell (such as '{example}'): which is meant is not said"
            )
            return [Unplaced(str(test.value), why)]
    return []


def _counts_kinds_of(r: Reading, column: str) -> bool:
    """Whether the noun "how many (different)" counts names ``column``'s rows, by its
    name or as a kind of what it names ("athletes" of Lifter Name: a lifter is one)."""
    after = r.text.lower().split("how many", 1)[1].split() if "how many" in r.text.lower() else []
    nouns = [t for t in after[:3] if t not in STOPWORDS and t not in AGG_WORDS["nunique"]]
    return bool(nouns) and names_kind(nouns[0], r.table.columns[column])


#: The count's own nouns ("the number of losses"): a number of rows.
_COUNT_NOUNS = vocabulary.words("number_count")


def _measure_unnamed(f: Form) -> list[Unplaced]:
    """ "what is the total amount of names listed?" read as the total Weight at birth:
    no word named the column the plan adds up (the planner fell back on the table's one
    column of numbers), and a word names another column (Full Name), so the value
    answers a question nobody asked. Where no word names any column ("how much did
    Asia-Pacific sell in total?"), the measure there is is the one meant."""
    for plan in _parts(f.plan):
        if plan.op != "aggregate" or plan.measure is None or plan.agg == "count":
            continue
        if plan.measure in f.r.named or plan.measure in {d.name for d in plan.derive}:
            continue
        if any(means_column(t, plan.measure, f.r.table) for t in f.r.tokens):
            continue  # "the tallest": height
        counted = HOW_MANY.search(f.r.text) or set(f.r.tokens) & _COUNT_NOUNS
        if counted and plan.agg == "nunique" and _counts_kinds_of(f.r, plan.measure):
            continue  # "how many different athletes": the Lifter Names, athletes all
        if counted:  # "what is the total number of losses?": a count of rows, not a sum
            why = f"it asks for a number of rows, and no word names {plan.measure}"
            return [Unplaced(f"the {AGG_NAME[plan.agg]} {plan.measure}", why, asked=False)]
        others = [c for c in f.r.named if c not in f.plan.columns()]
        if not others:
            continue  # "how much did Asia-Pacific sell in total?": the one measure there is
        why = (
            f"no word names {plan.measure}, whose {AGG_NAME[plan.agg]} it is; {others[0]} is named"
        )
        return [Unplaced(f"the {AGG_NAME[plan.agg]} {plan.measure}", why, asked=False)]
    return []


def _when_answered_without_a_time(f: Form) -> list[Unplaced]:
    """ "when was his last competition?" answered "World Championships": "when" asks for a
    time (a year, a date, a month, a season, a century), and a value that holds none
    answers another question ("what was his last competition?")."""
    asked = "when"
    if _question_word(f.r, ("when",)) < 0:  # or "what year", "which month"
        j = _noun_asked(f.r)
        asked = f.r.tokens[j] if j >= 0 else ""
        if len(asked) < 3 or asked in STOPWORDS or not a_time(asked) or singular(asked) != asked:
            return []  # ("what days": a length of time, not when; "what's": no noun)
        if j + 1 < len(f.r.tokens) and f.r.tokens[j + 1] not in STOPWORDS:
            return []  # "what is the second highest horsepower?": no head of its phrase
    if f.plan.op in ("exists", "compare", "columns"):
        return []
    values = f.value if isinstance(f.value, list) else [f.value]
    shown = f.r.table.columns.get(shown_column(f.plan) or "")
    if asked != "when" and shown is not None and forms(asked) & _words_and_forms(shown):
        return []  # "what week had the most attendance?": 15 of the Week column
    if not values or any(_holds_a_time(v) for v in values):
        return _times_differ(f) if asked == "when" else []
    why = f"'{asked}' asks for a time, and the answer, {values[0]!s}, holds none"
    return [Unplaced(asked, why, form=True)]


def _where_answered_without_a_place(f: Form) -> list[Unplaced]:
    """ "Where was the last competition held?" asks for a place: an answer that states
    none (the Competition, a date, a number) answers another question. A column names
    a place where WordNet files a word of its name under a location, a structure or an
    establishment (Venue, City, Stadium, College), or the question's word that named
    it is a place ("where did they place last season?": Place)."""
    r, plan = f.r, f.plan
    if _question_word(r, ("where",)) < 0 or plan.op in ("exists", "compare", "columns"):
        return []
    shown = shown_column(plan)
    col = r.table.columns.get(shown) if shown is not None else None
    if col is not None:
        said = r.named[col.name][1] if col.name in r.named else ()
        if any(_a_place(w) for w in said):
            return []
        if not col.numeric and any(_a_place(p) for p in col.parts):
            return []
    what = f"the answer states {shown}" if shown is not None else "the answer is a number"
    return [Unplaced("where", f"'where' asks for a place, and {what}", form=True)]


def _a_place(word: str) -> bool:
    from .wordnet import hypernyms

    return bool({word, *hypernyms(word, 8, senses=2)} & _PLACE_KINDS)


#: WordNet's kinds of a place: where a thing is, or was held.
_PLACE_KINDS = vocabulary.words("place_kinds")


def _times_differ(f: Form) -> list[Unplaced]:
    """ "When was the only car with 3 cylinders built?" where 4 cars have 3, built in
    different years: the first row's year is one of four, and no word asked for it."""
    differ = _lookup_differs(f, set(LOOKUP_ENDS))  # "when was their first win?": the first
    if differ is None:
        return []
    rows, times = differ
    return [Unplaced("when", f"the {rows} rows that match have {times} different times")]


def _lookup_differs(f: Form, asks_one: set[str]) -> tuple[int, int] | None:
    """For a lookup over filters that no word of ``asks_one`` settles ("the first", "a"):
    how many rows match and how many different values they give, where more than one."""
    plan = f.plan
    if plan.op != "lookup" or plan.offset or plan.group_by is None or not plan.filters:
        return None
    if set(f.r.tokens) & asks_one:
        return None
    picked = _picked(f, plan.filters)
    if picked is None or plan.group_by not in picked:
        return None
    differ = int(picked[plan.group_by].nunique())
    return (len(picked), differ) if differ >= 2 else None  # one they share: "both used ..."


def _rows_differ(f: Form) -> list[Unplaced]:
    """ "Who produced 'Listen!!!' but not 'Hip Hop Hooray'?" where 13 rows match, with 5
    producers: the first row's is one of five, and no word asked for the first (an end,
    "first" or "last") or for any one ("name a player ...", "one", "any")."""
    plan, r = f.plan, f.r
    if _question_word(r, ("when",)) >= 0:
        return []  # said as times (`_times_differ`)
    differ = _lookup_differs(f, set(LOOKUP_ENDS) | _ANY_ONE)
    if differ is None:
        return []
    i = _question_word(r, WHICH | {"what"})
    word = r.tokens[i] if i >= 0 else str(plan.group_by)
    why = (
        f"the {differ[0]} rows that match have {differ[1]} different {plan.group_by} values, "
        "and it does not say which: the first, the last, or all"
    )
    return [Unplaced(word, why, form=True)]


#: The determiners that ask for any one of the rows that match ("name a player who ...").
_ANY_ONE = vocabulary.words("any_one_determiners")


def _holds_a_time(value: Any) -> bool:
    """Whether a value is or holds a time: a year, a date, a month or a day's name, a
    clock time, a season or a century."""
    import datetime

    if isinstance(value, datetime.date | datetime.datetime):
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return 1000 <= value <= 2100  # a year
    return bool(_TIME_TEXT.search(str(value)))


#: A year, a decade, a clock time, a season or a century, a month (by its name or its
#: abbreviation, a whole word: not the "Mar" of "Mark") or a day of the week.
_TIME_OF_YEAR = vocabulary.alternation("time_of_year_words")
_MONTHS = vocabulary.alternation("month_names")
_WEEKDAYS = vocabulary.alternation("weekday_names")
_TIME_TEXT = re.compile(
    rf"\b(1\d{{3}}|20\d{{2}})s?\b|\b\d{{1,2}}:\d{{2}}\b|\b({_TIME_OF_YEAR})\b"
    rf"|\b({_MONTHS})\b"
    rf"|\b({_WEEKDAYS})\b",
    re.IGNORECASE,
)


def _same_either_way(f: Form, test: Filter) -> bool:
    """Whether the plan answers the same with ``test`` read as a part of the cell ("was
    there more clay than hard?": No, whether "Hard (i)" is hard or not)."""
    part = Filter(column=test.column, op="contains", value=test.value, words=test.words)
    try:
        other = run_plan(f.r.table, _with_filter(f.plan, test, part)).value
    except PlanError:
        return False
    return bool(other == f.value) if type(other) is type(f.value) else False


def _with_filter(plan: Plan, old: Filter, new: Filter) -> Plan:
    """``plan`` with filter ``old`` replaced by ``new``, in whichever part holds it."""
    update: dict[str, Any] = {"filters": tuple(new if x is old else x for x in plan.filters)}
    for side in ("of", "versus"):
        sub = getattr(plan, side)
        if sub is not None:
            update[side] = _with_filter(sub, old, new)
    return plan.model_copy(update=update)


def _cells_holding(column: Any, name: str) -> tuple[int, int, str] | None:
    """How many cells of ``column`` are ``name`` (case-blind), how many more hold it as
    a whole word within a longer text, and one of those; None where none does."""
    wanted = name.lower().strip()
    if len(wanted) < 2:
        return None
    word = re.compile(r"(?<!\w)" + re.escape(wanted) + r"(?!\w)")
    counts = column.dropna().astype(str).str.strip().value_counts()
    exact = sum(n for cell, n in counts.items() if cell.lower() == wanted)
    longer = [
        (cell, n)
        for cell, n in counts.items()
        if cell.lower() != wanted and word.search(cell.lower())
    ]
    if not exact or not longer:
        return None
    return exact, sum(n for _, n in longer), longer[0][0]


#: The checks, in order: each returns the faults it finds (none: the plan answers it).
FORM_RULES = (
    _asks_which,
    _what_names_a_column,
    _noun_of_another_column,
    _which_kind_is_answered,
    _asks_to_choose,
    _both_offered,
    _yes_or_no_to_a_choice,
    _same_as_rows_exist,
    _same_as_another,
    _not_asked,
    _rows_or_kinds,
    _statistic_not_taken,
    _total_not_taken,
    _superlative_not_applied,
    _extreme_value_asked,
    _order_unasked,
    _than_a_kept_value,
    _distinct_of_missing,
    _difference_of_unasked_counts,
    _a_list_for_how_many,
    _a_share_for_how_many,
    _in_the_top,
    _operation_as_value,
    _only_one,
    _adds_up_row_numbers,
    _totals_what_it_compares,
    _counts_a_named_row,
    _counts_no_row_of_its_values,
    _counts_rows_of_another_kind,
    _ranks_by_rows_unasked,
    _counts_tied,
    _bound_read_as_equal,
    _total_of_each,
    _measures_text_unasked,
    _names_a_placeholder,
    _value_part_of_other_cells,
    _measure_unnamed,
    _when_answered_without_a_time,
    _where_answered_without_a_place,
    _rows_differ,
)


def form_faults(r: Reading, plan: Plan, used: set[str], rows: int, value: Any) -> list[Unplaced]:
    """Every way ``plan`` (computed over ``rows`` rows, to ``value``) fails to answer the
    question's form; empty when it answers it."""
    if plan.op == "columns":
        return []
    form = Form(r, plan, used, rows, value)
    return [fault for rule in FORM_RULES for fault in rule(form)]
