"""Store benchmark: appends, per-turn store overhead, the reload check, two kernels.

Run: ``python benchmarks/bench_store.py [--events 1000] [--appends 500] [--no-mlx]``

1. Append latency per event (appends/s) for memory, SQLite and `DatabaseStore`
   on a real PostgreSQL (a temporary cluster with default durability, fsync on).
2. Per-turn store overhead: a whole `ScriptedBackend` turn through `AgentRunner`
   on each store, minus the same turn on `MemoryStore`.
3. TTFT overhead of the per-turn lease + reload check when nothing changed:
   the embedded MLX model, turns alternating between a runner on a real store
   and one on the same store with the check taken out (target <= 1.02x).
4. Two kernels (processes) alternating 50 turns on one session, on SQLite and
   PostgreSQL: failures and orphan user messages (both must be 0).

Appends are timed one event at a time (each is one transaction for SQLite),
with turn-shaped events: a user message carrying a state delta, a tool call,
a tool result of a few KB, the model's text and a `TurnComplete`. Resume is
what a restarted kernel does: open the file, load the session, and (through
`AgentRunner`) build the session object with its merged state.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_nb import AgentRunner, GenerationConfig
from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
    Usage,
)
from agent_nb.backends import ScriptedBackend
from agent_nb.stores import (
    DatabaseStore,
    LeaseOwner,
    MemoryStore,
    SessionRecord,
    SessionStore,
    SQLiteStore,
)
from tests.fixtures_postgres import TempPostgres, pg_bin
from tests.runtime.test_shared_store import Kernel, stored_events, user_texts

__all__ = ["main"]

APP, USER = "agent_nb", "default"


def turn_event(i: int) -> Event:
    turn, step = divmod(i, 5)
    inv = f"inv{turn}"
    if step == 0:
        return TextMessage(
            text=f"question {turn}: " + "words " * 40,
            author="user",
            invocation_id=inv,
            state_delta={"turn": turn, "user:asked": turn},
        )
    if step == 1:
        return FunctionCall(name="lookup", args={"q": turn}, author="m", invocation_id=inv)
    if step == 2:
        return FunctionResponse(
            name="lookup", response={"rows": ["r" * 40] * 50}, author="m", invocation_id=inv
        )
    if step == 3:
        return TextMessage(text="answer " * 60, author="m", invocation_id=inv)
    return TurnComplete(usage=Usage(prompt_tokens=300, generated_tokens=60), invocation_id=inv)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_appends(store: SessionStore, n: int) -> list[float]:
    record = store.create_session(APP, USER, "bench")
    out = []
    for i in range(n):
        event = turn_event(i)
        start = time.perf_counter()
        store.append_event(record, event)
        out.append(time.perf_counter() - start)
    return out


def fill(store: SessionStore, session_id: str, n: int) -> None:
    record = store.create_session(APP, USER, session_id)
    for i in range(n):
        store.append_event(record, turn_event(i))


def best_of(repeats: int, fn: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


class _UncheckedSQLite(SQLiteStore):
    """The baseline for (3): a turn neither takes a lease nor reads the revision."""

    def _lease(
        self, record: SessionRecord, owner: LeaseOwner, now: float, until: float
    ) -> int | None:
        return record.revision

    def _renew(self, record: SessionRecord, owner: LeaseOwner, until: float | None) -> None:
        return None


class _UncheckedDatabase(DatabaseStore):
    def _lease(
        self, record: SessionRecord, owner: LeaseOwner, now: float, until: float
    ) -> int | None:
        return record.revision

    def _renew(self, record: SessionRecord, owner: LeaseOwner, until: float | None) -> None:
        return None


def turn_times(store: SessionStore, turns: int) -> list[float]:
    runner = AgentRunner(model=ScriptedBackend(), store=store)
    session = runner.get_or_create_session("turns")
    out = []
    for i in range(turns):
        start = time.perf_counter()
        session.run(f"question {i}", state_delta={"n": i})
        out.append(time.perf_counter() - start)
    runner.shutdown()
    return out


def ttft_pair(make: dict[str, Callable[[], SessionStore]], turns: int) -> dict[str, list[float]]:
    """Alternate MLX turns between runners on each store; time to the first token."""
    from agent_nb.backends.mlx import MLXBackend

    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    config = GenerationConfig(max_tokens=4, temperature=0.0)
    runners = {name: AgentRunner(model=backend, store=fn()) for name, fn in make.items()}
    sessions = {
        name: r.get_or_create_session(f"ttft-{i}") for i, (name, r) in enumerate(runners.items())
    }
    first: dict[str, float] = {}

    def stamp(name: str) -> Callable[[Event | None], None]:
        def on_event(event: Event | None) -> None:
            if isinstance(event, TextMessage) and event.is_partial:
                first.setdefault(name, time.perf_counter())

        return on_event

    for name, session in sessions.items():
        session.subscribe(stamp(name))
    out: dict[str, list[float]] = {name: [] for name in make}
    names = list(make)
    for i in range(turns + 1):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            first.pop(name, None)
            start = time.perf_counter()
            sessions[name].run(f"Say one word about the number {i}.", config=config)
            if i:  # the first turn of each loads caches: not timed
                out[name].append(first[name] - start)
    for runner in runners.values():
        runner.shutdown()
    backend.close()
    return out


def check_times(store: SessionStore, n: int) -> list[float]:
    """What a turn adds before its first token when nothing changed: take the lease,
    compare the revision (and give the lease back, which happens after the turn)."""
    record = store.create_session(APP, USER, "check")
    holder = LeaseOwner.here()
    out = []
    for _ in range(n):
        start = time.perf_counter()
        assert store.begin_turn(record, holder) == record.revision
        out.append(time.perf_counter() - start)
        store.end_turn(record, holder)
    store.close()
    return out


def two_kernels(url: str, turns: int) -> tuple[int, int, int]:
    """Failures, orphan user messages and stored user messages after alternating turns."""
    a, b = Kernel(url), Kernel(url)
    failures = 0
    try:
        for i in range(turns):
            kernel = a if i % 2 == 0 else b
            failures += not kernel.ask(op="turn", sid="main", text=f"turn {i}")["ok"]
    finally:
        a.stop()
        b.stop()
    events = stored_events(url, "main")
    by_turn: dict[str, list[Event]] = {}
    for event in events:
        by_turn.setdefault(event.invocation_id, []).append(event)
    orphans = sum(not isinstance(turn[-1], TurnComplete) for turn in by_turn.values())
    return failures, orphans, len(user_texts(events))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--appends", type=int, default=500)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--ttft-turns", type=int, default=20)
    parser.add_argument("--no-mlx", action="store_true", help="skip the TTFT comparison")
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        pg = stack.enter_context(TempPostgres(fast=False)) if pg_bin() else None
        print(f"append latency per event ({args.appends} turn-shaped events, ms)")
        print(f"{'store':<30}{'median':>9}{'p95':>9}{'max':>9}{'appends/s':>11}")
        medians = {}
        stores: list[tuple[str, Callable[[], SessionStore]]] = [
            ("MemoryStore", MemoryStore),
            ("SQLiteStore durable=False", lambda: SQLiteStore(folder / "fast.db", durable=False)),
            ("SQLiteStore (default)", lambda: SQLiteStore(folder / "durable.db")),
            ("DatabaseStore sqlite:///", lambda: DatabaseStore(f"sqlite:///{folder}/db.db")),
        ]
        if pg is not None:
            stores.append(("DatabaseStore PostgreSQL", lambda: DatabaseStore(pg.fresh_url())))
        else:
            print("(PostgreSQL is not installed: its rows are skipped)")
        for name, make in stores:
            store = make()
            times = [t * 1e3 for t in time_appends(store, args.appends)]
            store.close()
            medians[name] = statistics.median(times)
            print(
                f"{name:<30}{medians[name]:>9.3f}{percentile(times, 0.95):>9.3f}"
                f"{max(times):>9.3f}{1e3 / medians[name]:>11.0f}"
            )

        print(f"\nper-turn store overhead ({args.turns} ScriptedBackend turns, ms per turn)")
        turn_medians = {}
        for name, make in stores:
            store = make()
            turn_medians[name] = statistics.median(turn_times(store, args.turns)) * 1e3
            store.close()
        base = turn_medians["MemoryStore"]
        for name, value in turn_medians.items():
            print(f"{name:<30} turn {value:8.2f}   store overhead {value - base:8.2f}")

        db = folder / "resume.db"
        seed = SQLiteStore(db, durable=False)
        fill(seed, "big", args.events)
        seed.close()
        size_kb = sum(p.stat().st_size for p in folder.glob("resume.db*")) / 1024

        def store_resume() -> None:
            store = SQLiteStore(db)
            record = store.get_session(APP, USER, "big")
            assert record is not None and len(record.events) == args.events
            store.merged_state(record)
            store.close()

        def runner_resume() -> None:
            runner = AgentRunner(model=ScriptedBackend(), store=f"sqlite:///{db}")
            session = runner.get_or_create_session("big")
            assert len(session.history) == args.events
            _ = session.state
            runner.shutdown()

        print(f"\nresume a {args.events}-event session ({size_kb:.0f} KiB on disk), ms")
        for name, fn in (
            ("SQLiteStore open + get_session", store_resume),
            ("new AgentRunner + get_or_create", runner_resume),
        ):
            times = [t * 1e3 for t in best_of(args.repeats, fn)]
            print(f"{name:<34} median {statistics.median(times):8.2f}   min {min(times):8.2f}")

        mem = medians["MemoryStore"]
        print(
            "\nratios to MemoryStore append median: "
            + ", ".join(f"{k} x{v / mem:.0f}" for k, v in medians.items() if k != "MemoryStore")
        )

        if not args.no_mlx:
            pairs: list[tuple[str, Callable[[], SessionStore], Callable[[], SessionStore]]] = [
                (
                    "SQLite",
                    lambda: SQLiteStore(folder / "ttft.db"),
                    lambda: _UncheckedSQLite(folder / "ttft.db"),
                )
            ]
            if pg is not None:
                url = pg.fresh_url()
                pairs.append(
                    ("PostgreSQL", lambda: DatabaseStore(url), lambda: _UncheckedDatabase(url))
                )
            print(
                "\nTTFT with the per-turn lease + reload check, nothing changed "
                f"(embedded MLX model, {args.ttft_turns} alternating turns each, ms)"
            )
            for label, checked, unchecked in pairs:
                got = ttft_pair({"checked": checked, "unchecked": unchecked}, args.ttft_turns)
                on, off = (statistics.median(got[k]) * 1e3 for k in ("checked", "unchecked"))
                low_on, low_off = (min(got[k]) * 1e3 for k in ("checked", "unchecked"))
                check = statistics.median(check_times(checked(), 200)) * 1e3
                print(
                    f"{label:<11} median with {on:7.1f} without {off:7.1f} (x{on / off:.3f}); "
                    f"min with {low_on:7.1f} without {low_off:7.1f} (x{low_on / low_off:.3f})"
                )
                print(
                    f"{'':<11} the check itself: median {check:.2f} ms before the first token "
                    f"-> (TTFT + check) / TTFT = x{(off + check) / off:.3f} (target <= 1.02)"
                )

        print("\ntwo kernels (processes) alternating 50 turns on session 'main'")
        targets = [("SQLite", f"sqlite:///{folder}/two.db")]
        if pg is not None:
            targets.append(("PostgreSQL", pg.fresh_url()))
        for label, url in targets:
            start = time.perf_counter()
            failures, orphans, stored = two_kernels(url, 50)
            took = time.perf_counter() - start
            print(
                f"{label:<12} failures {failures}   orphan user messages {orphans}   "
                f"stored turns {stored}/50   ({took:.1f} s)"
            )


if __name__ == "__main__":
    main()
