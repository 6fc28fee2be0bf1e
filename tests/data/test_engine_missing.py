"""Missing values where the data lives: a condition a missing value cannot decide is
unknown (SQL's NULL), kept as such by `filters.mask` and said by the answer, never
counted as failing; no ``COALESCE(..., FALSE)`` turns it into a "no"."""

from __future__ import annotations

from typing import Any

import pytest

from agent_nb.data.answer import ask
from agent_nb.data.engines.filters import mask
from agent_nb.data.query import Filter
from agent_nb.data.sources import source
from tests.data.engine_plans import profiled

pytest.importorskip("ibis")


def _masked(filters: tuple[Filter, ...]) -> list[Any]:
    import ibis

    con = ibis.duckdb.connect()
    t = con.create_table("t", ibis.memtable({"x": [1.0, None, 5.0, None], "y": list("aaab")}))
    got = con.execute(t.select(m=mask(t, filters)))["m"]
    return [None if v is None or v != v else bool(v) for v in got]


def test_the_mask_keeps_what_it_cannot_decide() -> None:
    above = Filter(column="x", op=">", value=3)
    assert _masked((above,)) == [False, None, True, None]
    # three-valued AND: a failed condition decides the row, a missing one alone does not
    assert _masked((above, Filter(column="y", op="=", value="a"))) == [False, None, True, False]
    with pytest.raises(ValueError, match="at least one filter"):
        _masked(())


def test_an_all_question_says_the_rows_it_cannot_decide() -> None:
    import duckdb

    frame = profiled("penguins").df  # body_mass_g is missing in 2 rows
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute("CREATE TABLE penguins AS SELECT * FROM frame")
    con.execute("CALL enable_logging('QueryLog')")
    question = "Do all penguins have a body mass over 2500?"
    on_pandas = ask({"penguins": frame}, question)
    where_it_lives = ask({"penguins": source(con, table="penguins")}, question)
    assert where_it_lives.value is True and where_it_lives.sentence == on_pandas.sentence
    assert where_it_lives.result is not None
    assert where_it_lives.result.frame.to_dict("records") == [
        {"rows that match": 342, "of": 342, "missing": 2}
    ]
    ran = [
        q for (q,) in con.sql("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()
    ]
    assert any("2500" in q for q in ran)  # the plan's own queries were logged
    assert not any("COALESCE" in q.upper() for q in ran)
