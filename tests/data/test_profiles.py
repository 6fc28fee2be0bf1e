"""A table's profile is computed once per table content (`agent_nb.data.profiles`):
kept across questions while the DataFrame is the same object with the same values,
computed again after an in-place change or a rebinding, and never holding a frame
the user deleted."""

from __future__ import annotations

import gc
import weakref

import pandas as pd
from IPython.core.interactiveshell import InteractiveShell

from agent_nb.backends import ScriptedBackend
from agent_nb.data.profiles import content_key, profiled
from tests.data.frames import sales_frame
from tests.fixtures_magics import run


def _answer(shell: InteractiveShell, question: str) -> object:
    shell.user_ns.pop("reply", None)
    result, cap = run(shell, f"%%agent --data sales -o reply\n{question}")
    assert result.success, cap.stderr
    return shell.user_ns["reply"].answer


def test_a_table_changed_in_place_between_two_questions_is_profiled_again(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    # `month` is text the profile parses to dates, so its frame is a copy of the
    # user's: a kept profile of the old content would answer from the old values
    sales = sales_frame()
    shell.user_ns["sales"] = sales
    north = "What is the total units in the North region?"
    assert _answer(shell, north) == sales.units[sales.region == "North"].sum() > 0
    run(shell, 'sales.loc[sales.region == "North", "units"] = 0')  # in place: same object
    assert shell.user_ns["sales"] is sales
    assert _answer(shell, north) == 0
    run(shell, 'sales.loc[0, "region"] = "Central"')  # a value the first profile never saw
    assert _answer(shell, "What is the total units in the Central region?") == sales.units[0]
    run(shell, "sales = sales.assign(units=sales.units + 1)")  # a rebinding
    assert _answer(shell, north) == (sales.region == "North").sum()


def test_the_profile_is_kept_while_the_table_is_the_same() -> None:
    sales = sales_frame()
    first = profiled("sales", sales)
    again = profiled("sales", sales)
    assert again.columns is first.columns  # kept, not computed again
    assert profiled("sales", sales, {"units": "items sold"}).columns is not first.columns
    assert profiled("sales", sales.copy()).columns is not first.columns  # another object

    plain = pd.DataFrame({"region": ["N", "S", "N"], "units": [1, 2, 3]})
    kept = profiled("plain", plain)
    assert kept.df is plain and profiled("plain", plain).df is plain  # the user's frame
    plain.loc[1, "region"] = "E"
    fresh = profiled("plain", plain)
    assert fresh.columns is not kept.columns and "e" in fresh.columns["region"].values


def test_the_cache_holds_no_deleted_table() -> None:
    sales = sales_frame()
    profiled("sales", sales)
    gone = weakref.ref(sales)
    del sales
    gc.collect()
    assert gone() is None


def test_the_content_key_sees_every_kind_of_change() -> None:
    df = pd.DataFrame(
        {
            "tags": [["a"], ["b"], []],
            "meta": [{"k": 1}, {"k": 2}, None],
            "when": pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01"]),
            "kind": pd.Categorical(["x", "y", "x"]),
            "name": ["ann", "bo", "cy"],  # Arrow's text, pandas' default: digested by buffers
            "big": pd.array([1, 2, 3], dtype="int64[pyarrow]"),
            "n": [1.0, 2.0, 3.0],
        },
        index=pd.Index(["r1", "r2", "r3"], name="row"),
    )
    seen = [content_key(df)]

    def changed() -> bool:
        seen.append(content_key(df))
        return seen[-1] not in seen[:-1]

    df.loc["r1", "tags"].append("c")  # inside a list cell
    assert changed()
    df.loc["r2", "meta"]["k"] = 3  # inside a dict cell
    assert changed()
    df.loc["r3", "when"] = pd.Timestamp("2025-01-01")
    assert changed()
    df["kind"] = df["kind"].cat.rename_categories(["u", "v"])  # the same codes
    assert changed()
    df.loc["r1", "name"] = "bob"  # the same length
    assert changed()
    df.loc["r2", "name"] = None
    assert changed()
    df.loc["r3", "big"] = 4
    assert changed()
    df.loc["r2", "n"] = 2.5
    assert changed()
    df.columns = [*df.columns[:-1], "m"]
    assert changed()
    df.index = pd.Index(["r0", "r2", "r3"], name="row")
    assert changed()
    df.attrs["context"] = {"m": "a measure"}
    assert changed()
    assert content_key(df.copy(deep=True)) == content_key(df)  # content, not identity
