"""The query language: a typed pydantic value that pandas runs (`execute`), never code.

A `Plan` is one question's query over one table:

* **filters** (`Filter`): ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=``,
  ``between`` (inclusive), ``in`` (several values of one column, OR-ed),
  ``contains``, ``startswith``, ``missing`` and ``present``; all of them AND-ed,
  on columns and on index levels (a row MultiIndex becomes columns, `table`);
* an **operation** (``op``) and what it reads: ``aggregate`` (count, sum, mean,
  median, std, min, max, range, nunique, share with its base, mode, the n-th
  largest) over the whole table, a filter or a group; ``rank`` (groups by one
  or two columns, top or bottom ``k``, labels or values); ``extreme`` (the
  rows at a maximum or minimum: a column's values there); ``distinct``
  values; ``values`` of the matching rows (first or last ``k``); ``lookup``
  (a column's value in the row that matches, or, with ``offset``, in the row
  that many places after (before, when negative) the matching rows, in the
  table's own order: "the episode after X"); ``exists`` (any, all or none of
  the rows meet ``condition``); ``compare`` (a computed value against a
  constant or against another computed value: ``of`` ``test`` ``against`` or
  ``versus``); ``trend``,
  ``correlation``, ``missing``, ``shape``; ``columns`` for a question that
  names nothing of the table;
* ``combine``: the difference or ratio of this plan's value and ``versus``'s
  ("compared to"), or their ``gap``: the difference either way round ("the
  difference between A and B" names no direction);
* ``derive``: columns computed from the table's own before anything else runs
  (`Derived`: two columns' ``+``, ``-``, ``*``, ``/``; a text column's
  ``length`` in characters or its ``words``), named by `Derived.name` in the
  plan's other parts; a fixed set of typed operations, never text evaluated.

``words`` records which words of the question each part came from (the
planner fills it; `describe` reads it to say what was left out).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import vocabulary

__all__ = [
    "AGGREGATIONS",
    "AGG_NAME",
    "DERIVE_OPS",
    "FILTER_OPS",
    "MAX_OFFSET",
    "OPERATIONS",
    "REQUIRED",
    "Agg",
    "DeriveOp",
    "Derived",
    "Filter",
    "FilterOp",
    "Op",
    "Plan",
    "Scalar",
]

Scalar = str | int | float | bool
#: The filter ops that compare a number (a threshold or a range).
COMPARING = frozenset({">", ">=", "<", "<=", "between"})

FilterOp = Literal[
    "=", "!=", "<", "<=", ">", ">=", "between", "in", "contains", "startswith", "missing", "present"
]
Op = Literal[
    "aggregate",
    "rank",
    "extreme",
    "distinct",
    "values",
    "lookup",
    "exists",
    "compare",
    "trend",
    "correlation",
    "missing",
    "shape",
    "columns",
]
Agg = Literal[
    "count",
    "sum",
    "mean",
    "median",
    "std",
    "min",
    "max",
    "range",
    "nunique",
    "share",
    "mode",
    "nth",
    "streak",
]
DeriveOp = Literal["+", "-", "*", "/", "length", "words", "month", "year", "years"]
FILTER_OPS: tuple[str, ...] = FilterOp.__args__  # type: ignore[attr-defined]
OPERATIONS: tuple[str, ...] = Op.__args__  # type: ignore[attr-defined]
AGGREGATIONS: tuple[str, ...] = Agg.__args__  # type: ignore[attr-defined]
DERIVE_OPS: tuple[str, ...] = DeriveOp.__args__  # type: ignore[attr-defined]
#: How a reader names each aggregation ("the total revenue", "the lowest price").
AGG_NAME = {
    "sum": "total",
    "mean": "mean",
    "median": "median",
    "min": "lowest",
    "max": "highest",
    "count": "number of",
    "share": "share",
    "std": "standard deviation",
    "range": "range",
    "nunique": "number of distinct",
    "nth": "n-th",
    "mode": "most common",
    "streak": "longest run of",
}
#: The parts each operation cannot run without (a tuple of alternatives: any one will do).
#: `Plan` refuses a plan without them, and the chooser's grammar (`choose.plan_schema`)
#: requires them, so neither the words nor the model can build a plan that cannot run.
REQUIRED: dict[str, tuple[tuple[str, ...], ...]] = {
    "rank": (("group_by",),),
    "extreme": (("measure",),),
    "distinct": (("measure",),),
    "values": (("group_by", "measure"),),
    "lookup": (("group_by", "measure"),),
    "trend": (("time",),),  # no measure: the number of rows per period
    "correlation": (("measure",), ("other",)),
    "compare": (("of",), ("test",), ("against", "versus")),
}
#: The farthest a lookup's ``offset`` reaches ("the third episode after X").
MAX_OFFSET = 50
_SYMBOL = {"contains": "contains", "startswith": "starts with", "in": "in", "between": "between"}


class Filter(BaseModel):
    """Rows whose ``column`` meets ``op`` ``value`` (a year for a date column's ``=``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    column: str
    op: FilterOp = "="
    value: Scalar | tuple[Scalar, ...] | None = None
    words: tuple[str, ...] = Field(default=(), exclude=True)  # the question's words

    def describe(self) -> str:
        """``species != 'Adelie'``, ``body_mass_g > 5000``, ``sex is missing``."""
        if self.op == "missing":
            return f"{self.column} is missing"
        if self.op == "present":
            return f"{self.column} is not missing"
        if self.op == "between" and isinstance(self.value, tuple):
            return f"{self.column} between {self.value[0]!r} and {self.value[1]!r}"
        if isinstance(self.value, tuple):
            inside = "not in" if self.op == "!=" else "in"  # != of several: none of them
            return f"{self.column} {inside} ({', '.join(map(repr, self.value))})"
        return f"{self.column} {_SYMBOL.get(self.op, self.op)} {self.value!r}"

    def phrase(self) -> str:
        """The filter as a reader says it: ``species not Adelie``, ``body_mass_g over 5000``."""
        word = {
            "=": "",
            "!=": "not ",
            ">": "over ",
            ">=": "at least ",
            "<": "under ",
            "<=": "at most ",
            "contains": "with ",
            "startswith": "starting with ",
        }
        if self.op in ("missing", "present"):
            return self.describe()
        if isinstance(self.value, tuple):
            shown = [str(v) for v in self.value]
            if self.op == "between":
                return f"{self.column} between {' and '.join(shown)}"
            if self.op == "!=":  # none of them
                if len(shown) == 2:
                    return f"{self.column} neither {shown[0]} nor {shown[1]}"
                return f"{self.column} none of {', '.join(shown)}"
            return f"{self.column} {' or '.join(shown)}"
        return f"{self.column} {word.get(self.op, '')}{self.value}"


class Derived(BaseModel):
    """A column computed from the table's own: ``column`` ``op`` ``other`` (two columns
    of numbers), a text column's ``length`` (characters) or ``words`` (count), a
    column of dates' ``month`` (1 to 12), the ``year`` a cell writes ("8 November
    1986", "2011 (now closed)": the first, where it writes a range), or the ``years`` a
    range of years spans
    ("1997–2006": 9)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: DeriveOp
    column: str
    other: str | None = None

    @model_validator(mode="after")
    def _operands(self) -> Derived:
        two = self.op in ("+", "-", "*", "/")
        if two != (self.other is not None):
            need = "a second column" if two else "no second column"
            raise ValueError(f"derived {self.op!r} takes {need}")
        return self

    @property
    def name(self) -> str:
        """How the plan's other parts and the sentence name it: ``temp_max - temp_min``,
        ``length of Name``, ``words in Name``."""
        if self.op == "length":
            return f"length of {self.column}"
        if self.op == "words":
            return f"words in {self.column}"
        if self.op in ("month", "year"):
            return f"{self.op} of {self.column}"
        if self.op == "years":
            return f"years of {self.column}"
        return f"{self.column} {self.op} {self.other}"


class Plan(BaseModel):
    """One question's query over one table (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: Op
    measure: str | None = None
    agg: Agg = "sum"
    group_by: str | None = None  # a grouping; for extreme/values/lookup: the column reported
    group_by2: str | None = None  # a second grouping
    time: str | None = None
    other: str | None = None  # the second column of a correlation
    filters: tuple[Filter, ...] = ()
    condition: tuple[Filter, ...] = ()  # exists: what the rows must meet; share: the part
    quantifier: Literal["any", "all", "none"] = "any"
    order: Literal["desc", "asc"] = "desc"
    k: int = Field(default=1, ge=1, le=50)
    listed: bool = False  # the answer is a list (of k labels or values), even of one
    labels: bool = True  # rank: the groups' labels (False: their values)
    each: bool = False  # rank: every group's value, "per X" (the answer maps label -> value)
    period: Literal["year", "month", "day"] | None = None
    of: Plan | None = None  # compare: the computed value tested
    test: Literal["=", "!=", "<", "<=", ">", ">="] | None = None  # compare
    against: Scalar | None = None  # compare: a constant
    versus: Plan | None = None  # compare / combine: another computed value
    combine: Literal["difference", "gap", "ratio"] | None = None  # gap: |difference|
    #: lookup: the row this many places after (< 0: before) the one run of matching rows,
    #: in the table's own order ("the episode after X", "who came before Y"); 0: that row
    offset: int = Field(default=0, ge=-MAX_OFFSET, le=MAX_OFFSET)
    near: float | None = None  # extreme: the rows whose measure is closest to this value
    #: rank: the groups whose number of rows meets this test ("appears exactly once":
    #: ``("=", 1)``), every one of them listed, the most rows first
    having: tuple[Literal["=", "!=", "<", "<=", ">", ">="], int] | None = None
    derive: tuple[Derived, ...] = ()  # columns computed first, for every part of the plan
    words: tuple[tuple[str, tuple[str, ...]], ...] = Field(default=(), exclude=True)

    @model_validator(mode="after")
    def _parts(self) -> Plan:
        for alternatives in REQUIRED.get(self.op, ()):
            if all(getattr(self, name) is None for name in alternatives):
                need = " or ".join(alternatives)
                raise ValueError(f"a {self.op} plan needs its {need}")
        if self.having is not None and (self.op != "rank" or self.measure is not None):
            raise ValueError("'having' tests each group's number of rows: a rank of rows")
        if self.near is not None and self.op != "extreme":
            raise ValueError("'near' picks the rows closest to a value: an extreme plan's")
        if self.offset and (self.op != "lookup" or not self.filters):
            raise ValueError("an offset counts rows from the row a lookup's filters match")
        if self.combine is not None and self.versus is None:
            raise ValueError(f"a {self.combine} needs the value it is taken with (versus)")
        return self

    def describe(self) -> str:
        """The plan in one line, for the trace and the cell."""
        bits: list[str] = [self.op]
        if self.op in ("aggregate", "rank", "trend", "compare") and (
            self.measure or self.agg != "sum"
        ):
            bits.append(self.agg)
        bits += [x for x in (self.measure, self.other) if x]
        if self.group_by:
            by = "of" if self.op in ("extreme", "values", "lookup") else "by"
            bits.append(f"{by} {self.group_by}" + (f", {self.group_by2}" if self.group_by2 else ""))
        if self.offset:  # "lookup of Title 1 row after where Title = 'X'"
            side = "after" if self.offset > 0 else "before"
            bits.append(f"{abs(self.offset)} row{'s' if abs(self.offset) > 1 else ''} {side}")
        if self.time:
            bits.append(f"over {self.time}")
        bits += [f"where {f.describe()}" for f in self.filters]
        if self.condition:
            lead = {"any": "any row", "all": "all rows", "none": "no row"}[self.quantifier]
            if self.op == "aggregate":
                lead = "part"
            bits.append(f"{lead}: " + " and ".join(f.describe() for f in self.condition))
        if self.having is not None:
            bits.append(f"having rows {self.having[0]} {self.having[1]}")
        elif self.each:
            bits.append("for each group")
        elif self.op in ("rank", "extreme") or self.listed:
            bits.append(f"{'top' if self.order == 'desc' else 'bottom'} {self.k}")
        if self.op == "compare" and self.of is not None:
            right = f"({self.versus.describe()})" if self.versus else repr(self.against)
            return f"compare ({self.of.describe()}) {self.test} {right}"
        elif self.combine and self.versus:
            bits.append(f"{self.combine} with ({self.versus.describe()})")
        return " ".join(bits)

    def columns(self) -> set[str]:
        """Every column some part of the plan reads, derived ones' sources included."""
        cols = {
            c for c in (self.measure, self.group_by, self.group_by2, self.time, self.other) if c
        }
        cols |= {f.column for f in (*self.filters, *self.condition)}
        for d in self.derive:
            cols |= {d.name, d.column, *([d.other] if d.other else [])}
        for sub in (self.of, self.versus):
            if sub is not None:
                cols |= sub.columns()
        return cols

    def used(self) -> set[str]:
        """Every question word some part of the plan came from."""
        out = {w for _, ws in self.words for w in ws}
        for f in (*self.filters, *self.condition):
            out |= set(f.words)
        for sub in (self.of, self.versus):
            if sub is not None:
                out |= sub.used()
        return out


#: The ends of the table's order, and the ``lookup`` order that reads each ("first": the
#: first matching row).
LOOKUP_ENDS: dict[str, Literal["asc", "desc"]] = vocabulary.mapping("lookup_ends")
