"""The replay cache file: recorded answers and prompt counts in one SQLite file, kept
within a byte budget (see `agent_nb._runtime.replay`)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

from ..._core.cache_dir import cache_root
from ..._core.types import FinishReason, Usage
from ...backends import Chunk, Finish, TextDelta, ToolCallChunk

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "MAX_COUNTS",
    "Recorder",
    "Recording",
    "ReplayCache",
    "replay_cache",
]

DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    chunks TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    created REAL NOT NULL,
    used REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
)
"""
_COUNTS = """
CREATE TABLE IF NOT EXISTS counts (
    key TEXT PRIMARY KEY,
    tokens INTEGER NOT NULL,
    used REAL NOT NULL
)
"""
# Every turn's count is a write that prunes by age: an index keeps that off a sort.
_COUNTS_BY_USE = "CREATE INDEX IF NOT EXISTS counts_used ON counts (used)"
#: Prompt counts kept (a row is about 100 bytes); the least recently used go first.
MAX_COUNTS = 20_000


def _path() -> pathlib.Path:
    explicit = os.environ.get("AGENT_NB_REPLAY_FILE")
    return pathlib.Path(explicit).expanduser() if explicit else cache_root() / "replay.sqlite"


def _budget() -> int:
    raw = os.environ.get("AGENT_NB_REPLAY_BUDGET", "").strip()
    if not raw:
        return DEFAULT_BUDGET_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"AGENT_NB_REPLAY_BUDGET must be a number of bytes >= 0, got {raw!r}")
    return value


@dataclasses.dataclass(frozen=True)
class Recording:
    """One model call's chunks as the backend gave them, and how it finished."""

    texts: tuple[str, ...]
    calls: tuple[tuple[str, dict[str, Any], str | None], ...]  # name, args, error
    usage: Usage
    finish: FinishReason

    def to_json(self) -> str:
        return json.dumps(
            {
                "texts": self.texts,
                "calls": self.calls,
                "usage": self.usage.as_dict(),
                "finish": self.finish,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> Recording:
        data = json.loads(text)
        calls = tuple((str(n), dict(a), e) for n, a, e in data["calls"])
        return cls(tuple(data["texts"]), calls, Usage.from_dict(data["usage"]), data["finish"])

    def chunks(self, started: float) -> Iterator[Chunk]:
        """The chunks again: fresh tool call ids, usage marked replayed."""
        for text in self.texts:
            yield TextDelta(text)
        for name, args, error in self.calls:
            yield ToolCallChunk(name, args, error=error)
        usage = dataclasses.replace(
            self.usage,
            prompt_tokens=0,
            cached_tokens=0,
            time_to_first_token_s=time.perf_counter() - started,
            tokens_per_s=None,
            drafted_tokens=0,
            accepted_tokens=0,
            replayed_calls=1,
        )
        yield Finish(usage, self.finish)


class Recorder:
    """Collects a streaming call's chunks (`ModelCall` feeds it)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls: list[tuple[str, dict[str, Any], str | None]] = []

    def add(self, chunk: object) -> None:
        if isinstance(chunk, TextDelta):
            self.texts.append(chunk.text)
        elif isinstance(chunk, ToolCallChunk):
            self.calls.append((chunk.name, dict(chunk.args), chunk.error))

    def recording(self, usage: Usage, finish: FinishReason) -> Recording:
        return Recording(tuple(self.texts), tuple(self.calls), usage, finish)


class ReplayCache:
    """The SQLite file of recorded answers (see the module docstring).

    Every method is safe from any thread and never raises for a broken file:
    a read gives None, a write is skipped, and ``error`` says what happened.
    """

    def __init__(self, path: pathlib.Path, budget: int = DEFAULT_BUDGET_BYTES) -> None:
        self.path = path
        self.budget = budget
        self.hits = 0  # answers replayed by this process
        self.stored = 0  # answers recorded by this process
        self.error: str | None = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=5)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            db.execute(_COUNTS)
            db.execute(_COUNTS_BY_USE)
            with db:
                yield db
        finally:
            db.close()

    def _broken(self, exc: Exception) -> None:
        """Not a database (or unreadable): move it aside, so the next write starts afresh."""
        self.error = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    src = self.path.with_name(self.path.name + suffix)
                    if src.exists():
                        os.replace(src, src.with_name(src.name + ".corrupt"))

    def get(self, key: str) -> Recording | None:
        with self._lock:
            try:
                with self._db() as db:
                    row = db.execute("SELECT chunks FROM answers WHERE key = ?", (key,)).fetchone()
                    if row is None:
                        return None
                    db.execute(
                        "UPDATE answers SET used = ?, hits = hits + 1 WHERE key = ?",
                        (time.time(), key),
                    )
                recording = Recording.from_json(row[0])
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)
                return None
            except (ValueError, KeyError, TypeError) as exc:  # a row this version cannot read
                self.error = f"unreadable answer: {exc}"
                return None
            self.hits += 1
            return recording

    def put(self, key: str, model: str, recording: Recording) -> None:
        payload = recording.to_json()
        size = len(payload.encode())
        if size > self.budget:
            return
        now = time.time()
        with self._lock:
            try:
                with self._db() as db:
                    db.execute(
                        "INSERT OR REPLACE INTO answers (key, model, chunks, bytes, created, "
                        "used, hits) VALUES (?, ?, ?, ?, ?, ?, 0)",
                        (key, model, payload, size, now, now),
                    )
                    self._keep_budget(db)
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)
                return
            self.stored += 1

    def get_count(self, key: str) -> int | None:
        """A prompt's remembered token count, or None."""
        with self._lock:
            try:
                with self._db() as db:
                    row = db.execute("SELECT tokens FROM counts WHERE key = ?", (key,)).fetchone()
                    if row is not None:
                        db.execute("UPDATE counts SET used = ? WHERE key = ?", (time.time(), key))
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)
                return None
        return int(row[0]) if row is not None else None

    def put_count(self, key: str, tokens: int) -> None:
        with self._lock:
            try:
                with self._db() as db:
                    db.execute(
                        "INSERT OR REPLACE INTO counts (key, tokens, used) VALUES (?, ?, ?)",
                        (key, tokens, time.time()),
                    )
                    db.execute(
                        "DELETE FROM counts WHERE key IN (SELECT key FROM counts "
                        "ORDER BY used DESC LIMIT -1 OFFSET ?)",
                        (MAX_COUNTS,),
                    )
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)

    def _keep_budget(self, db: sqlite3.Connection) -> None:
        total = db.execute("SELECT COALESCE(SUM(bytes), 0) FROM answers").fetchone()[0]
        if total <= self.budget:
            return
        for key, size in db.execute("SELECT key, bytes FROM answers ORDER BY used").fetchall():
            db.execute("DELETE FROM answers WHERE key = ?", (key,))
            total -= size
            if total <= self.budget:
                break

    def stats(self) -> dict[str, Any]:
        """Figures for ``%agent sessions``: answers kept, their bytes, hits."""
        entries = size = hits_ever = 0
        with self._lock:
            try:
                if self.path.exists():
                    with self._db() as db:
                        entries, size, hits_ever = db.execute(
                            "SELECT COUNT(*), COALESCE(SUM(bytes), 0), COALESCE(SUM(hits), 0) "
                            "FROM answers"
                        ).fetchone()
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)
        return {
            "path": str(self.path),
            "entries": entries,
            "bytes": size,
            "budget": self.budget,
            "hits": self.hits,
            "hits_ever": hits_ever,
            "stored": self.stored,
            "error": self.error,
        }

    def clear(self) -> None:
        with self._lock:
            try:
                with self._db() as db:
                    db.execute("DELETE FROM answers")
                    db.execute("DELETE FROM counts")
            except (sqlite3.Error, OSError) as exc:
                self._broken(exc)


_caches: dict[tuple[pathlib.Path, int], ReplayCache] = {}
_caches_lock = threading.Lock()


def replay_cache() -> ReplayCache:
    """This process's cache for the file the environment names now."""
    key = (_path(), _budget())
    with _caches_lock:
        cache = _caches.get(key)
        if cache is None:
            cache = _caches[key] = ReplayCache(*key)
        return cache
