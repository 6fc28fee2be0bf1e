"""Units: read from a column's name or the user's context, found in a question, converted by pint.

"Heavier than 5 kg" against ``body_mass_g`` must compare with 5,000. pint
knows the units, their symbols, plurals and dimensions; WordNet (`wordnet`)
knows which English words are measures. Decisions:

* **pint's registry is built once, lazily**, with pint's cache of its parsed
  definitions (``cache_folder=":auto:"``): about 0.1 s to import pint after
  pandas and 20-40 ms to build from the cache (0.3 s the first time on a
  machine). ``import agent_nb`` and a question without a number never pay.
* **A column's unit**, strongest signal first: in brackets ("Weight (lbs)"),
  after "in" ("Weight_in_lbs"), "A per B" at the end ("miles_per_gallon"),
  then the last word of the name ("distance_km", "duration_days").
* **A bare last word needs to be a measure**, as WordNet's most frequent sense
  of it says: its hypernyms include a unit ("km": metric linear unit) or a
  measure ("year": fundamental measure). pint alone reads "points" as a
  typographic point, "mass" as milliarcseconds and "kilos" as kiloseconds.
  A unit (km, days) is taken as it is; a period or other measure ("year") and
  **a lone letter** ("g", "m", "c") only when the rest of the name names a
  quantity of that dimension: pint's dimension ("body_mass_g": mass), the
  quantity WordNet's unit is a unit of ("weight_g": gram is a weight unit),
  a hypernym of a name word ("age_years": age is a time period), or a sibling
  ("height_m": height and length are both dimensions). So "birth_year" has no
  unit (a calendar year is a date, not an amount of time) and "temp_c" none
  either: pint reads "c" as the speed of light, and "temp" is a worker to
  WordNet; "temperature_c" is degree Celsius (pint's ``degC``). The user's
  context can always say it ("temp_c is in degrees Celsius").
* **An operation's word is no unit**: "temp_min" is a minimum, not minutes.
* **A question's quantities** are a number (digits, "2,500", "two") followed
  by a unit: one word, or "A per B" ("30 miles per gallon"). After a number,
  a measure word is enough ("two weeks"), but a closed-class word never is
  ("5 in the table": not inches). "5m" and "2k" stay millions and thousands
  (`words.NUMBER`).
* `convert` raises `UnitError` (a ``ValueError``) naming both dimensions
  when they differ, and the unknown unit when pint knows none.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import TYPE_CHECKING, Any

from ..errors import UnitError
from . import wordnet
from .words import NUMBER, STOPWORDS, number_value

if TYPE_CHECKING:
    import pint

__all__ = ["Quantity", "Unit", "column_unit", "context_units", "convert", "quantities", "word_unit"]

# the aggregate operations' own short names, which end column names ("temp_min")
_OPERATIONS = frozenset(("min", "max", "avg", "mean", "sum", "std", "median", "count", "total"))
_TOKEN = re.compile(r"[A-Za-z°µ%][A-Za-z°µ%0-9²³]*")
# a question's word after a number may be a rate ("km/h") or a power ("cm^3")
_QTOKEN = re.compile(r"[A-Za-z°µ%][A-Za-z°µ%0-9²³]*(?:\^\d)?(?:/[A-Za-z]+(?:\^\d)?)?")
# a column name's parts: words, and numbers as their own parts ("3rd" is no rod)
_PART = re.compile(r"\d[\d.,]*[A-Za-z]*|[A-Za-z°µ%][A-Za-z°µ%0-9²³]*")
_BRACKETED = re.compile(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]")


@dataclasses.dataclass(frozen=True)
class Unit:
    """A unit by pint's name ("gram", "mile / gallon") and its dimension ("[mass]")."""

    name: str
    dimension: str


@dataclasses.dataclass(frozen=True)
class Quantity:
    """A stated quantity: its value, unit, words and where they are in the question."""

    value: float
    unit: Unit
    words: tuple[str, ...]  # as written: ("2,500", "g")
    span: tuple[int, int]  # character offsets of the number and its unit in the question


@functools.cache
def _registry() -> pint.UnitRegistry[Any]:
    import pint

    try:  # pint's own cache of its parsed definitions: 30 ms instead of 300 from the 2nd kernel on
        return pint.UnitRegistry(cache_folder=":auto:")
    except OSError:  # pragma: no cover - no writable cache folder
        return pint.UnitRegistry()


def _unit(parsed: Any) -> Unit:
    return Unit(str(parsed), str(parsed.dimensionality))


def _written_whole(reg: Any, token: str, prefix: str, name: str) -> bool:
    """Whether ``token`` spells pint's (prefix, unit) one way: all symbols (km, lbs) or a
    prefix's name before the unit's name (kilometres); never mixed, as "kilos" (kilo + s),
    which pint takes for kiloseconds."""
    symbol = reg.get_symbol(prefix + name)
    if token in (symbol, symbol + "s") or not prefix:
        return True
    rest = token[len(prefix) :] if token.startswith(prefix) else None
    bare = reg.get_symbol(name)
    return rest is not None and rest not in (bare, bare + "s")


def _parse(text: str) -> Unit | None:
    """One pint unit written out whole, with a dimension; None for anything else."""
    reg = _registry()
    words = text.replace("/", " per ").split()
    if len(words) == 3 and words[1].lower() == "per":
        top, bottom = _parse(words[0]), _parse(words[2])
        if top is None or bottom is None:
            return None
        return _unit(reg.parse_units(f"{top.name} / {bottom.name}"))
    if len(words) != 1:
        return None
    for candidate in dict.fromkeys((text, text.lower())):
        try:
            options = list(reg.parse_unit_name(candidate))
        except Exception:  # pint's parser raises several kinds on odd text
            continue
        for prefix, name, _ in options:
            if _written_whole(reg, candidate, prefix, name):
                parsed = reg.Unit(prefix + name)
                if parsed.dimensionality:
                    return _unit(parsed)
    return None


def _measure(word: str) -> str | None:
    """ "unit" when WordNet's first sense of the word is a unit of measurement (km, day),
    "measure" when it is another measure (a period: year, week), None otherwise (a
    "military unit" is no measure). The words "unit" and "measure" are this module's own:
    WordNet's "unit of measurement" and "measure, quantity, amount" head what it measures."""
    found = None
    for lemma in wordnet.lemmas(word) or (word,):
        above = wordnet.hypernyms(lemma, depth=5, senses=1)
        if not {"unit of measurement", "measure"} & set(above) or "number" in above:
            continue  # "thou" is first a thousand: a number is no unit
        if any(h.endswith(" unit") or h.startswith("unit of") for h in above):
            return "unit"
        found = "measure"
    return found


def _quantity_words(unit: Unit, token: str = "") -> set[str]:
    """The words that name what a unit measures: pint's base dimension when it is one
    ("[mass]": mass), the X of WordNet's "X unit" above it (gram: weight, mass) and the
    kind the unit is (year: time period; kph: rate)."""
    out = set()
    if re.fullmatch(r"\[\w+\]", unit.dimension):
        out.add(unit.dimension.strip("[]"))
    name = unit.name.replace("_", " ")
    # the kind the unit is, when English's first sense of it is a measure at all
    # ("league" is first a sports association: that kind says nothing of length)
    for written in {name, token.lower()} - {""}:
        if _measure(written):
            out |= set(wordnet.hypernyms(written, depth=1, senses=1))
    for h in wordnet.hypernyms(name, depth=3, senses=1):
        if h.endswith(" unit"):
            out.add(h.split()[-2])
        elif h.startswith("unit of "):
            out.add(h.split()[-1])
    return out


def _pint_dimension(word: str, unit: Unit) -> bool:
    """Whether pint names a dimension ``word`` that is the unit's ("speed": [length]/[time])."""
    reg = _registry()
    try:
        return str(reg.get_dimensionality(f"[{word}]")) == unit.dimension
    except (ValueError, KeyError):  # pint names no such dimension
        return False


def _names_dimension(rest: list[str], unit: Unit, token: str = "") -> bool:
    """Whether some word of the rest of a column's name names what the unit measures:
    pint's dimension of that name ("speed" for mph, "mass" for g), one of
    `_quantity_words`, a word with one among its hypernyms (age: time period), or a
    sibling of one (height and length: both dimensions)."""
    wanted = _quantity_words(unit, token)
    siblings = {h for q in wanted for h in wordnet.hypernyms(q, depth=1, senses=1)}
    for word in (w.lower() for w in rest):
        if word in STOPWORDS or len(word) < 2 or not word.isalpha():  # "U.S.", "500"
            continue
        if any(_pint_dimension(w, unit) for w in {word, *wordnet.lemmas(word)}):
            return True
        near = {word, *wordnet.lemmas(word), *wordnet.hypernyms(word, depth=2, senses=2)}
        if near & wanted or siblings & set(wordnet.hypernyms(word, depth=1, senses=1)):
            return True
    return False


def _plain(token: str, *, symbol: bool = False) -> bool:
    """Whether pint knows ``token`` itself as a unit's name, alias or symbol (kph, degC),
    not as a prefix and a plural around one ("pts": pints)."""
    reg = _registry()
    try:
        options = list(reg.parse_unit_name(token))
    except Exception:  # pint's parser raises several kinds on odd text
        return False
    if symbol:  # only a symbol that is not also the unit's name ("mph", not "league")
        return any(
            not prefix and token == reg.get_symbol(name) != name for prefix, name, _ in options
        )
    return any(not prefix and token in (name, reg.get_symbol(name)) for prefix, name, _ in options)


def _stated(token: str, rest: list[str], *, bracketed: bool = False) -> Unit | None:
    """The unit ``token`` states in a column's name whose other words are ``rest``."""
    if len(token.replace("/", " per ").split()) > 1:
        return _parse(token)  # "miles per gallon", "km/h": a rate is a unit by its form
    low = token.lower()
    if low in _OPERATIONS or (low in STOPWORDS and not bracketed):  # "(in)" is inches
        return None
    candidates = [token] if len(token) > 1 else [token, "deg" + token.upper()]
    for candidate in candidates:
        unit = _parse(candidate)
        if unit is None:
            continue
        acronym = len(token) > 1 and token.isupper() and token.isalpha()  # HR, GS, NPC
        if len(token) > 1 and not acronym:
            if wordnet.lemmas(token):
                if _measure(low) == "unit":
                    return unit  # km, kg, lbs, days: a unit to WordNet too
            elif _plain(token) and (rest or bracketed):
                return unit  # degC: a symbol English has no word for ("Rd" alone is a road)
        if _names_dimension(rest, unit, token):
            return unit
    return None


def word_unit(word: str) -> Unit | None:
    """The unit one question word names whole ("kilograms", "km"), or None."""
    return _parse(word) if word.isalpha() and len(word) > 1 else None


def column_unit(name: str) -> Unit | None:
    """The unit a column's name states ("body_mass_g": gram), or None; see the module doc."""
    if not isinstance(name, str):
        raise TypeError(f"a column name must be a str here, not {type(name).__name__}")
    # "(s)" right after a word is a plural ("Winner(s)"), not seconds
    brackets = [m for m in _BRACKETED.finditer(name) if not name[: m.start()][-1:].isalnum()]
    parts = _PART.findall(_BRACKETED.sub(" ", name))  # words and numbers, in order
    tokens = [p for p in parts if not p[0].isdigit()]
    for match in reversed(brackets):
        unit = _stated(match.group(1).strip(), tokens, bracketed=True)
        if unit is not None:
            return unit
    lower = [p.lower() for p in parts]
    if "in" in lower[:-1]:
        at = lower.index("in")
        unit = _stated(" ".join(parts[at + 1 :]), parts[:at])
        if unit is not None:
            return unit
    if len(parts) >= 3 and lower[-2] == "per":
        # "miles per gallon" is a unit; "threads per inch" counts threads, in no unit
        return _parse(" ".join(parts[-3:]))
    if not parts or parts[-1][0].isdigit():  # "Election Day 2000": a date, not days
        return None
    if len(parts) >= 2 and parts[-2][0].isdigit():
        return None  # "index at 589.3 nm", "reached 500 HR": a stated condition, not the unit
    only = _parse(parts[0].lower()) if len(parts) == 1 else None
    if only is not None and only.name == parts[0].lower():
        # a name that is one unit's name, singular ("Day", "Hour", "Second"), is more
        # often a position or a time of day than an amount; plurals and symbols stay
        return None
    return _stated(parts[-1], parts[:-1])


def _after_number(question: str, number: re.Match[str], words: list[re.Match[str]]) -> bool:
    """Whether the words right after a number can be its unit (see the module doc)."""
    first = words[0].group()
    if first.lower() in STOPWORDS:
        return False  # "5 in the table"
    if len(first) == 1 and words[0].start() == number.end():
        return False  # "the 1990s": a decade, not seconds
    if len(words) > 1 or "/" in first:
        return True  # "A per B", "km/h": a rate, checked by the parse
    known = wordnet.lemmas(first)
    if _plain(first, symbol=True) and (
        # "mph", "rpm": pint's symbol, a rate to WordNet too; "cd" is first cadmium
        {"rate", "measure", "unit of measurement"}
        & set(wordnet.hypernyms(first, depth=5, senses=1))
        if known
        else len(first) >= 3 or not first.isalpha()  # "°C" is no word of anything
    ):
        return True
    if known:
        return _measure(first.lower()) is not None  # "20 points" is no typographic length
    # a short symbol English does not know ("pp") is too often something else
    return len(first) >= 3 and _plain(first)  # never prefix + plural ("26 apps": atto-points)


def quantities(question: str) -> list[Quantity]:
    """The quantities a question states: "heavier than 5 kg" -> 5 kilogram."""
    if not isinstance(question, str):
        raise TypeError(f"a question must be a str, not {type(question).__name__}")
    found = []
    for match in NUMBER.finditer(question):
        value = number_value(match)
        if value is None or match.group(2):  # "5m" is five million, not five metres
            continue
        before = question[max(0, match.start() - 2) : match.start()]
        if before[-1:] == ":" or re.fullmatch(r"\d[-–/]", before):
            continue  # "1:53 mins", "1973-74 year": part of a time or a range
        after: list[re.Match[str]] = []
        at = match.end()
        for token in _QTOKEN.finditer(question, at):
            if question[at : token.start()].strip() or len(after) == 3:
                break  # only words right after the number, nothing between
            after.append(token)
            at = token.end()
        for size in (3, 1):
            words = after[:size]
            if len(words) < size or not _after_number(question, match, words):
                continue
            text = " ".join(w.group() for w in words)
            unit = _parse(text)
            if unit is None:
                continue
            found.append(
                Quantity(
                    value,
                    unit,
                    (match.group(), *(w.group() for w in words)),
                    (match.start(), words[-1].end()),
                )
            )
            break
    return found


def context_units(text: str, columns: list[str]) -> dict[str, Unit]:
    """The units the user's context gives columns: "body_mass_g is in kilograms",
    "price (USD)"; each column named in a sentence, then a unit after "in" or in brackets."""
    out: dict[str, Unit] = {}
    for sentence in re.split(r"[.;\n]+", text):
        for column in columns:
            spelled = {column.lower(), column.lower().replace("_", " ")}
            at = max(sentence.lower().find(s) for s in spelled)
            if at < 0 or column in out:
                continue
            tail = sentence[at:]
            for inside in _BRACKETED.findall(tail):
                unit = _parse(inside.strip())
                if unit is not None:
                    out[column] = unit
                    break
            if column in out:
                continue
            tokens = _TOKEN.findall(tail)
            lower = [t.lower() for t in tokens]
            for i, word in enumerate(lower[:-1]):
                if word != "in":
                    continue
                unit = _parse(" ".join(tokens[i + 1 : i + 4])) or _parse(tokens[i + 1])
                if unit is None and i + 2 < len(tokens):  # "in degrees Celsius"
                    unit = _parse(tokens[i + 2])
                if unit is not None:
                    out[column] = unit
                    break
    return out


def convert(value: float, from_unit: Unit | str, to_unit: Unit | str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit`` (5 kilogram -> 5000.0 gram)."""
    import pint

    reg = _registry()
    names = [u.name if isinstance(u, Unit) else u for u in (from_unit, to_unit)]
    units = []
    for name in names:
        try:
            units.append(reg.Unit(name))
        except (pint.errors.UndefinedUnitError, ValueError, AttributeError) as exc:
            raise UnitError(
                f"no unit is called {name!r}: use a pint unit name or symbol "
                "(gram, kg, mile, km, day, degC)"
            ) from exc
    try:
        return float(reg.Quantity(value, units[0]).to(units[1]).magnitude)
    except pint.errors.DimensionalityError as exc:
        raise UnitError(
            f"cannot convert {units[0]} ({units[0].dimensionality}) to {units[1]} "
            f"({units[1].dimensionality}): they measure different things"
        ) from exc
