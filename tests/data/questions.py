"""The question set: questions over real tables, each with its plan's operation and a
truth computed here with pandas (a name, a number, or both), shared by the plan
tests and ``benchmarks/bench_data.py``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pandas as pd

from tests.data.tables import table

__all__ = ["QUESTIONS", "Question"]

Truth = Callable[[pd.DataFrame], tuple[Any, float | None]]


@dataclasses.dataclass(frozen=True)
class Question:
    table: str
    text: str
    op: str
    truth: Truth  # (the answer's name or None, its number or None)
    kind: str = ""  # what it covers: synonym, no column, index, per-group trend...

    def frame(self) -> pd.DataFrame:
        return table(self.table)


def top(series: pd.Series, ascending: bool = False) -> tuple[Any, float]:
    s = series.dropna().sort_values(ascending=ascending, kind="stable")
    return str(s.index[0]), float(s.iloc[0])


def growth(series: pd.Series) -> tuple[None, float]:
    s = series.dropna().sort_index()
    return None, abs((s.iloc[-1] - s.iloc[0]) / abs(s.iloc[0]) * 100)


def year_of(df: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_datetime(df[column]).dt.year


def _q(table: str, text: str, op: str, truth: Truth, kind: str = "") -> Question:
    return Question(table, text, op, truth, kind)


def _stocks_change(d: pd.DataFrame) -> tuple[Any, float]:
    by = d.groupby(["symbol", year_of(d, "date")])["price"].mean()
    change = {
        s: growth(by[s])[1] * (1 if by[s].iloc[-1] >= by[s].iloc[0] else -1)
        for s in by.index.levels[0]
    }
    best = max(change, key=lambda s: change[s])
    return best, change[best]


def _iowa_change(d: pd.DataFrame) -> tuple[Any, float]:
    by = d.groupby(["source", year_of(d, "year")])["net_generation"].sum()
    change = {
        s: (by[s].iloc[-1] - by[s].iloc[0]) / abs(by[s].iloc[0]) * 100 for s in by.index.levels[0]
    }
    best = max(change, key=lambda s: change[s])
    return best, change[best]


QUESTIONS: tuple[Question, ...] = (
    # penguins
    _q(
        "penguins",
        "Which species has the highest mean body mass?",
        "rank",
        lambda d: top(d.groupby("species")["body_mass_g"].mean()),
    ),
    _q(
        "penguins",
        "Which species is heaviest?",
        "rank",
        lambda d: top(d.groupby("species")["body_mass_g"].mean()),
        "synonym",
    ),
    _q(
        "penguins",
        "How many Adelie penguins are there?",
        "aggregate",
        lambda d: (None, float((d.species == "Adelie").sum())),
        "value",
    ),
    _q(
        "penguins",
        "What is the most common island?",
        "aggregate",
        lambda d: (d.island.mode()[0], float(d.island.value_counts().iloc[0])),
    ),
    _q(
        "penguins",
        "How many species are there?",
        "aggregate",
        lambda d: (None, float(d.species.nunique())),
    ),
    _q(
        "penguins",
        "What is the average flipper length of Gentoo penguins?",
        "aggregate",
        lambda d: (None, float(d[d.species == "Gentoo"].flipper_length_mm.mean())),
        "value",
    ),
    _q(
        "penguins",
        "Which island has the most penguins?",
        "rank",
        lambda d: top(d.groupby("island").size().astype(float)),
        "count",
    ),
    _q(
        "penguins",
        "How many missing values are there?",
        "missing",
        lambda d: (None, float(d.isna().sum().sum())),
    ),
    _q(
        "penguins",
        "How many missing values does sex have?",
        "missing",
        lambda d: (None, float(d.sex.isna().sum())),
    ),
    _q(
        "penguins",
        "Is bill length correlated with flipper length?",
        "correlation",
        lambda d: (None, round(float(d.bill_length_mm.corr(d.flipper_length_mm)), 2)),
    ),
    _q("penguins", "How many rows does the table have?", "shape", lambda d: (None, float(len(d)))),
    _q(
        "penguins",
        "Which species has the lowest median bill depth?",
        "rank",
        lambda d: top(d.groupby("species")["bill_depth_mm"].median(), ascending=True),
    ),
    _q(
        "penguins",
        "What share of the penguins are Chinstrap?",
        "aggregate",
        lambda d: (None, float((d.species == "Chinstrap").mean() * 100)),
        "share",
    ),
    _q(
        "penguins",
        "What is the total body mass by island?",
        "rank",
        lambda d: top(d.groupby("island")["body_mass_g"].sum()),
    ),
    _q(
        "penguins",
        "What is the longest flipper?",
        "aggregate",
        lambda d: (None, float(d.flipper_length_mm.max())),
        "synonym",
    ),
    _q("penguins", "Tell me about the moon.", "columns", lambda d: (None, None), "no column"),
    # cars
    _q(
        "cars",
        "Which origin has the highest Miles_per_Gallon?",
        "rank",
        lambda d: top(d.groupby("Origin")["Miles_per_Gallon"].mean()),
    ),
    _q(
        "cars",
        "Which car has the most horsepower?",
        "extreme",
        lambda d: (d.loc[d.Horsepower.idxmax(), "Name"], float(d.Horsepower.max())),
        "label",
    ),
    _q(
        "cars",
        "What is the average weight?",
        "aggregate",
        lambda d: (None, float(d.Weight_in_lbs.mean())),
        "unit",
    ),
    _q(
        "cars",
        "Which car is the lightest?",
        "extreme",
        lambda d: (d.loc[d.Weight_in_lbs.idxmin(), "Name"], float(d.Weight_in_lbs.min())),
        "synonym",
    ),
    _q(
        "cars",
        "How did mean horsepower change over the years?",
        "trend",
        lambda d: growth(d.groupby(year_of(d, "Year"))["Horsepower"].mean()),
    ),
    _q(
        "cars",
        "What is the most common number of cylinders?",
        "aggregate",
        lambda d: (str(d.Cylinders.mode()[0]), float(d.Cylinders.value_counts().iloc[0])),
        "small ints",
    ),
    _q(
        "cars",
        "Top 3 origins by number of cars",
        "rank",
        lambda d: top(d.groupby("Origin").size().astype(float)),
    ),
    _q(
        "cars",
        "What is the median acceleration for Europe?",
        "aggregate",
        lambda d: (None, float(d[d.Origin == "Europe"].Acceleration.median())),
        "value",
    ),
    _q(
        "cars",
        "Which year had the highest average miles per gallon?",
        "rank",
        lambda d: top(d.groupby(year_of(d, "Year"))["Miles_per_Gallon"].mean()),
        "time group",
    ),
    _q(
        "cars",
        "Is weight related to horsepower?",
        "correlation",
        lambda d: (None, round(float(d.Weight_in_lbs.corr(d.Horsepower)), 2)),
    ),
    # stocks
    _q(
        "stocks",
        "How did MSFT's price change over time?",
        "trend",
        lambda d: growth(
            d[d.symbol == "MSFT"].groupby(year_of(d[d.symbol == "MSFT"], "date"))["price"].mean()
        ),
        "value",
    ),
    _q("stocks", "How did each symbol's price change?", "trend", _stocks_change, "per-group trend"),
    _q(
        "stocks",
        "Which symbol has the highest average price?",
        "rank",
        lambda d: top(d.groupby("symbol")["price"].mean()),
    ),
    _q(
        "stocks",
        "What was the highest price of IBM?",
        "aggregate",
        lambda d: (None, float(d[d.symbol == "IBM"].price.max())),
        "value",
    ),
    _q(
        "stocks",
        "When was AMZN's price highest?",
        "extreme",
        lambda d: (
            d.loc[d[d.symbol == "AMZN"].price.idxmax(), "date"].strftime("%Y-%m-%d"),
            float(d[d.symbol == "AMZN"].price.max()),
        ),
        "date label",
    ),
    _q(
        "stocks",
        "How many distinct symbols are there?",
        "aggregate",
        lambda d: (None, float(d.symbol.nunique())),
    ),
    # weather
    _q(
        "weather",
        "Which month had the most precipitation?",
        "rank",
        lambda d: top(
            d.groupby(pd.to_datetime(d.date).dt.to_period("M").astype(str))["precipitation"].sum()
        ),
        "time group",
    ),
    _q(
        "weather",
        "What was the lowest temp_min?",
        "aggregate",
        lambda d: (None, float(d.temp_min.min())),
        "min in a name",
    ),
    _q(
        "weather",
        "What is the most common weather?",
        "aggregate",
        lambda d: (d.weather.mode()[0], float(d.weather.value_counts().iloc[0])),
    ),
    _q(
        "weather",
        "What is the highest temperature?",
        "aggregate",
        lambda d: (None, float(d.temp_max.max())),
        "synonym",
    ),
    _q("weather", "What is the average wind?", "aggregate", lambda d: (None, float(d.wind.mean()))),
    _q(
        "weather",
        "Which weather has the highest mean temp_max?",
        "rank",
        lambda d: top(d.groupby("weather")["temp_max"].mean()),
    ),
    _q(
        "weather",
        "How many days of snow were there?",
        "aggregate",
        lambda d: (None, float((d.weather == "snow").sum())),
        "value",
    ),
    _q(
        "weather",
        "Which year was the warmest?",
        "rank",
        lambda d: top(d.groupby(year_of(d, "date"))["temp_max"].mean()),
        "synonym, time group",
    ),
    _q(
        "weather",
        "How did the mean temp_max change over the years?",
        "trend",
        lambda d: growth(d.groupby(year_of(d, "date"))["temp_max"].mean()),
    ),
    # iowa electricity
    _q(
        "iowa",
        "Which source has the most net generation?",
        "rank",
        lambda d: top(d.groupby("source")["net_generation"].sum()),
    ),
    _q(
        "iowa",
        "How did renewables change over time?",
        "trend",
        lambda d: growth(
            d[d.source == "Renewables"]
            .groupby(year_of(d[d.source == "Renewables"], "year"))["net_generation"]
            .sum()
        ),
        "value, no measure named",
    ),
    _q(
        "iowa",
        "How did each source's net generation change?",
        "trend",
        _iowa_change,
        "per-group trend",
    ),
    _q(
        "iowa",
        "What is the total net generation in 2010?",
        "aggregate",
        lambda d: (None, float(d[year_of(d, "year") == 2010].net_generation.sum())),
        "year filter",
    ),
    _q(
        "iowa",
        "What share of net generation comes from Renewables?",
        "aggregate",
        lambda d: (
            None,
            float(d[d.source == "Renewables"].net_generation.sum() / d.net_generation.sum() * 100),
        ),
        "share of a measure",
    ),
    # barley
    _q(
        "barley",
        "Which site has the highest mean yield?",
        "rank",
        lambda d: top(d.groupby("site")["yield"].mean()),
    ),
    _q(
        "barley",
        "Which variety has the lowest average yield?",
        "rank",
        lambda d: top(d.groupby("variety")["yield"].mean(), ascending=True),
    ),
    _q(
        "barley",
        "What is the mean yield in 1931?",
        "aggregate",
        lambda d: (None, float(d[d.year == 1931]["yield"].mean())),
        "year filter",
    ),
    _q(
        "barley",
        "How many varieties are there?",
        "aggregate",
        lambda d: (None, float(d.variety.nunique())),
    ),
    _q(
        "barley",
        "What is the mean yield at Morris?",
        "aggregate",
        lambda d: (None, float(d[d.site == "Morris"]["yield"].mean())),
        "value",
    ),
    # state crime: the index holds the states
    _q(
        "crime",
        "Which state has the highest murder rate?",
        "extreme",
        lambda d: (d.murder.idxmax(), float(d.murder.max())),
        "index",
    ),
    _q(
        "crime",
        "What is the poverty rate in Iowa?",
        "aggregate",
        lambda d: (None, float(d.loc["Iowa", "poverty"])),
        "index value",
    ),
    _q(
        "crime",
        "Which are the bottom 3 states by violent crime?",
        "extreme",
        lambda d: (d.violent.idxmin(), float(d.violent.min())),
        "index, top-k",
    ),
    _q(
        "crime",
        "Is poverty correlated with murder?",
        "correlation",
        lambda d: (None, round(float(d.poverty.corr(d.murder)), 2)),
    ),
    _q(
        "crime",
        "Who has the highest hs_grad?",
        "extreme",
        lambda d: (d.hs_grad.idxmax(), float(d.hs_grad.max())),
        "index, no label named",
    ),
    _q("crime", "What is the average urban?", "aggregate", lambda d: (None, float(d.urban.mean()))),
    # longley: a float YEAR column is time
    _q(
        "longley",
        "How did GNP change over time?",
        "trend",
        lambda d: growth(d.set_index("YEAR").GNP),
    ),
    _q(
        "longley",
        "In which year was unemployment highest?",
        "rank",
        lambda d: (str(int(d.loc[d.UNEMP.idxmax(), "YEAR"])), float(d.UNEMP.max())),
        "synonym, year",
    ),
    _q(
        "longley",
        "What was the total population in 1950?",
        "aggregate",
        lambda d: (None, float(d[d.YEAR == 1950].POP.sum())),
        "synonym, year filter",
    ),
    # wine and iris (scikit-learn): a small-integer target is a category
    _q(
        "wine",
        "Which target has the highest mean alcohol?",
        "rank",
        lambda d: top(d.groupby("target")["alcohol"].mean()),
        "small ints",
    ),
    _q(
        "wine",
        "What is the average magnesium?",
        "aggregate",
        lambda d: (None, float(d.magnesium.mean())),
    ),
    _q(
        "wine",
        "Is alcohol correlated with proline?",
        "correlation",
        lambda d: (None, round(float(d.alcohol.corr(d.proline)), 2)),
    ),
    _q("wine", "How many rows and columns does it have?", "shape", lambda d: (None, float(len(d)))),
    _q(
        "iris",
        "What is the mean petal length?",
        "aggregate",
        lambda d: (None, float(d["petal length (cm)"].mean())),
        "unit in a name",
    ),
    _q(
        "iris",
        "Which target has the largest mean sepal width?",
        "rank",
        lambda d: top(d.groupby("target")["sepal width (cm)"].mean()),
    ),
    _q(
        "iris",
        "What does quantum entanglement mean?",
        "columns",
        lambda d: (None, None),
        "no column",
    ),
    # issue 37: negations, thresholds, several values, booleans, lists (three phrasings each)
    *(
        _q(
            "penguins",
            text,
            "aggregate",
            lambda d: (None, float((d.body_mass_g > 5000).sum())),
            "threshold",
        )
        for text in (
            "How many penguins weigh more than 5000 g?",
            "Count the penguins with a body mass above 5000.",
            "How many penguins have body_mass_g over 5000?",
        )
    ),
    *(
        _q(
            "penguins",
            text,
            "aggregate",
            lambda d: (None, float(d[d.species != "Adelie"].body_mass_g.mean())),
            "negation",
        )
        for text in (
            "What is the average body mass of penguins that are not Adelie?",
            "Average body mass of the penguins other than Adelie?",
            "Excluding Adelie, what is the mean body mass?",
        )
    ),
    *(
        _q(
            "penguins",
            text,
            "aggregate",
            lambda d: (None, float((~d.island.isin(["Biscoe", "Dream"])).sum())),
            "negation of several values",  # none of them, not "in"
        )
        for text in (
            "How many penguins did not live on Biscoe or Dream?",
            "How many penguins are not from Biscoe or Dream?",
        )
    ),
    *(
        _q(
            "penguins",
            text,
            "aggregate",
            lambda d: (None, float(d.species.isin(["Adelie", "Gentoo"]).sum())),
            "several values",
        )
        for text in (
            "How many penguins are Adelie or Gentoo?",
            "Count the Adelie and Gentoo penguins.",
            "How many rows have species Adelie or Gentoo?",
        )
    ),
    *(
        _q("penguins", text, "compare", lambda d: ("Yes", None), "boolean")
        for text in (
            "Are there more Adelie than Gentoo penguins?",
            "Is the number of Adelie penguins greater than the number of Gentoo penguins?",
            "Do Adelie penguins outnumber Gentoo penguins?",
        )
    ),
    *(
        _q("cars", text, "exists", lambda d: ("No", None), "boolean")
        for text in (
            "Is there any car with more than 8 cylinders?",
            "Does any car have more than 8 cylinders?",
            "Are there cars with over 8 cylinders?",
        )
    ),
    *(
        _q(
            "cars",
            text,
            "distinct",  # the values Horsepower takes, each once
            lambda d: (None, float(d.Horsepower.nlargest(3).iloc[0])),
            "list",
        )
        for text in (
            "List the 3 highest Horsepower values.",
            "What are the top 3 horsepower values?",
        )
    ),
    _q(
        "cars",
        "List the three largest horsepower figures.",
        "extreme",
        lambda d: (None, float(d.Horsepower.nlargest(3).iloc[0])),
        "list",
    ),
    *(
        _q("penguins", text, "distinct", lambda d: ("Torgersen", None), "list")
        for text in (
            "Which islands are there?",
            "List the different islands.",
            "What are the unique values of island?",
        )
    ),
)
