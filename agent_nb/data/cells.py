"""Cells as tables arrive from the web: numbers held as text, footnotes on values.

A scraped table (Wikipedia's, read with ``pd.read_csv``) holds "1,234",
"17 years", "3rd", "$2.5M", "1.5 km", "−5", "2:03.45" as text, and values
with footnotes ("Italy [3]", "Italy[a]", "Gold*"). pandas reads such a
column as text, so "the largest attendance" has nothing to compare and
"Italy" names no value. This module reads them the way a reader does:

* `read_cell`: one cell as a `Cell`, its number (or None), the unit or
  suffix it was written with (``km``, ``year``, ``%``, ``$``, ``th`` for an
  ordinal, ``time`` for m:ss read as seconds) and its text without
  footnotes. A trailing detail in parentheses ("88 feet (27 m)") is set
  aside as WikiTableQuestions' own evaluator does; a scale word or, after a
  currency sign, a scale letter multiplies ("$2.5M" is 2,500,000). Ranges,
  scores and dates ("1990–91", "W 27–21", "06/04/2006") are not numbers.
* `numeric_column`: a text column is read as numbers when nearly all of
  its cells are numbers in one unit (or none); placeholders ("—", "n/a")
  are missing. Two units in one column ("1.5 km", "300 m") keep it text:
  converting it is the user's call, not a guess.
* `numbers_as_written`: every such column of a DataFrame (but a column of
  classes, whose values repeat: "74 kg" weight classes stay names), replaced
  by its numbers for the plan, the original cells kept (`Table.written`) so what
  is shown keeps the cell as written (`shown_as_written`).
* `without_header_rows`: the rows that repeat the column names;
* `without_section_rows`: the rows that only head a section ("West", the rest
  empty);
* `without_summary_row`: the rows that hold the totals of the rows above
  ("Total", 37, 41, 40) is left out, with a note: it is no row of the table.
* `clean_text`: a value's text without its footnotes, so a question naming
  "Italy" names the value "Italy [3]" (`table.profile` adds it as an alias).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

from . import vocabulary

__all__ = [
    "DETAIL",
    "SCALE_WORDS",
    "TIME",
    "Cell",
    "amount_text",
    "clean_text",
    "counts_with_shares",
    "duration_text",
    "holds_years",
    "is_placeholder",
    "name_without_details",
    "numbers_as_written",
    "numeric_column",
    "places_shown_as_medals",
    "read_cell",
    "share_of_numbers",
    "shown_as_written",
    "venue_marked",
    "without_header_rows",
    "without_section_rows",
    "without_summary_row",
    "without_venue_mark",
    "written_values",
]

#: The share of a column's cells (placeholders aside) that must read as numbers.
MIN_SHARE = 0.9
#: At most this many distinct values, each twice on average, make a column of classes.
MAX_CLASSES = 50

_FOOTNOTE = re.compile(r"(?:\s*\[[^\[\]]{1,12}\]|[*†‡§¶#]+)+$")
#: A detail in brackets at a cell's end ("Warren Tredrea (81)", "Oklahoma (2)").
DETAIL = re.compile(r"\s*\([^()]*\)$")
#: What a table writes in a cell for no value ("-", "n/a", "unknown", the empty cell).
_PLACEHOLDER = vocabulary.words("cell_placeholders")
_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-", "‒": "-", "\u2009": " ", "\xa0": " "})
#: The words that scale the number before them, in a cell or a question ("2.5 million").
SCALE_WORDS: dict[str, float] = vocabulary.mapping("scale_words")
_SCALE_LETTERS = {"k": 1e3, "m": 1e6, "mn": 1e6, "mil": 1e6, "b": 1e9, "bn": 1e9}
_CURRENCY = {"$": "$", "us$": "$", "€": "€", "£": "£", "¥": "¥", "usd": "$", "eur": "€"}
_NUMBER = re.compile(
    r"""^(?P<pre>US\$|[$€£¥#~])?\s*(?P<sign>[-+])?\s*(?P<pre2>US\$|[$€£¥])?\s*
    (?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\ \d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    \s*(?P<rest>.*)$""",
    re.VERBOSE,
)
_ORDINAL = re.compile(r"^(?:st|nd|rd|th)$", re.IGNORECASE)
_UNIT = re.compile(r"^[A-Za-zµ°%$€£¥][A-Za-zµ°²³%./]*\d?(?:\s[A-Za-z][A-Za-z.]*)?$")
#: A time as minutes and seconds ("1:55.45") or hours, minutes and seconds ("2:03:45").
TIME = r"(\d{1,3}):([0-5]\d)(?::([0-5]\d))?(\.\d+)?"
_TIME = re.compile(rf"^(?P<sign>[-+])?{TIME}$")


@dataclasses.dataclass(frozen=True)
class Cell:
    """One cell as read: its number (None: not a number), its unit, its clean text."""

    number: float | None
    unit: str
    text: str


#: A line of a cell that details the name above it: "(Pater Patriae)", "Label: Reunion".
_DETAIL_LINE = re.compile(r"^\s*(?:\([^()]*\)|\[[^\[\]]*\]|[A-Z][\w ]{0,20}:\s.*)?\s*$")


#: A word before a name that says where or against whom a row's event was, not who:
#: "at Detroit Waza", "vs. Saskatchewan Roughriders", "@ Reds" (prepositions).
_VENUE_MARK = re.compile(r"^(?:at|vs\.?|v\.|@)\s+(?=\S)", re.IGNORECASE)


def venue_marked(cells: Any) -> bool:
    """Whether a column marks where its rows' events were before its names ("at
    Detroit Waza" beside "Detroit Waza"): two of its cells at least, and a fifth."""
    texts = [c for c in cells if isinstance(c, str)]
    marked = sum(bool(_VENUE_MARK.match(c)) for c in texts)
    return marked >= 2 and 5 * marked >= len(texts)


def without_venue_mark(cell: Any) -> Any:
    """``cell`` without the word that marks where its event was ("at Detroit Waza":
    Detroit Waza); see `venue_marked`."""
    return _VENUE_MARK.sub("", cell) if isinstance(cell, str) else cell


def name_without_details(cell: Any) -> Any:
    """A cell of several lines whose first is a name and whose others detail it
    ("Cosimo de' Medici\n(Pater Patriae)", an album over its "Released: ..." and
    "Label: ..." lines) as its first line: the name a question asks for. Lines that
    are items of one list ("Phil Ward\nJohn Goss") are the cell as it is."""
    if not isinstance(cell, str) or "\n" not in cell.strip():
        return cell
    first, *rest = cell.strip().split("\n")
    if _DETAIL_LINE.match(first):
        return cell  # "Released: June 24, 2011" over "Label: ...": details, no name
    if all(_DETAIL_LINE.match(line) for line in rest) or _bracketed("\n".join(rest)):
        return first.strip()
    return cell


def _bracketed(text: str) -> bool:
    """Whether ``text`` is one bracket over its lines ("(Toronto Blueshirts (1917–18)\n
    Toronto Arenas (1918–19))": the names a team had before)."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and i < len(text) - 1:
            return False  # "(a) ... (b)": two brackets, items of their own
    return depth == 0


def clean_text(cell: str) -> str:
    """``cell`` without trailing footnotes ("Italy [3]", "Italy[a]", "Gold*" -> the word)."""
    text = cell.strip()
    clean = _FOOTNOTE.sub("", text).strip()
    return clean or text  # "[1]" alone, or "*", stays what it is


def _unit_of(rest: str) -> str | None:
    """The unit a number was written with ("" for none), or None where ``rest`` is no unit."""
    rest = rest.strip()
    if rest.lower().replace(" ", "") in ("a.m.", "p.m.", "am", "pm"):
        return None  # a time of day: 12 p.m. comes before 1 p.m.
    rest = rest.rstrip(".")
    if not rest:
        return ""
    if _ORDINAL.match(rest):
        return "th"
    if not _UNIT.match(rest):
        return None
    word = rest.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]  # "years" and "year" are one unit
    return word


def _time(text: str) -> float | None:
    m = _TIME.match(text)
    if m is None:
        return None
    first, second, third = int(m.group(2)), int(m.group(3)), m.group(4)
    whole = first * 3600 + second * 60 + int(third) if third else first * 60 + second
    seconds = whole + float(m.group(5) or 0)
    return -seconds if m.group("sign") == "-" else float(seconds)


def duration_text(seconds: float, cells: Any) -> str | None:
    """``seconds`` written as the durations of ``cells`` are ("1:56.42" among "1:55.45",
    "3:38:33" among "h:mm:ss"), or None where they are not durations: a mean time
    read as 116.415 seconds is stated in the form the table gives its times."""
    found = [
        _TIME.match(" ".join(clean_text(c).translate(_DASHES).split()))
        for c in cells.dropna().head(50)
        if isinstance(c, str)
    ]
    shapes = [m for m in found if m is not None]
    if not shapes or len(shapes) < len(found) / 2:
        return None
    places = min(3, max(len(m.group(5) or ".") - 1 for m in shapes))
    total = round(abs(seconds), places)
    hours, rest = divmod(total, 3600) if any(m.group(4) for m in shapes) else (0, total)
    minutes, secs = divmod(rest, 60)
    width = 3 + places if places else 2
    text = f"{int(minutes)}:{secs:0{width}.{places}f}"
    if hours:
        text = f"{int(hours)}:{int(minutes):02d}:{secs:0{width}.{places}f}"
    return ("-" if seconds < 0 else "") + text


_AMOUNT = re.compile(
    r"^(?P<pre>[^\d]*?)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<post>.*)$"
)


def amount_text(value: float, cells: Any, *, finer: int = 0) -> str | None:
    """``value`` written as the amounts of ``cells`` are ("$488,761" among "$362,285",
    "36 t" among "84 t", "16 years"), or None where their cells give no unit in one
    form: a total or a difference of "84 t" and "120 t" is a weight, and "36" alone
    drops what it is. As precise as the finest cell, ``finer`` places more (a mean),
    trailing zeros dropped."""
    shapes: list[tuple[re.Match[str], Cell]] = []
    numbers = 0
    for c in cells.dropna().head(50):
        cell = read_cell(c)
        if cell.number is None:
            continue
        numbers += 1
        m = _AMOUNT.match(DETAIL.sub("", cell.text).strip())
        if m is None or cell.unit in ("", "th", "time"):
            continue
        if float(m.group("num").replace(",", "")) != cell.number:
            continue  # a scale ("$2.5M") or a sign: no one form to write it in
        shapes.append((m, cell))
    if not shapes or len(shapes) < numbers / 2 or len({c.unit for _, c in shapes}) != 1:
        return None
    places = max(len(m.group("num").partition(".")[2]) for m, _ in shapes)
    one = abs(value) == 1  # "1 year" where a cell says so, else "years"
    form = next((m for m, c in shapes if (c.number == 1) == one), shapes[0][0])
    comma = any("," in m.group("num") for m, _ in shapes)
    text = f"{abs(value):{',' if comma else ''}.{places + finer}f}"
    if "." in text:  # 976, not 976.0, where one cell of the column had a decimal
        text = text.rstrip("0").rstrip(".")
    return ("-" if value < 0 else "") + form.group("pre") + text + form.group("post")


def read_cell(cell: Any) -> Cell:
    """One cell read as a number with its unit, where it is one (see the module docstring)."""
    if not isinstance(cell, str):
        return Cell(None, "", "" if cell is None else str(cell))
    text = clean_text(cell)
    plain = " ".join(text.translate(_DASHES).split())
    if plain.lower() in _PLACEHOLDER:
        return Cell(None, "", text)
    for candidate in (plain, DETAIL.sub("", plain)):
        found = _number(candidate)
        if found is not None:
            return Cell(found[0], found[1], text)
    return Cell(None, "", text)


def is_placeholder(value: Any) -> bool:
    """Whether ``value`` is a cell that marks a missing value ("-", "—", "n/a", "?")."""
    return isinstance(value, str) and value.translate(_DASHES).strip().lower() in _PLACEHOLDER


def _number(text: str) -> tuple[float, str] | None:
    seconds = _time(text)
    if seconds is not None:
        return seconds, "time"
    m = _NUMBER.match(text)
    if m is None or not m.group("digits"):
        return None
    value = float(m.group("digits").replace(",", "").replace(" ", ""))
    pre = m.group("pre") or m.group("pre2") or ""
    currency = _CURRENCY.get(pre.lower(), "")
    rest = m.group("rest").strip()
    scale = rest.split(" ")[0].lower() if rest else ""
    if scale in SCALE_WORDS or (currency and scale in _SCALE_LETTERS):
        value *= SCALE_WORDS.get(scale) or _SCALE_LETTERS[scale]
        rest = rest[len(scale) :].strip()
    unit = _unit_of(rest)
    if unit is None:
        return None
    if unit in _CURRENCY:  # "5 USD"
        currency, unit = _CURRENCY[unit], ""
    if currency and unit:
        return None  # "$5 km": not one quantity
    if m.group("sign") == "-":
        value = -value
    return value, currency or unit


def numeric_column(series: Any) -> tuple[Any, str] | None:
    """``series`` (text) as numbers and the unit they share, or None where it is not a
    column of numbers: fewer than `MIN_SHARE` of its cells read as numbers, two
    units, or codes with leading zeros ("007")."""
    import pandas as pd

    try:
        distinct = series.dropna().unique()
    except TypeError:  # cells that cannot be told apart by hashing (lists, dicts): no text
        return None
    text = pd.api.types.is_string_dtype(series) and series.dtype != object
    if len(distinct) == 0 or not (text or all(isinstance(v, str) for v in distinct)):
        return None
    if len(distinct) > _SAMPLED and not _mostly_numbers(series):
        return None  # 10^6 names: not each read, to find that they are no numbers
    read = {v: read_cell(v) for v in distinct}
    counts = series.value_counts(dropna=True)
    counts = counts[counts > 0]  # a categorical's unused categories are counted, as 0
    given = numbers = 0
    units: Counter[str] = Counter()
    odd_words = True  # the cells that are no numbers hold one at most ("WIN", "about 500")
    for value, n in counts.items():
        cell = read[value]
        if cell.text.translate(_DASHES).strip().lower() in _PLACEHOLDER:
            continue
        given += n
        odd_words &= cell.number is not None or len(_DIGITS.findall(cell.text)) <= 1
        if cell.number is not None:
            if re.match(r"^0\d", cell.text.strip()) and cell.unit != "time":
                return None  # a code, not a quantity
            numbers += n
            units[cell.unit] += n
    # one odd cell among numbers ("WIN" in a column of votes, a row's note) is missing,
    # not a reason to read a column of numbers as names; one that holds numbers too
    # ("56643/56645" among train numbers) says they are codes
    odd = given - numbers == 1 and numbers >= _ODD_AMONG and odd_words
    if given == 0 or (numbers < MIN_SHARE * given and not odd) or numbers < 2:
        return None
    named = [u for u in units if u not in ("", "th")]
    if len(named) > 1 or ("th" in units and named):
        return None  # two units in one column
    if named == ["%"] and counts_with_shares(units["%"], units[""]):
        return None  # "1,282" and "89.7%" row by row
    unit = named[0] if named else ("th" if "th" in units else "")
    mapping = {v: c.number for v, c in read.items()}
    return pd.to_numeric(series.map(mapping), errors="coerce"), unit


_DIGITS = re.compile(r"\d+")
#: Shares ("89.7%") and bare numbers each past this share of a column's numbers are
#: counts and their shares, two kinds; a unit on some numbers only is the column's
#: own otherwise ("12 km" and a bare "15"; "9.72" seconds and "3:34:14").
_BARE_WITH_SHARE = 0.2
#: The numbers a column needs for one odd cell among them to be read as missing.
_ODD_AMONG = 5

#: Past this many distinct cells, a sample of the cells says first whether a column may
#: be one of numbers: reading each costs seconds per 10^6.
_SAMPLED = 5_000


def _mostly_numbers(series: Any) -> bool:
    """Whether at least half of 2,000 of ``series``' cells, drawn at random, read as
    numbers: a column whose cells are `MIN_SHARE` numbers gives such a sample all but
    surely (a sample of 2,000 falls under half where 90 % are numbers with odds far
    below 10^-100)."""
    return share_of_numbers(series.dropna().sample(2_000, random_state=0, replace=True)) >= 0.5


def share_of_numbers(cells: Any) -> float:
    """The share of ``cells`` that read as numbers (`read_cell`); 0 for none."""
    cells = list(cells)
    return sum(read_cell(v).number is not None for v in cells) / len(cells) if cells else 0.0


def counts_with_shares(shares: int, bare: int) -> bool:
    """Whether numbers written as shares ("89.7%") and bare ones ("1,282") are each more
    than `_BARE_WITH_SHARE` of a column's: counts and their shares row by row, two kinds
    of number, not one column's."""
    return min(shares, bare) > _BARE_WITH_SHARE * (shares + bare)


def _names_classes(series: Any) -> bool:
    """Whether a column of numbers as text names classes ("74 kg" four times over, a
    place "1st" held by several rows): its values are the names a reader asks about
    and is answered with, so it stays text (a category)."""
    kinds, given = int(series.nunique()), int(series.notna().sum())
    return kinds <= min(MAX_CLASSES, given // 2)


def holds_years(values: Any) -> bool:
    """Whether a Series of numbers (its missing cells aside) holds years: whole numbers
    from 1000 to 2100, at least one. A column of them is read as numbers though few
    ("Founded": 1989 six times, and "?" where it is not known), as the same column with
    no "?" in it is."""
    values = values.dropna()
    return len(values) > 0 and bool(((values % 1 == 0) & values.between(1000, 2100)).all())


def numbers_as_written(df: Any, notes: list[str]) -> tuple[Any, dict[str, Any], dict[str, str]]:
    """``df`` with each text column of numbers (`numeric_column`) read as numbers, the
    original cells of each such column by name (for what is shown), and its unit."""
    import pandas as pd

    written: dict[str, Any] = {}
    units: dict[str, str] = {}
    out = df
    for column in df.columns:
        s = df[column]
        if not (pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s)):
            continue
        read = numeric_column(s)
        if read is None or (_names_classes(s) and not holds_years(read[0])):
            continue
        if not written:
            out = df.copy()
        numbers, units[str(column)] = read
        whole = numbers.dropna()
        if len(whole) == len(numbers) and (whole % 1 == 0).all():
            numbers = numbers.astype("int64")
        out[column] = numbers
        written[str(column)] = s
    if written:
        names = ", ".join(list(written)[:5])
        notes.append(f"numbers written as text read as numbers, shown as written ({names})")
    return out, written, units


def places_shown_as_medals(df: Any, notes: list[str]) -> Any:
    """``df`` with the first places of a standing filled in where the page showed them as
    medals: a Rank column whose first 1-3 cells are empty and whose numbers then run on
    from 4 (or 2, 3) in the table's order holds places 1-3 there ("the top-ranked" is
    the first row, not the highest number left)."""
    import numpy as np
    import pandas as pd

    out = df
    filled = []
    for column in df.columns:
        s = df[column]
        if not pd.api.types.is_float_dtype(s) or not s.iloc[:1].isna().all():
            continue
        present = s.dropna()
        lead = int(s.notna().to_numpy().argmax()) if len(present) else 0
        if not 1 <= lead <= _MEDALS or len(present) < 3 or present.iloc[0] != lead + 1:
            continue
        values = present.to_numpy(dtype=float)
        if not (values % 1 == 0).all() or float(np.mean(np.diff(values) >= 0)) < 0.9:
            continue
        if out is df:
            out = df.copy()
        out.iloc[:lead, out.columns.get_loc(column)] = np.arange(1, lead + 1, dtype=float)
        filled.append(f"{column} (rows 1-{lead})" if lead > 1 else f"{column} (row 1)")
    if filled:
        notes.append(f"empty first places read as the places before the next: {', '.join(filled)}")
    return out


def without_header_rows(df: Any, notes: list[str]) -> Any:
    """``df`` without the rows that repeat its header: a long table copied from a page
    shows its column names again every so often ("#", "President", "President's
    Party"), and such a row is no president. A row is one where at least half of the
    columns (two at least) hold their own name, as written."""
    import numpy as np
    import pandas as pd

    if len(df) < 3 or df.shape[1] < 2:
        return df
    text = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if len(text) < max(2, df.shape[1] / 2):
        return df
    repeats = np.zeros(len(df), dtype=int)
    for column in text:
        repeats += df[column].to_numpy() == column
    header = repeats >= max(2, df.shape[1] / 2)
    if not header.any():
        return df
    n = int(header.sum())
    notes.append(f"{n} {'row' if n == 1 else 'rows'} repeating the column names: left out")
    return df.loc[~header]


def without_section_rows(df: Any, notes: list[str]) -> Any:
    """``df`` without the rows that only head a section: a page's table split into
    parts ("West", then the West's teams) holds a row whose every other cell is empty,
    and such a row is no team ("how many teams are in the east region" counts 16, not
    17). A row is one where one cell alone is filled, with a value its column holds
    in other rows, in a table of four columns or more whose rows otherwise fill three
    at least; a table past `_PAGE_ROWS` rows is no page's, and is not searched."""
    import pandas as pd

    if not 3 <= len(df) <= _PAGE_ROWS or df.shape[1] < 4:
        return df
    filled = df.notna().to_numpy()
    for i, column in enumerate(df.columns):
        if not pd.api.types.is_numeric_dtype(df[column]):
            filled[:, i] &= df[column].astype(str).str.strip().ne("").to_numpy()
    counts = filled.sum(axis=1)
    section = counts == 1
    if not section.any() or float(pd.Series(counts[~section]).median()) < 3:
        return df
    # the one filled cell names the rows below it ("West" above the West's rows); a
    # cell found nowhere else is a row with its data missing ("South Sudan", no
    # figures), which stays a row
    column = filled[section].argmax(axis=1)
    full = ~section
    for at, i in zip(section.nonzero()[0], column, strict=True):
        values = df.iloc[:, i]
        section[at] = bool((values[full] == values.iloc[at]).any())
    n = int(section.sum())
    if not n or n * 3 > len(df):  # a third of the rows at most: most rows are rows
        return df
    heads = [str(v) for row in df.loc[section].itertuples(index=False) for v in row
             if pd.notna(v) and str(v).strip()]  # fmt: skip
    named = f" ({', '.join(dict.fromkeys(heads[:4]))})" if heads else ""
    notes.append(f"{n} {'row' if n == 1 else 'rows'} heading a section{named}: left out")
    return df.loc[~section]


#: A table past this many rows is no web page's: it is not searched for section rows.
_PAGE_ROWS = 10_000


#: The places a page shows as medal images, not numbers.
_MEDALS = 3


def without_summary_row(
    df: Any, written: dict[str, Any], notes: list[str]
) -> tuple[Any, dict[str, Any]]:
    """``df`` (and ``written``) without the rows that sum the rows above them.

    A table copied from a page often ends with its totals ("Total", 37, 41, 40):
    counted as a row, it is one nation more, and the largest of every column.
    The last row is found by its numbers, not its words: in more than half of the
    numeric columns it fills (and at least one, with a nonzero total) its value
    is the sum of the rows above, within 1 % (a page's totals are often off by
    a little: a census total 0.2 % above its provinces' sum; a row of data
    that comes within 1 % of the sum of all the others in most columns is
    rarer than that). A row whose label says it holds totals ("Total", "Total for
    Danish part:", "Grand Total"), anywhere in the table, needs less: half of its
    columns, or two, within 5 % of the sum of the rows since the last subtotal, or
    of all the rows above (a medal table's "Total" row 53 bronze short of 54, a
    census subtotal 2 % off its parts, "Total towns" whose density and change in %
    are the whole's, not sums)."""
    import numpy as np

    if len(df) < 4:
        return df, written
    out = np.zeros(len(df), dtype=bool)  # the rows left out, by place
    since = 0  # where the rows the next subtotal adds up start
    labels = _labelled_totals(df, written)
    for pos in sorted({*labels.nonzero()[0].tolist(), len(df) - 1}):
        labelled = bool(labels[pos])
        kept = np.flatnonzero(~out[:pos])
        since_last = kept[kept >= since]
        if _adds_up(df, pos, since_last, labelled) or _adds_up(df, pos, kept, labelled):
            out[pos] = True
            since = pos + 1
    if not out.any():
        return df, written
    last = int(np.flatnonzero(out)[-1])
    if labels[last] and 0 < len(df) - 1 - last <= _FOOTERS:
        # the rows under a closing "Total" are about the whole, not more of its rows
        # ("Registered voters/turnout" under an election's Total)
        out[last + 1 :] = True
    named = [_label(df, written, int(pos)) for pos in np.flatnonzero(out)]
    said = (
        f"the row ({named[0]}) holds" if len(named) == 1 else f"the rows ({', '.join(named)}) hold"
    )
    notes.append(f"{said} the totals of the rows above: left out")
    return df.iloc[~out], {c: s.iloc[~out] for c, s in written.items()}


#: How many rows may follow a closing totals row and still be read as its footers.
_FOOTERS = 2


#: A label that says its row adds up others ("Total", "Grand Total", "Subtotal").
_TOTAL_LABEL = re.compile(r"^\W*(?:\w+ )?(?:grand |sub-?)?totals?\b", re.IGNORECASE)


def _labelled_totals(df: Any, written: dict[str, Any]) -> Any:
    """Whether each row's first three cells hold a label of totals (one pass per column:
    a row at a time costs minutes on 10^6 rows)."""
    import numpy as np
    import pandas as pd

    found = np.zeros(len(df), dtype=bool)
    for column in df.columns[:3]:
        cells = written[column] if column in written else df[column]
        if pd.api.types.is_numeric_dtype(cells) or pd.api.types.is_datetime64_any_dtype(cells):
            continue
        try:  # (cells that are no text match nothing)
            matched = cells.str.match(_TOTAL_LABEL)
        except (AttributeError, TypeError):  # no text at all (numbers, bytes)
            continue
        found |= matched.fillna(False).to_numpy(dtype=bool)
    return found


def _label(df: Any, written: dict[str, Any], pos: int) -> str:
    """The row's first cell of words ("Total"), else its place."""
    cells = [written[c].iloc[pos] if c in written else df[c].iloc[pos] for c in df.columns]
    words = [v for v in cells if isinstance(v, str) and read_cell(v).number is None]
    return words[0] if words else f"row {df.index[pos]}"


def _adds_up(df: Any, pos: int, rows: Any, labelled: bool = False) -> bool:
    """Whether row ``pos`` holds, in more than half of the numeric columns it fills (one
    at least, with a nonzero total), the sum of ``rows`` within 1 %; a row labelled as
    totals, in half of them or in two within 5 %."""
    import pandas as pd

    if len(rows) < 2:
        return False
    checked = matched = sums = 0
    for column in df.columns:
        s = df[column]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        value = s.iloc[pos]
        if value != value:  # missing in the totals row ("—" under Rank)
            continue
        checked += 1
        total = float(s.iloc[rows].sum())
        near = _LABELLED_OFF if labelled else _OFF
        added = total != 0 and abs(value - total) <= near * abs(total)
        sums += added
        # a labelled row of totals holds a column's highest, lowest or mean as its total
        # ("League total": Total 123,682, High 3,305, Low 48, Average 515)
        part = s.iloc[rows]
        summed = labelled and any(
            abs(value - x) <= _OFF * abs(x) for x in (part.max(), part.min(), part.mean())
        )
        matched += bool(added or summed)
    if labelled and sums >= 2:  # two sums under a label of totals: the ratios beside
        return True  # them (a density, a change in %) are worked out again, not added
    return sums > 0 and (matched * 2 >= checked if labelled else matched * 2 > checked)


#: How far a totals row may be off the sum of its rows: unlabelled, and labelled "Total".
_OFF, _LABELLED_OFF = 0.01, 0.05


def written_values(texts: Any, numbers: Any, limit: int = 5_000) -> dict[str, Any]:
    """Each distinct cell as written (lower case, no footnote) -> the number read from it,
    so a question naming "4th" or "$2.5M" names the value of a column read as numbers."""
    out: dict[str, Any] = {}
    for text, number in zip(texts.to_numpy(), numbers.to_numpy(), strict=True):
        if isinstance(text, str) and number == number:
            out.setdefault(
                clean_text(text).lower(), number.item() if hasattr(number, "item") else number
            )
            if len(out) >= limit:
                break
    return out


def shown_as_written(frame: Any, written: dict[str, Any], df: Any) -> Any:
    """``frame`` (a plan's result) with the cells of a column read from text shown as
    written: each number of such a column is mapped back to the first cell of ``df``
    that holds it ("17" -> "17 years"); computed values (a mean) have other names."""
    if not written:
        return frame
    columns = [c for c in frame.columns if c in written]
    if not columns:
        return frame
    shown = frame.copy()
    for column in columns:
        numbers, texts = df[column], written[column]
        back: dict[Any, Any] = {}
        for n, t in zip(numbers.to_numpy(), texts.to_numpy(), strict=True):
            if n == n and n not in back:
                back[n] = t
        shown[column] = [back.get(v, v) for v in frame[column]]
    return shown
