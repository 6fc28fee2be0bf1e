"""Replay: a model call identical to one already answered gets the recorded answer.

A teacher rehearses a notebook, restarts the kernel and runs it all again in
class; with greedy decoding every reply is the one the model gave last time,
token for token, and on a CPU each costs seconds. So a model call is keyed by
what decides its reply, and a call seen before streams its recorded chunks
again at once. The seam is the model call (`ModelCall`), not the turn: the
agents, the one loop, history, branches, state deltas and events are exactly
those of a call the model answered, since only the backend's chunks are
replaced.

* **Key**: a SHA-256 of the model's identity (`Backend.replay_identity`: the
  MLX weights' hash, a server's model name; None never replays) and the fully
  rendered request: system text, contents (tool call ids numbered by order,
  since they are fresh each run), tools with their schemas, response schema,
  tool choice and every sampling setting except ``prompt_lookup`` (exact: it
  changes speed, never text). The session id is a cache-affinity key only and
  is left out.
* **What qualifies**: greedy decoding (temperature 0) or an explicit seed; and
  an agent whose tools are all ``@tool(pure=True)`` (an `AgentTool` counts when
  every tool below it is pure), since replayed tool calls run again; a tool
  that needs approval (``@tool(confirm=True)``, an MCP tool that is not
  read-only) never counts, whatever the policy. Only
  calls that ended normally are recorded (stop or length): not a cancelled
  one, a repetition stop or an error.
* **Where it is on**: notebook turns (`%%agent`, `ChatWidget`), through
  `TurnOptions.replay`; off with ``%%agent --fresh``, ``AgentMagics.replay =
  False``, or ``AGENT_NB_REPLAY=0`` (everywhere). Python API turns leave it off
  unless they ask (``session.run(..., replay=True)``).
* **Storage**: one SQLite file, ``replay.sqlite`` in the cache folder (moved
  by ``$AGENT_NB_CACHE_DIR``, or the file itself by ``$AGENT_NB_REPLAY_FILE``),
  with a byte budget (``$AGENT_NB_REPLAY_BUDGET``, default 64 MiB) kept by
  removing the least recently used answers. A file that is missing is made
  again; one that is not a database is moved aside (``.corrupt``) and the call
  runs as a normal one. The cache never fails a turn.
* **Prompt counts**: fitting a request to the window counts its tokens with
  the model's tokenizer, which loads the model. Each count is remembered in the
  same file under the request's key, so a replayed turn loads nothing: the
  identity is a hash of the model's files (`Backend.replay_identity`).
* **KV cache**: a replayed call does not go through the model, so a backend's
  prompt cache does not hold the replayed reply; the next call the model
  answers re-reads the conversation from where its cache stops (once), then
  reuses it as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import os
import pathlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .._core.cache_dir import cache_root
from .._core.types import FinishReason, GenerateContentRequest, Usage
from ..backends import Backend, Chunk, Finish, TextDelta, ToolCallChunk

if TYPE_CHECKING:
    from .context import InvocationContext

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "Recording",
    "ReplayCache",
    "Replayer",
    "agent_is_pure",
    "counter_for",
    "qualifies",
    "replay_cache",
    "replay_enabled",
    "replay_for",
    "request_key",
]

DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024
FORMAT = 1  # bumped when the key or the recording changes shape
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


def replay_enabled() -> bool:
    """``$AGENT_NB_REPLAY``: unset or ``1`` (as each turn asks), or ``0`` (never)."""
    raw = os.environ.get("AGENT_NB_REPLAY", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_REPLAY must be 0 or 1, got {raw!r}")
    return raw != "0"


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


# -- the key --------------------------------------------------------------------


def qualifies(request: GenerateContentRequest) -> bool:
    """Greedy decoding or an explicit seed: the same request gives the same reply."""
    return request.config.temperature == 0 or request.config.seed is not None


def _contents(request: GenerateContentRequest) -> list[Any]:
    ids: dict[str, int] = {}

    def number(call_id: str) -> int:
        return ids.setdefault(call_id, len(ids))

    out: list[Any] = []
    for content in request.contents:
        parts: list[Any] = []
        for part in content.parts:
            if part.function_call is not None:
                call = part.function_call
                parts.append(["call", call.name, dict(call.args), number(call.call_id)])
            elif part.function_response is not None:
                resp = part.function_response
                parts.append(["result", resp.name, dict(resp.response), number(resp.call_id)])
            else:
                parts.append(["text", part.text or ""])
        out.append([content.role.value, parts])
    return out


def request_key(identity: str, request: GenerateContentRequest) -> str:
    """The replay key of ``request`` sent to the model named ``identity``."""
    config = dataclasses.asdict(request.config)
    config.pop("prompt_lookup", None)
    whole = {
        "format": FORMAT,
        "model": identity,
        "system": request.system_instruction,
        "contents": _contents(request),
        "tools": [[t.name, t.description, dict(t.parameters)] for t in request.tools],
        "schema": request.response_schema,
        "tool_choice": request.tool_choice,
        "config": config,
    }
    text = json.dumps(whole, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def agent_is_pure(agent: Any) -> bool:
    """Every tool ``agent`` offers is pure, an `AgentTool` by every tool below it."""
    seen: set[int] = set()

    def pure(node: Any) -> bool:
        if id(node) in seen:
            return True
        seen.add(id(node))
        for tool in getattr(node, "tools", ()):
            if tool.agent is not None:
                if not pure(tool.agent):
                    return False
            elif tool.confirm or not tool.pure:  # one that needs approval acts
                return False
        return all(pure(sub) for sub in getattr(node, "sub_agents", ()))

    return pure(agent)


# -- recordings -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Recording:
    """One model call's chunks as the backend gave them, and how it finished."""

    texts: tuple[str, ...]
    calls: tuple[tuple[str, dict[str, Any], str | None], ...]  # name, args, error
    usage: Usage
    finish: FinishReason

    def to_json(self) -> str:
        return json.dumps(
            {"texts": self.texts, "calls": self.calls, "usage": self.usage.as_dict(),
             "finish": self.finish},
            ensure_ascii=False,
        )  # fmt: skip

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


# -- the file -------------------------------------------------------------------


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
            "path": str(self.path), "entries": entries, "bytes": size, "budget": self.budget,
            "hits": self.hits, "hits_ever": hits_ever, "stored": self.stored, "error": self.error,
        }  # fmt: skip

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


# -- one call ---------------------------------------------------------------------


class Replayer:
    """Replay for one model call: look its answer up, or record it."""

    def __init__(self, cache: ReplayCache, backend: Backend, request: GenerateContentRequest):
        self.cache = cache
        self.backend = backend
        self.request = request
        self.key: str | None = None
        self.identity: str | None = None

    async def lookup(self) -> Recording | None:
        """The recorded answer, or None (the call then goes to the model)."""
        try:
            self.identity = await asyncio.to_thread(self.backend.replay_identity)
        except Exception:  # a model that cannot say what it is is simply not replayed
            return None
        if self.identity is None:
            return None
        self.key = request_key(self.identity, self.request)
        return await asyncio.to_thread(self.cache.get, self.key)

    async def record(self, recording: Recording) -> None:
        if self.key is None or self.identity is None:
            return
        if recording.finish not in ("stop", "length"):
            return
        await asyncio.to_thread(self.cache.put, self.key, self.identity, recording)


def replay_for(
    agent: Any, ctx: InvocationContext, request: GenerateContentRequest
) -> Replayer | None:
    """A `Replayer` when this call may be replayed (see the module docstring), else None."""
    if not ctx.options.replay or not qualifies(request) or not replay_enabled():
        return None
    if not agent_is_pure(agent):
        return None
    return Replayer(replay_cache(), ctx.backend, request)


def counter_for(ctx: InvocationContext) -> Callable[[GenerateContentRequest], int]:
    """The backend's token count, remembered across kernels when the turn replays.

    A count depends on the tokenizer and the request alone, so any request may
    use it (sampling and tools do not matter); only the switches do.
    """
    count = ctx.backend.count_tokens
    if not ctx.options.replay or not replay_enabled():
        return count
    backend, cache = ctx.backend, replay_cache()

    def remembered(request: GenerateContentRequest) -> int:
        try:
            identity = backend.replay_identity()
        except Exception:  # a model that cannot say what it is: count as usual
            identity = None
        if identity is None:
            return count(request)
        key = "count:" + request_key(identity, request)
        found = cache.get_count(key)
        if found is None:
            found = count(request)
            cache.put_count(key, found)
        return found

    return remembered
