"""The words of a question matched against a table: the columns, values and numbers it names.

* `match_columns`: a column's own name parts score 1 each (a stem counts),
  its synonyms and the words of its description 0.8 (so does a noun its values
  are kinds of in WordNet: "country" names a Nation of China and Poland), the
  whole name 3 more,
  an abbreviation spelled out by the question's initials ("graduate record
  examination" for GRE, "games played" for GP) 3; a lone letter of a longer
  name names nothing.
* `match_values`: the category or label values the question names, quoted
  or not, longest first; a value of several words is named when all its
  words are ("rarely traveling" names ``Travel_Rarely``).
* `numbers`: the numbers it states, with their place in the question.

Each match keeps the question words it used, so the plan can say which
words each part came from.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import re
from typing import Any

from . import vocabulary
from .cells import SCALE_WORDS, TIME, read_cell
from .table import Column, Table
from .word_classes import a_person, forms, is_noun
from .wordnet import hypernyms, lemmas
from .words import (
    HIGH,
    LOW,
    NUMBER,
    STOPWORDS,
    number_value,
    phrase,
    question_words,
    singular,
    stem,
)

__all__ = ["Named", "Stated", "match_columns", "match_values", "numbers", "time_column"]

_QUOTED = re.compile(r"""(?:^|[\s(])['"‘“`]([^'"’”`]{1,80})['"’”`]""")
#: The stop words that may join an acronym's words ("Bank of America": BoA).
_JOINERS = vocabulary.words("acronym_joiners")


@dataclasses.dataclass(frozen=True)
class Named:
    """A value the question names: its column, the value and the words it used."""

    column: Column
    value: Any
    words: tuple[str, ...]
    start: int  # the index of its first word
    quoted: bool = False
    partial: bool = False  # named inside a longer text value (a "contains" match)


@dataclasses.dataclass(frozen=True)
class Stated:
    """A number the question states, where, and its words."""

    value: float
    start: int
    words: tuple[str, ...]
    text: str


def _within(letters: str, abbrev: str) -> bool:
    """Whether ``letters`` appear in ``abbrev`` in order."""
    it = iter(abbrev)
    return all(ch in it for ch in letters)


def _initials(tokens: list[str], abbrev: str) -> tuple[str, ...] | None:
    n = len(abbrev)
    for i in range(len(tokens) - 1):
        for size in (n, n - 1):
            if size < 2 or i + size > len(tokens):
                continue
            span = tokens[i : i + size]
            inner = span[1:-1]
            if (
                span[0] in STOPWORDS
                or span[-1] in STOPWORDS
                or any(t in STOPWORDS and t not in _JOINERS for t in inner)
            ):
                # "a single" does not spell AST, nor "programming is played" PSIP: an
                # acronym's words carry meaning ("of" and "and" may join them)
                continue
            letters = "".join(t[0] for t in span)
            if letters == abbrev:
                return tuple(span)
            if (
                size == n - 1
                and n >= 3
                and (
                    (abbrev.endswith(letters) and n >= 4)
                    or abbrev.startswith(letters)
                    # "stated purpose" for SOP: the skipped letter an "of" or "and"
                    or (
                        letters[0] == abbrev[0]
                        and letters[-1] == abbrev[-1]
                        and (n >= 4 or abbrev[1] in "oa")
                        and _within(letters, abbrev)  # "college they applied" is no CGPA
                    )
                )
            ):
                return tuple(span)
    return None


def _abbreviation(col: Column, tokens: list[str]) -> tuple[str, ...] | None:
    """The question words whose initials spell the column's short name (GRE, GP, CGPA)."""
    head = col.parts[0] if col.parts else ""
    raw = re.sub(r"[^A-Za-z]", "", col.name.split()[0].split("_")[0])
    if not (2 <= len(raw) <= 5 and raw.isupper()):
        return None
    return _initials(tokens, head.lower())


def _spelled(col: Column, tokens: list[str]) -> set[str]:
    """Words that spell out a short upper-case name part: PTS ~ points, REB ~ rebounds."""
    out = set()
    for part in col.name.replace("_", " ").split():
        if not (2 <= len(part) <= 4 and part.isupper() and part.isalpha()):
            continue
        low = part.lower()
        out |= {t for t in tokens if len(t) >= 3 and low.endswith(t) and t != low}
        # the plural's s of PTS, not in the singular "point"
        bare = low[:-1] if len(low) >= 3 and low.endswith("s") else low
        for t in tokens:
            if t[0] != low[0] or len(t) <= len(bare) or t in STOPWORDS:
                continue
            for want in {low, bare}:
                it = iter(t)
                if all(ch in it for ch in want):
                    out.add(t)
    return out


def _truncated(col: Column, tokens: list[str]) -> set[str]:
    """Words a name part cut short stands for: "position" of Pos., "average" of Avg,
    "conference" of Conf. A part of 3 to 5 letters that is cut (a dot follows it in the
    name) or a capitalised word WordNet does not know ("per" of Miles_per_Gallon is no
    "percentage"), and a noun of the question that starts with it."""
    return {
        t for low in _cut_parts(col.name) for t in tokens
        if len(t) > len(low) + 1 and t.startswith(low) and t not in STOPWORDS and is_noun(t)
    }  # fmt: skip


@functools.lru_cache(maxsize=1 << 12)  # a table's names, read once: every question asks
def _cut_parts(name: str) -> tuple[str, ...]:
    """The parts of a column's name that are cut short (`_truncated`), lower case."""
    from .wordnet import parts_of_speech

    out = []
    for part in re.findall(r"[A-Za-z]+\.?", name):
        low = part.rstrip(".").lower()
        if low in STOPWORDS or not 3 <= len(low) <= 5:
            continue
        if part.endswith(".") or (part[0].isupper() and not parts_of_speech(low)):
            out.append(low)
    return tuple(out)


def match_columns(table: Table, words: list[str], text: str) -> dict[str, tuple[float, set[str]]]:
    """Each named column's score and the question words its name used up."""
    asked = set(words)
    stems = {stem(w): w for w in words}
    # a word or any lemma it is a form of ("heaviest": heavy) -> the question's word
    lemma_of = {w: w for w in words}
    for w in words:
        for lemma in lemmas(w):
            lemma_of.setdefault(lemma, w)
    tokens = phrase(text).split()
    found: dict[str, tuple[float, set[str]]] = {}
    name_parts = {p for c in table.columns.values() for p in c.parts}
    wholes: set[str] = set()  # columns the question names by their whole name
    spaced = f" {phrase(text)} "
    for col in table.columns.values():
        if col.role == "empty":
            continue
        own = {p for p in col.parts if (p in asked or p + "s" in asked) and p not in STOPWORDS}
        own |= {
            stems[stem(p)]
            for p in col.parts
            if stem(p) in stems and len(p) > 3 and stems[stem(p)] not in STOPWORDS
        }
        own |= {
            w for p in col.parts for w in asked if len(p) >= 6 and len(w) >= 6 and w[:6] == p[:6]
        }
        # a participle's verb in another form: "who wrote" names Written by, "won" Winning
        # Rider (not "scored" Score: a noun of its own)
        own |= {
            lemma_of[lemma]
            for p in col.parts
            if len(p) > 3 and p not in STOPWORDS
            for lemma in lemmas(p)
            if lemma != p and lemma in lemma_of and lemma_of[lemma] not in STOPWORDS
        }
        synonyms = {lemma_of.get(w, w) for w in (col.words - set(col.parts)) if w in lemma_of}
        synonyms -= STOPWORDS
        if col.parts == ("name",):  # "which player", "the swimmer from Ireland": a Name
            # (not a word another column's name holds: "# of prisoners designed for")
            synonyms |= {
                w for w in words
                if w not in STOPWORDS and singular(w) not in name_parts and a_person(w)
            }  # fmt: skip
        # "which country won the most": a Nation whose values are countries
        # (it names the whole column, as its whole name would)
        kinds = kinds_of_values(col)
        kind_of_all = {
            w for w in words
            if w not in STOPWORDS and singular(w) in kinds and singular(w) not in name_parts
        }  # fmt: skip
        synonyms |= kind_of_all
        compact = phrase(col.name).replace(" ", "")
        glued = {t for t in tokens if t == compact or singular(t) == compact}
        whole = f" {phrase(col.name)} " in spaced or bool(glued)
        if glued:  # "YearsAtCompany" written as one word names every part of the name
            own |= set(col.parts)
        short = _abbreviation(col, tokens)
        spelled = _spelled(col, words) | _truncated(col, words)
        if not own and not synonyms and not short and not spelled and not whole:
            continue
        if (
            not whole
            and not synonyms
            and not short
            and not spelled
            and all(len(p) < 2 for p in own)
        ):
            continue  # one letter of a longer name ("g" of body_mass_g) names nothing
        score = len(own) + 0.8 * len(synonyms) + (3 if whole or short or kind_of_all else 0)
        score += 2.5 * bool(spelled)
        if own and own >= set(col.parts):
            score += 1
        if whole and not own:
            own = glued or set(phrase(col.name).split())
        found[col.name] = (score, own | synonyms | set(short or ()) | spelled | glued)
        if whole:
            wholes.add(col.name)

    # the longest name wins: "field of education" names EducationField, not Education,
    # when its words stand together in the question
    def together(words: set[str]) -> bool:
        at = [i for i, t in enumerate(tokens) if t in words or singular(t) in words]
        return bool(at) and max(at) - min(at) <= len(words) + 1

    for name in list(found):
        mine = found[name][1]
        parts = len(table.columns[name].parts)
        if any(
            other != name
            and (
                (mine < found[other][1] and together(found[other][1]))
                or (mine == found[other][1] and len(table.columns[other].parts) == 1 < parts)
                # `num_helpful_votes` named whole: not author_num_helpful_votes
                or (mine <= found[other][1] and other in wholes and name not in wholes)
            )
            for other in found
        ):
            del found[name]
    return found


#: A cell's note in brackets: "United States (USA)", "Italy [3]".
_BRACKETED = re.compile(r"\s*[(\[][^)\]]*[)\]]")
#: How many of a column's values are read for their kinds.
_SAMPLE = 12


def kinds_of_values(col: Column, least: int | None = None) -> frozenset[str]:
    """The WordNet kinds that most of a column's values are ("country" of China, Poland
    and Kenya; "city" of Boston and Lyon): at least three of its first values, and at
    least half of them (or at least ``least`` of them). None for numbers, or a column
    that is not categories or labels."""
    if col.role not in ("category", "label") or col.numeric:
        return frozenset()
    values = tuple(itertools.islice(col.values, _SAMPLE))
    need = max(3, (len(values) + 1) // 2) if least is None else least
    return frozenset(kind for kind, n in _kind_counts(values).items() if n >= need)


@functools.lru_cache(maxsize=4096)  # once per column, not per question
def _kind_counts(values: tuple[str, ...]) -> collections.Counter[str]:
    """How many of ``values`` each WordNet kind holds."""
    counts: collections.Counter[str] = collections.Counter()
    for value in values:
        name = phrase(_BRACKETED.sub("", value))
        if not NUMBER.fullmatch(name):  # "1" is a digit, and no kind the rows are
            counts.update(set(hypernyms(name, 3)))
    return counts


def match_values(table: Table, text: str) -> list[Named]:
    """Each category or label value the question names (see the module docstring)."""
    tokens = phrase(text).split()
    stems = [stem(t) for t in tokens]
    quoted = [q.strip() for q in _QUOTED.findall(text) if q.strip()]
    hits: list[Named] = []
    for col in table.columns.values():
        if col.role not in ("category", "label") or not col.values:
            continue
        for key, value in col.values.items():
            hit = _find(key, tokens, stems)
            if hit is None:
                continue
            start, used = hit
            gram = " ".join(used)
            beside = (
                tokens[max(0, start - 1) : start]
                + tokens[start + len(used) : start + len(used) + 1]
            )
            next_to_name = any(singular(b) in col.parts or b in col.parts for b in beside)
            if gram in HIGH | LOW | STOPWORDS and not next_to_name:
                continue
            if (len(key) < 2 or key.isdigit()) and not next_to_name:
                continue  # "8 cylinders", "the N region": a short value beside its column's name
            is_quoted = any(phrase(q) == phrase(key) for q in quoted)
            hits.append(Named(col, value, used, start, is_quoted, partial=col.listy))
    hits += _glued(table, tokens, hits) + _shaped(table, text, tokens, hits)
    hits += _zero_padded(table, tokens, hits)
    hits += _known_as(table, tokens, hits)
    hits += _offered_by_a_word(table, tokens, hits)
    hits += _segments(table, tokens, hits)
    hits += _by_last_word(table, tokens, hits)
    for q in quoted:  # a quoted text that no value equals: inside a longer text value
        if any(phrase(str(h.value)) == phrase(q) for h in hits):
            continue
        for col in table.columns.values():
            if col.role in ("category", "label") and any(phrase(q) in k for k in col.values):
                found = _find(phrase(q), tokens, stems)
                used = tuple(phrase(q).split())
                hits.append(Named(col, q, used, found[0] if found else 0, True, partial=True))
                break

    def beside_name(h: Named) -> bool:  # "the 'Mercadona' type of store": stores' value
        near = tokens[max(0, h.start - 4) : h.start + len(h.words) + 4]
        if any(singular(t) in h.column.parts or t in h.column.parts for t in near):
            return True
        # "did Troy Bayliss win": Winning Rider's value, not Pole Position's
        parts = {f for p in h.column.parts if p not in STOPWORDS for f in forms(p)}
        return any(forms(t) & parts for t in near if t not in STOPWORDS and len(t) > 2)

    # "which is taller, Nanga Parbat or Kangchenjunga?": words that name values of two
    # columns name the one whose value the question sets against them ("or", "than");
    # "the Tigers play the Indians" sets no two values of one column against each other
    def set_against(h: Named) -> bool:
        for k in hits:
            if k.column.name != h.column.name or k.start == h.start:
                continue
            a, b = sorted((h, k), key=lambda x: x.start)
            between = tokens[a.start + len(a.words) : b.start]
            if len(between) <= 3 and _SET_AGAINST & set(between):
                return True
        return False

    # read before sorting: a list being sorted is empty to what its key reads
    against = {id(h): set_against(h) for h in hits}
    hits.sort(
        key=lambda h: (
            -len(h.words), -h.quoted, not beside_name(h), not against[id(h)], h.start
        )
    )  # fmt: skip
    kept: list[Named] = []
    for h in hits:
        span = set(range(h.start, h.start + len(h.words)))
        if any(span & set(range(k.start, k.start + len(k.words))) for k in kept):
            continue  # words a kept hit took (of another column too: the first wins)
        kept.append(h)
    return kept


def _folded(text: str) -> str:
    """``text`` without its accents ("Laçi": laci), as a question typed in ASCII has it."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _offered_by_a_word(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "Who had more draws, Laci or Bylis?": two words joined by "or", each a word of
    exactly one value of the same column ("KF Laçi", "KS Bylis"), name those two values:
    a choice between two rows, each named by its distinctive word."""
    taken = {i for h in hits for i in range(h.start, h.start + len(h.words))}
    for i in range(1, len(tokens) - 1):
        a, b = tokens[i - 1], tokens[i + 1]
        if tokens[i] != "or" or {i - 1, i + 1} & taken:
            continue
        if any(t in STOPWORDS or len(t) < 3 or t.isdigit() for t in (a, b)):
            continue
        for col in table.columns.values():
            if col.role not in ("category", "label") or not col.values:
                continue
            holding: dict[str, list[Any]] = {a: [], b: []}
            for key, value in itertools.islice(col.values.items(), MAX_OFFERED):
                for word in holding.keys() & set(_folded(key).split()):
                    holding[word].append(value)
            if len(holding[a]) == len(holding[b]) == 1 and holding[a] != holding[b]:
                return [
                    Named(col, holding[a][0], (a,), i - 1),
                    Named(col, holding[b][0], (b,), i + 1),
                ]
    return []


#: The values a word of an offered choice is looked for in (a label's first ones).
MAX_OFFERED = 2_000


def _known_as(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """A word that names a value through WordNet, not through its letters: "Japanese" is
    Japan (a pertainym), "women" female (a hypernym), "European" Europe, "the UK" the
    United Kingdom and "Holland" the Netherlands (synonyms)."""
    from .wordnet import bases, hypernyms, names_one_thing, synonyms

    taken = {i for h in hits for i in range(h.start, h.start + len(h.words))}
    parts = {p for c in table.columns.values() for p in c.parts}
    columns = [c for c in table.columns.values() if c.role in ("category", "label")]
    out = []
    for i, used in _known_words(tokens):
        token = ".".join(used) + "." if len(used) > 1 else used[0]
        if i in taken or token in parts:
            continue
        kinds = [b.word for b in bases(token)] + list(hypernyms(token, 1, senses=1)[:2])
        alike = synonyms(token) if names_one_thing(token) else ()
        for meaning in (*kinds, *alike):
            # a synonym names a label too ("the US" of a column of nations, one per row)
            found = next(
                (
                    (col, col.values[meaning])
                    for col in columns
                    if meaning in col.values and (col.role == "category" or meaning not in kinds)
                ),
                None,
            )
            if found is not None:
                out.append(Named(found[0], found[1], used, i))
                break
    return out


def _known_words(tokens: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    """The question's words that may name a value through WordNet, with their place: a
    content word of three letters or more, "the us" (not the pronoun), and letters
    spelled with dots ("u.s.", read as "u s")."""
    out: list[tuple[int, tuple[str, ...]]] = []
    i = 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and len(tokens[j]) == 1 and tokens[j].isalpha():
            j += 1
        if j - i >= 2:
            out.append((i, tuple(tokens[i:j])))
            i = j
            continue
        token = tokens[i]
        after_the = i > 0 and tokens[i - 1] == "the"
        content = token not in STOPWORDS or (token == "us" and after_the)
        if content and (len(token) >= 3 or (after_the and len(token) == 2)):
            out.append((i, (token,)))
        i += 1
    return out


#: The words that set two values against each other: a choice, a comparison.
_SET_AGAINST = vocabulary.words("set_against_words")

#: What parts a cell into segments that each name something: "Osaka, Japan", "Camp
#: Randall Stadium • Madison, WI", a line of a cell.
_SEGMENT = re.compile(r",\s+|\s+[•·|]\s+|\n")


def _segments(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "How many records were set in Beijing?": a name that is a whole segment of some
    values of a column ("Beijing" of "Beijing, China", "4th" of "4th, Heartland"), and
    no value of its own anywhere, said where a part of a cell is (`_set_in_place`),
    names the rows whose value holds that segment."""
    taken = {i for h in hits for i in range(h.start, h.start + len(h.words))}
    held: dict[str, list[tuple[Column, str]]] = {}
    for col in table.columns.values():
        if col.role not in ("category", "label") or col.listy or not col.values:
            continue
        for value in set(map(str, col.values.values())):
            segments = _SEGMENT.split(value)
            for segment in segments if len(segments) > 1 else ():
                held.setdefault(phrase(segment), []).append((col, segment.strip()))
    out = []
    for n in (4, 3, 2, 1):
        for i in range(len(tokens) - n + 1):
            span = range(i, i + n)
            gram = " ".join(tokens[i : i + n])
            found = held.get(gram)
            if not found or taken & set(span) or len(gram) < 3 or gram in STOPWORDS | HIGH | LOW:
                continue
            if any(gram in c.values for c in table.columns.values()):
                continue  # a value of its own names its rows exactly
            if len({c.name for c, _ in found}) != 1:
                continue  # the segment of two columns' values: which rows is open
            col, segment = found[0]
            if not _set_in_place(tokens, i, n, col):
                continue
            out.append(Named(col, segment, tuple(tokens[i : i + n]), i, partial=True))
            taken |= set(span)
    return out


def _by_last_word(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "How long did it take for Sandeno to finish?": a word no dictionary knows (a
    name) that ends exactly one value of the rows' names, of two words or more
    ("Kaitlin Sandeno"), and is no value of its own, names that value, as a surname
    names a person. A word of the language ("Wade", "Brown") is left: it may mean
    itself."""
    from .wordnet import parts_of_speech

    taken = {i for h in hits for i in range(h.start, h.start + len(h.words))}
    ends: dict[str, list[tuple[Column, str]]] = {}
    for col in table.columns.values():
        # a column of the rows' names (a Player, a Name), not one whose names repeat
        # (a Co-Star: the table's own subject may be among them)
        if not (col.role == "label" or "name" in col.parts) or col.listy or not col.values:
            continue
        for value in set(map(str, col.values.values())):
            words = phrase(value).split()
            if len(words) >= 2:
                ends.setdefault(words[-1], []).append((col, value))
    out = []
    for i, token in enumerate(tokens):
        found = ends.get(token)
        if i in taken or found is None or len(found) != 1 or len(token) < 3:
            continue
        if not token.isalpha() or token in STOPWORDS or parts_of_speech(token):
            continue
        if any(token in c.values or token in c.parts for c in table.columns.values()):
            continue  # a value of its own, or a column's word ("Europlug Compatible")
        out.append(Named(found[0][0], found[0][1], (token,), i))
        taken.add(i)
    return out


#: Prepositions that put a name in its place ("held in Beijing", "from Ann Arbor").
_SITED = vocabulary.words("place_prepositions")


def _set_in_place(tokens: list[str], start: int, n: int, col: Column) -> bool:
    """Whether the words at ``start`` stand where a part of a cell does: after a
    preposition of place ("held in Japan"), or beside a word of the column's name ("the
    venue Vasil Levski National Stadium"). A name said as the subject ("Germany has
    won") is the whole of a row's name, not part of another's."""
    before = [t for t in tokens[max(0, start - 2) : start] if t != "the"]
    if before and before[-1] in _SITED:
        return True
    near = tokens[max(0, start - 3) : start] + tokens[start + n : start + n + 3]
    return any(singular(t) in col.parts for t in near)


def _glued(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "family fun guru" names the user ``familyfunguru``: a value written as one word."""
    grams: dict[str, tuple[int, tuple[str, ...]]] = {}
    for n in (2, 3, 4):
        for i in range(len(tokens) - n + 1):
            span = tokens[i : i + n]
            if span[0] not in STOPWORDS and span[-1] not in STOPWORDS:
                grams.setdefault("".join(span), (i, tuple(span)))
    out = []
    taken = {i for h in hits for i in range(h.start, h.start + len(h.words))}
    for col in table.columns.values():
        if col.role not in ("category", "label") or not col.values:
            continue
        for key, (start, used) in grams.items():
            if (
                key in col.values
                and len(key) >= 6
                and not taken & set(range(start, start + len(used)))
            ):
                out.append(Named(col, col.values[key], used, start))
    return out


def _zero_padded(table: Table, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "code 00001522" names the code 1522 (its zeros lost when the table was read),
    beside its column's name."""
    out = []
    for i, token in enumerate(tokens):
        if not (token.isdigit() and token.startswith("0") and token.strip("0")):
            continue
        key = token.lstrip("0")
        beside = {singular(t) for t in tokens[max(0, i - 2) : i + 2]}
        for col in table.columns.values():
            taken = any(h.start == i for h in hits)
            if key in col.values and beside & set(col.parts) and not taken:
                out.append(Named(col, col.values[key], (token,), i))
    return out


def _shape(text: str) -> str:
    return re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", text))


def _shaped(table: Table, text: str, tokens: list[str], hits: list[Named]) -> list[Named]:
    """ "the 2010-11 season" over a column whose values all look like "2012-13": that
    column's value, even one the table does not hold (its filter then matches no row)."""
    out = []
    for col in table.columns.values():
        if col.role not in ("category", "label") or col.numeric or not col.values:
            continue
        shapes = {_shape(str(v)) for v in col.values.values()}
        if len(shapes) != 1:
            continue
        shape = shapes.pop()
        if not re.fullmatch(r"9+([-/.:]9+)+", shape):
            continue  # digits joined by punctuation: seasons, codes, versions
        pattern = re.escape(shape).replace("9", r"\d")
        for m in re.finditer(rf"(?<![\w-]){pattern}(?![\w-])", text):
            if any(str(h.value) == m.group(0) for h in hits):
                continue
            start = len(phrase(text[: m.start()]).split())
            out.append(Named(col, m.group(0), tuple(phrase(m.group(0)).split()), start))
    return out


def _find(key: str, tokens: list[str], stems: list[str]) -> tuple[int, tuple[str, ...]] | None:
    """Where the words of value ``key`` stand in the question (all of them, in any order,
    within a window, for a value of several words)."""
    parts = phrase(key).split()
    if not parts:
        return None
    n = len(parts)
    for i in range(len(tokens) - n + 1):
        if tokens[i : i + n] == parts:
            return i, tuple(tokens[i : i + n])
    want = [stem(p) for p in parts]
    if n == 1:
        for i, s in enumerate(stems):
            if s == want[0] and len(want[0]) >= 4:
                return i, (tokens[i],)
        return None
    if n > 3 or len(set(want)) < 2:
        return None  # one word twice ("Man-man") is not met by one word of the question
    # numbers alone keep their order, each its own: a score "2-1" is not "1-2", and
    # "1-1" is not the "1" of "1,500"; "from 1950 to 1954" is "1950–1954"
    numbers = all(p.isdigit() for p in parts)
    if numbers and len(set(parts)) < n:
        return None
    for i in range(len(tokens)):
        window = stems[i : i + n + 1]
        if set(want) <= set(window) and stems[i] in want:
            idx = [i + window.index(w) for w in want]
            if numbers and idx != sorted(idx):
                continue
            return min(idx), tuple(tokens[j] for j in sorted(idx))
    return None


#: A time stated as minutes and seconds ("1:03.59", "2:10:00"), as `cells` reads a cell.
_TIME = re.compile(rf"(?<![\w.:]){TIME}(?![\w:])")


def numbers(text: str) -> list[Stated]:
    """The numbers the question states, with their word index."""
    out: list[Stated] = []
    clean = re.sub(r"(\d)-(\d)", r"\1 \2", text)  # 2012-13 is two years
    begin = end = -1  # where the last number stated starts and ends
    times = [(m.start(), m.end()) for m in _TIME.finditer(clean)]
    for m in NUMBER.finditer(clean):
        within = next((t for t in times if t[0] <= m.start() < t[1]), None)
        if within is not None:  # "under 1:03.59": one time, read as its seconds
            if m.start() == within[0]:
                said = clean[within[0] : within[1]]
                seconds = read_cell(said).number
                before = phrase(clean[: m.start()]).split()
                out.append(
                    Stated(float(seconds or 0), len(before), tuple(phrase(said).split()), said)
                )
            continue
        value = number_value(m)
        if value is None:
            continue
        words = tuple(phrase(m.group(0)).split())
        scale = {"hundred": 1e2, **SCALE_WORDS}.get(m.group(0).lower())
        if scale and out and not clean[end : m.start()].strip():
            last = out.pop()  # "one million", "2.5 thousand": one number
            said = clean[begin : m.end()]
            out.append(Stated(last.value * scale, last.start, last.words + words, said))
        else:
            before = phrase(clean[: m.start()]).split()
            out.append(Stated(value, len(before), words, m.group(0)))
            begin = m.start()
        end = m.end()
    return out


def time_column(table: Table) -> Column | None:
    times = table.of("time")
    if not times:
        return None
    import pandas as pd

    dated = [c for c in times if pd.api.types.is_datetime64_any_dtype(table.df[c.name])]
    # the table's own date ("date") before a dated event ("date_stayed")
    plain = [c for c in dated if set(c.parts) <= {"date", "time", "datetime", "timestamp", "day"}]
    return (plain or dated or times)[0]


def words_of(text: str) -> list[str]:
    return question_words(text)
