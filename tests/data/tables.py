"""Real tables that ship inside PyPI packages, loaded offline (the ``test`` extra)."""

from __future__ import annotations

import functools
import warnings

import pandas as pd

__all__ = ["TABLES", "table"]


def _vega(name: str) -> pd.DataFrame:
    from vega_datasets import local_data

    with warnings.catch_warnings():  # vega_datasets calls read_json with a deprecated keyword
        warnings.simplefilter("ignore")
        return getattr(local_data, name)()


def _penguins() -> pd.DataFrame:
    from palmerpenguins import load_penguins

    return load_penguins()


def _statsmodels(name: str) -> pd.DataFrame:
    from statsmodels import datasets  # not statsmodels.api: its models take seconds to import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(datasets, name).load_pandas().data


def _sklearn(name: str) -> pd.DataFrame:
    from sklearn import datasets

    return getattr(datasets, f"load_{name}")(as_frame=True).frame


TABLES = {
    "penguins": _penguins,
    "cars": functools.partial(_vega, "cars"),
    "airports": functools.partial(_vega, "airports"),
    "stocks": functools.partial(_vega, "stocks"),
    "weather": functools.partial(_vega, "seattle_weather"),
    "iowa": functools.partial(_vega, "iowa_electricity"),
    "barley": functools.partial(_vega, "barley"),
    "crime": functools.partial(_statsmodels, "statecrime"),  # the index holds the states
    "longley": functools.partial(_statsmodels, "longley"),
    "wine": functools.partial(_sklearn, "wine"),
    "iris": functools.partial(_sklearn, "iris"),
}


@functools.cache
def table(name: str) -> pd.DataFrame:
    return TABLES[name]()
