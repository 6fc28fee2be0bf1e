"""The SIGKILL crash test of `test_sqlite_crash` on a real PostgreSQL server.

A writer process appends planned events through `DatabaseStore` and is killed
at random moments, 20 rounds; after each, the stored session must be exactly a
prefix of the plan, whole events only, with state and revision agreeing
(`check_record`). Every round reopens the database and continues the plan.
The switch rounds do the same with a process switching branches in a loop.
"""

from __future__ import annotations

import random

from agent_nb.stores import DatabaseStore
from tests.fixtures_postgres import TempPostgres
from tests.stores.crash_writers import WriterServer
from tests.stores.test_sqlite_crash import (
    check_record,
    kill_switcher_at_random,
    kill_writer_at_random,
)


def test_sigkill_at_random_points_on_postgres(
    postgres: TempPostgres, writers: WriterServer
) -> None:
    url = postgres.fresh_url()
    rng = random.Random(20240612)
    count = 0
    rounds = 20
    for _ in range(rounds):
        reported = kill_writer_at_random(writers, url, rng, durable=True, database=True)
        store = DatabaseStore(url)
        try:
            count = check_record(store, reported, count)
        finally:
            store.close()

    assert count > rounds, f"the writer hardly wrote anything ({count} events); kills too early?"


def test_sigkill_mid_switch_on_postgres(postgres: TempPostgres, writers: WriterServer) -> None:
    kill_switcher_at_random(writers, postgres.fresh_url())
