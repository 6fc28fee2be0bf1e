"""Questions as people word them: at least three phrasings per intent, written
before the code that answers them (issue 37), each with its answer type and a
truth computed here with pandas.

The intents cover negations, thresholds, several values of one column,
booleans (a value against a constant or another value, any / all, the mode),
lists (top k, distinct values, the values of matching rows, the first rows),
shares with the right base, additive measures ("how many passengers"),
one-character and punctuated values, missing values, "compared to", two
groupings and a row MultiIndex. ``tests/data/test_phrasings.py`` asks each
through the real ``%%agent --data`` magic and scores ``reply.answer`` by
DataBench's rules (`tests.data.scoring`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from tests.data.tables import TABLES, table

__all__ = ["COVERS", "FRAMES", "PHRASINGS", "Phrasing", "frame"]

Truth = Callable[[pd.DataFrame], Any]

#: What the set must cover (each `Phrasing.covers` names one or more of these).
COVERS = (
    "negation",
    "threshold",
    "several values",
    "boolean",
    "list",
    "share",
    "additive",
    "one character",
    "punctuated",
    "missing",
    "compared to",
    "two groupings",
    "multiindex",
)


def _flights() -> pd.DataFrame:
    """Monthly airline passengers, 1949-1960: every year has 12 rows, so a count
    of rows can never tell the busiest year."""
    rng = np.random.default_rng(1949)
    years = range(1949, 1961)
    months = pd.date_range("2001-01", periods=12, freq="MS").strftime("%b")
    rows = [
        (y, m, int(110 + 22 * (y - 1949) + 40 * np.sin(i / 2) + rng.integers(0, 15)))
        for y in years
        for i, m in enumerate(months)
    ]
    return pd.DataFrame(rows, columns=["year", "month", "passengers"])


def _regions() -> pd.DataFrame:
    """Sales by region and quarter; the region names carry punctuation."""
    rng = np.random.default_rng(40)
    regions = ["Asia-Pacific", "North America", "EMEA", "Latin America"]
    rows = [
        (r, q, int(rng.integers(5, 30)), round(float(rng.uniform(100, 900)), 2))
        for r in regions
        for q in ("Q1", "Q2", "Q3", "Q4")
    ]
    return pd.DataFrame(rows, columns=["region", "quarter", "sales", "revenue"])


def _barley_by_site() -> pd.DataFrame:
    """vega's barley with a row MultiIndex (site, variety)."""
    return table("barley").set_index(["site", "variety"]).sort_index()


#: Tables built here, beside those of `tests.data.tables`.
FRAMES: dict[str, Callable[[], pd.DataFrame]] = {
    "flights": _flights,
    "regions": _regions,
    "barley_by_site": _barley_by_site,
}


@functools.cache
def frame(name: str) -> pd.DataFrame:
    return FRAMES[name]() if name in FRAMES else table(name)


@dataclasses.dataclass(frozen=True)
class Phrasing:
    intent: str
    covers: str  # the `COVERS` entries it exercises, comma-separated
    table: str
    kind: str  # DataBench's answer type: boolean, number, category, list[...]
    text: str
    truth: Truth
    percent: bool = False  # a share: the fraction or the percentage both count

    def frame(self) -> pd.DataFrame:
        return frame(self.table)

    def expected(self) -> Any:
        return self.truth(self.frame())


def _intent(
    intent: str,
    covers: str,
    tbl: str,
    kind: str,
    truth: Truth,
    *texts: str,
    percent: bool = False,
) -> tuple[Phrasing, ...]:
    return tuple(Phrasing(intent, covers, tbl, kind, t, truth, percent) for t in texts)


def _not_adelie(d: pd.DataFrame) -> pd.DataFrame:
    return d[d.species != "Adelie"]


def _mean_mass(d: pd.DataFrame, species: str) -> float:
    return float(d[d.species == species].body_mass_g.mean())


def _count(d: pd.DataFrame, species: str) -> int:
    return int((d.species == species).sum())


def _by_year(d: pd.DataFrame) -> pd.Series:
    return d.groupby("year").passengers.sum()


PHRASINGS: tuple[Phrasing, ...] = (
    # negations
    *_intent(
        "count not Adelie",
        "negation",
        "penguins",
        "number",
        lambda d: len(_not_adelie(d)),
        "How many penguins are not Adelie?",
        "How many non-Adelie penguins are there?",
        "Count the penguins whose species is not Adelie.",
    ),
    *_intent(
        "mean mass not Adelie",
        "negation",
        "penguins",
        "number",
        lambda d: _not_adelie(d).body_mass_g.mean(),
        "What is the average body mass of penguins that are not Adelie?",
        "Average body mass of the penguins other than Adelie?",
        "Excluding Adelie, what is the mean body mass of the penguins?",
    ),
    # thresholds
    *_intent(
        "count heavier than 5000 g",
        "threshold",
        "penguins",
        "number",
        lambda d: int((d.body_mass_g > 5000).sum()),
        "How many penguins weigh more than 5000 g?",
        "How many penguins have a body mass above 5000?",
        "Count the penguins heavier than 5000 grams.",
    ),
    *_intent(
        "mean horsepower above 30 mpg",
        "threshold",
        "cars",
        "number",
        lambda d: d[d.Miles_per_Gallon > 30].Horsepower.mean(),
        "What is the average Horsepower of cars with a Miles_per_Gallon above 30?",
        "Mean horsepower of cars that get more than 30 miles per gallon?",
        "For cars with Miles_per_Gallon over 30, what is the average Horsepower?",
    ),
    *_intent(
        "count between 3000 and 4000 g",
        "threshold",
        "penguins",
        "number",
        lambda d: int(d.body_mass_g.between(3000, 4000).sum()),
        "How many penguins weigh between 3000 and 4000 g?",
        "How many penguins have a body mass from 3000 to 4000?",
        "Count the penguins with body_mass_g between 3000 and 4000.",
    ),
    # a threshold on a column computed from two (`query.Derived`)
    *_intent(
        "days with a temperature range above 15",
        "threshold",
        "weather",
        "number",
        lambda d: int(((d.temp_max - d.temp_min) > 15).sum()),
        "How many days had a difference between temp_max and temp_min above 15?",
        "How many rows have temp_max minus temp_min greater than 15?",
        "Count the days where the gap between temp_max and temp_min is more than 15.",
    ),
    *_intent(
        "cars with more horsepower than displacement",
        "threshold",
        "cars",
        "number",
        lambda d: int((d.Horsepower > d.Displacement).sum()),
        "How many cars have a Horsepower greater than their Displacement?",
        "Count the cars whose Horsepower is above the Displacement.",
        "In how many rows does Horsepower exceed Displacement?",
    ),
    # several values of one column
    *_intent(
        "count Adelie or Gentoo",
        "several values",
        "penguins",
        "number",
        lambda d: int(d.species.isin(["Adelie", "Gentoo"]).sum()),
        "How many penguins are Adelie or Gentoo?",
        "How many Adelie and Gentoo penguins are there in total?",
        "Count the penguins whose species is Adelie or Gentoo.",
    ),
    *_intent(
        "mean mpg Europe or Japan",
        "several values",
        "cars",
        "number",
        lambda d: d[d.Origin.isin(["Europe", "Japan"])].Miles_per_Gallon.mean(),
        "What is the average Miles_per_Gallon of cars from Europe or Japan?",
        "Mean Miles_per_Gallon of the cars whose Origin is Europe or Japan?",
        "Average mpg for cars made in Europe or Japan?",
    ),
    # booleans: a computed value against a constant
    *_intent(
        "mean mass above 4000",
        "boolean, threshold",
        "penguins",
        "boolean",
        lambda d: bool(d.body_mass_g.mean() > 4000),
        "Is the average body mass of the penguins above 4000 g?",
        "Is the mean body_mass_g greater than 4000?",
        "Do penguins weigh more than 4000 g on average?",
    ),
    *_intent(
        "mean flipper above 210",
        "boolean, threshold",
        "penguins",
        "boolean",
        lambda d: bool(d.flipper_length_mm.mean() > 210),
        "Is the average flipper length above 210 mm?",
        "Is the mean flipper_length_mm more than 210?",
        "Are flippers longer than 210 mm on average?",
    ),
    # booleans: a computed value against another
    *_intent(
        "more Adelie than Gentoo",
        "boolean, several values",
        "penguins",
        "boolean",
        lambda d: _count(d, "Adelie") > _count(d, "Gentoo"),
        "Are there more Adelie than Gentoo penguins?",
        "Do Adelie penguins outnumber Gentoo penguins?",
        "Is the number of Adelie penguins greater than the number of Gentoo penguins?",
    ),
    *_intent(
        "more Chinstrap than Gentoo",
        "boolean, several values",
        "penguins",
        "boolean",
        lambda d: _count(d, "Chinstrap") > _count(d, "Gentoo"),
        "Are there more Chinstrap than Gentoo penguins?",
        "Do Chinstrap penguins outnumber Gentoo penguins?",
        "Is the count of Chinstrap penguins higher than the count of Gentoo penguins?",
    ),
    # booleans: any / all
    *_intent(
        "any car above 8 cylinders",
        "boolean, threshold, one character",
        "cars",
        "boolean",
        lambda d: bool((d.Cylinders > 8).any()),
        "Is there any car with more than 8 cylinders?",
        "Are there cars with over 8 cylinders?",
        "Does any car have more than 8 cylinders?",
    ),
    *_intent(
        "any penguin above 6000 g",
        "boolean, threshold",
        "penguins",
        "boolean",
        lambda d: bool((d.body_mass_g > 6000).any()),
        "Is there any penguin heavier than 6000 g?",
        "Does any penguin weigh more than 6000 g?",
        "Are there penguins with a body mass above 6000?",
    ),
    *_intent(
        "all Gentoo on Biscoe",
        "boolean",
        "penguins",
        "boolean",
        lambda d: bool((d[d.species == "Gentoo"].island == "Biscoe").all()),
        "Do all Gentoo penguins live on Biscoe?",
        "Are all Gentoo penguins from Biscoe island?",
        "Is every Gentoo penguin on the island Biscoe?",
    ),
    *_intent(
        "all cars 4 cylinders or more",
        "boolean, threshold, one character",
        "cars",
        "boolean",
        lambda d: bool((d.Cylinders >= 4).all()),
        "Do all cars have at least 4 cylinders?",
        "Does every car have 4 or more cylinders?",
        "Are all the cars equipped with 4 cylinders or more?",
    ),
    *_intent(
        "is Biscoe the mode",
        "boolean",
        "penguins",
        "boolean",
        lambda d: d.island.mode()[0] == "Biscoe",
        "Is Biscoe the most common island?",
        "Is the most frequent island Biscoe?",
        "Is Biscoe the island with the most penguins?",
    ),
    # category: the label at a maximum, a lookup, the mode
    *_intent(
        "car with most horsepower",
        "",
        "cars",
        "category",
        lambda d: d.loc[d.Horsepower.idxmax(), "Name"],
        "Which car has the highest Horsepower?",
        "What is the most powerful car?",
        "Name the car with the most horsepower.",
    ),
    *_intent(
        "weather on a date",
        "",
        "weather",
        "category",
        lambda d: d.loc[d.date == pd.Timestamp("2012-01-02"), "weather"].iloc[0],
        "What was the weather on 2012-01-02?",
        "Which weather was recorded for the date 2012-01-02?",
        "On 2012-01-02, what was the weather like?",
    ),
    *_intent(
        "most common weather",
        "",
        "weather",
        "category",
        lambda d: d.weather.mode()[0],
        "Which weather occurs most often?",
        "What weather is the most frequent?",
        "What is the weather on most days?",
    ),
    # numbers: statistics over a filter or the whole table
    *_intent(
        "second highest horsepower",
        "",
        "cars",
        "number",
        lambda d: d.Horsepower.nlargest(2).iloc[-1],
        "What is the second highest Horsepower?",
        "What is the 2nd largest Horsepower value?",
        "Second-highest horsepower among the cars?",
    ),
    *_intent(
        "median temp_max on rain days",
        "",
        "weather",
        "number",
        lambda d: d[d.weather == "rain"].temp_max.median(),
        "What is the median temp_max on rainy days?",
        "Median maximum temperature when the weather was rain?",
        "For days with rain, what is the median temp_max?",
    ),
    *_intent(
        "range of body mass",
        "",
        "penguins",
        "number",
        lambda d: d.body_mass_g.max() - d.body_mass_g.min(),
        "What is the range of body mass?",
        "How wide is the range of body_mass_g?",
        "What is the difference between the largest and the smallest body mass?",
    ),
    *_intent(
        "distinct car names",
        "",
        "cars",
        "number",
        lambda d: d.Name.nunique(),
        "How many different car names are there?",
        "How many unique car names?",
        "Count the distinct names of cars.",
    ),
    *_intent(
        "names starting with ford",
        "",
        "cars",
        "number",
        lambda d: int(d.Name.str.startswith("ford").sum()),
        "How many cars have a name starting with ford?",
        "Count the cars whose Name begins with ford.",
        "How many car names start with 'ford'?",
    ),
    # lists
    *_intent(
        "three heaviest cars",
        "list",
        "cars",
        "list[category]",
        lambda d: d.nlargest(3, "Weight_in_lbs").Name.tolist(),
        "What are the 3 heaviest cars?",
        "Which 3 cars weigh the most?",
        "List the top 3 cars by Weight_in_lbs.",
    ),
    *_intent(
        "three largest weights",
        "list",
        "cars",
        "list[number]",
        lambda d: d.Weight_in_lbs.nlargest(3).tolist(),
        "What are the 3 highest Weight_in_lbs values?",
        "List the three largest car weights.",
        "Top 3 values of Weight_in_lbs?",
    ),
    *_intent(
        "two lowest mpg values",
        "list",
        "cars",
        "list[number]",
        lambda d: d.Miles_per_Gallon.nsmallest(2).tolist(),
        "What are the 2 lowest Miles_per_Gallon values?",
        "List the two smallest Miles_per_Gallon figures.",
        "Bottom 2 values of Miles_per_Gallon?",
    ),
    # "the lowest 3 X values" are the values X takes, each once; the rows' values (repeats
    # kept) when the question says so. The two readings differ here: 9, 10, 10 vs 9, 10, 11.
    *_intent(
        "three lowest distinct mpg values",
        "list",
        "cars",
        "list[number]",
        lambda d: sorted(d.Miles_per_Gallon.dropna().unique())[:3],
        "What are the 3 lowest Miles_per_Gallon values?",
        "List the lowest 3 Miles_per_Gallon values.",
        "Bottom 3 values of Miles_per_Gallon?",
    ),
    *_intent(
        "three lowest mpg values, repeats kept",
        "list",
        "cars",
        "list[number]",
        lambda d: d.Miles_per_Gallon.nsmallest(3).tolist(),
        "List the 3 lowest (non-unique) Miles_per_Gallon values.",
        "What are the 3 lowest Miles_per_Gallon values, even if they are repeated?",
        "List the 3 lowest Miles_per_Gallon values, repeats included.",
    ),
    *_intent(
        "distinct islands",
        "list",
        "penguins",
        "list[category]",
        lambda d: d.island.dropna().unique().tolist(),
        "What are the distinct islands?",
        "Which islands are there?",
        "List the different islands the penguins live on.",
    ),
    *_intent(
        "cars above 220 horsepower",
        "list, threshold",
        "cars",
        "list[category]",
        lambda d: d[d.Horsepower > 220].Name.tolist(),
        "Which cars have more than 220 horsepower?",
        "List the names of cars with Horsepower above 220.",
        "Name the cars whose horsepower exceeds 220.",
    ),
    *_intent(
        "first three car names",
        "list",
        "cars",
        "list[category]",
        lambda d: d.Name.head(3).tolist(),
        "What are the first 3 car names?",
        "List the names of the first 3 cars.",
        "Show the Name of the first three rows.",
    ),
    # shares with the right base
    *_intent(
        "share of Chinstrap that are female",
        "share",
        "penguins",
        "number",
        lambda d: (d[d.species == "Chinstrap"].sex == "female").mean(),
        "What fraction of Chinstrap penguins are female?",
        "What percentage of Chinstrap penguins are female?",
        "Among Chinstrap penguins, what share are female?",
        percent=True,
    ),
    *_intent(
        "share of Japanese cars with 4 cylinders",
        "share, one character",
        "cars",
        "number",
        lambda d: (d[d.Origin == "Japan"].Cylinders == 4).mean(),
        "What percentage of cars from Japan have 4 cylinders?",
        "Of the cars whose Origin is Japan, what fraction have 4 cylinders?",
        "Among Japanese cars, what share has 4 cylinders?",
        percent=True,
    ),
    # additive measures
    *_intent(
        "passengers in 1955",
        "additive",
        "flights",
        "number",
        lambda d: int(d[d.year == 1955].passengers.sum()),
        "How many passengers flew in 1955?",
        "What was the total number of passengers in 1955?",
        "How many passengers were there in 1955?",
    ),
    *_intent(
        "busiest year",
        "additive",
        "flights",
        "category",
        lambda d: str(_by_year(d).idxmax()),
        "Which year had the most passengers?",
        "What was the busiest year?",
        "In which year did the most passengers fly?",
    ),
    # one-character values
    *_intent(
        "cars with 8 cylinders",
        "one character",
        "cars",
        "number",
        lambda d: int((d.Cylinders == 8).sum()),
        "How many cars have 8 cylinders?",
        "How many 8-cylinder cars are there?",
        "Count the cars with 8 cylinders.",
    ),
    *_intent(
        "mpg of 4-cylinder cars",
        "one character",
        "cars",
        "number",
        lambda d: d[d.Cylinders == 4].Miles_per_Gallon.mean(),
        "What is the average Miles_per_Gallon of cars with 4 cylinders?",
        "Mean mpg for 4-cylinder cars?",
        "Average Miles_per_Gallon of the cars that have 4 cylinders?",
    ),
    # punctuated values
    *_intent(
        "sales in Asia-Pacific",
        "punctuated, additive",
        "regions",
        "number",
        lambda d: int(d[d.region == "Asia-Pacific"].sales.sum()),
        "What were the total sales in Asia-Pacific?",
        "Total sales for Asia-Pacific?",
        "How much did Asia-Pacific sell in total?",
    ),
    # missing values
    *_intent(
        "cars without horsepower",
        "missing, negation",
        "cars",
        "number",
        lambda d: int(d.Horsepower.isna().sum()),
        "How many cars have no horsepower value?",
        "How many cars are missing Horsepower?",
        "Count the cars without a Horsepower value.",
    ),
    *_intent(
        "cars with horsepower",
        "missing",
        "cars",
        "number",
        lambda d: int(d.Horsepower.notna().sum()),
        "How many cars have a horsepower value?",
        "How many cars have Horsepower recorded?",
        "Count the cars whose Horsepower is not missing.",
    ),
    # "compared to": a difference or a ratio of two aggregates
    *_intent(
        "Gentoo minus Adelie mass",
        "compared to",
        "penguins",
        "number",
        lambda d: _mean_mass(d, "Gentoo") - _mean_mass(d, "Adelie"),
        "How much heavier are Gentoo penguins than Adelie penguins on average?",
        "What is the difference in average body mass between Gentoo and Adelie?",
        "Average body mass of Gentoo compared to Adelie: by how much is it higher?",
    ),
    *_intent(  # "the difference between" names no direction: its size
        "Adelie and Gentoo mass gap",
        "compared to",
        "penguins",
        "number",
        lambda d: abs(_mean_mass(d, "Adelie") - _mean_mass(d, "Gentoo")),
        "What is the difference in average body mass between Adelie and Gentoo?",
        "Difference between the mean body mass of Adelie penguins and of Gentoo penguins?",
        "What is the difference between Adelie and Gentoo penguins in average body mass?",
    ),
    *_intent(
        "Adelie to Chinstrap ratio",
        "compared to",
        "penguins",
        "number",
        lambda d: _count(d, "Adelie") / _count(d, "Chinstrap"),
        "How many times more Adelie penguins are there than Chinstrap penguins?",
        "What is the ratio of Adelie to Chinstrap penguins?",
        "The number of Adelie penguins compared to Chinstrap penguins, as a ratio?",
    ),
    # two groupings
    *_intent(
        "max mean mass by species and sex",
        "two groupings",
        "penguins",
        "number",
        lambda d: d.groupby(["species", "sex"]).body_mass_g.mean().max(),
        "What is the highest average body mass across species and sex groups?",
        "Grouped by species and sex, what is the largest average body mass?",
        "By species and sex, what is the maximum of the mean body mass?",
    ),
    *_intent(
        "species-island pairs",
        "two groupings",
        "penguins",
        "number",
        lambda d: d.groupby(["species", "island"]).ngroups,
        "How many distinct species and island pairs are there?",
        "How many combinations of species and island are there?",
        "Count the species-island combinations.",
    ),
    # a row MultiIndex
    *_intent(
        "yield at Waseca",
        "multiindex",
        "barley_by_site",
        "number",
        lambda d: d.xs("Waseca", level="site")["yield"].sum(),
        "What is the total yield at Waseca?",
        "Total yield for the site Waseca?",
        "Sum of yield where site is Waseca?",
    ),
    *_intent(
        "site with highest mean yield",
        "multiindex",
        "barley_by_site",
        "category",
        lambda d: d.groupby(level="site")["yield"].mean().idxmax(),
        "Which site has the highest average yield?",
        "Which site yields the most on average?",
        "What site has the largest mean yield?",
    ),
)

assert set(FRAMES).isdisjoint(TABLES)  # a built table never hides a packaged one
