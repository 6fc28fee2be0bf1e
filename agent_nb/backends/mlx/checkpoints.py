"""KV checkpoints: each conversation's cache on disk, so a restart resumes it.

After every generation the backend *captures* its slot (`Checkpoints.capture`:
references to the cache's arrays and a copy of its token ids -- no MLX work,
no copying, so the reply is not delayed). A follow-up job on the MLX thread
cuts the arrays to the tokens they hold and evaluates them; then a writer
thread of this module saves them with mlx-lm's ``save_prompt_cache`` under a
temporary name and renames the file into place (`checkpoint_files`). Holding
the old arrays is safe: MLX never updates an array in place while another
reference to it lives, so the next turn writes into a copy instead.

When a turn's slot holds no cache, or a shorter match than a checkpoint
could give (a restart, a budget eviction, a branch switch), `resume` loads
the checkpoint whose token ids share the longest prefix with the prompt;
the generation then trims it to that prefix and feeds only the rest, as with
a warm cache. Matching by the stored ids themselves, not only by whole-file
prefixes, is what makes a resume as good as a warm turn: a turn's cache ends
with the tokens the model generated, which the next prompt (re-rendered by
the chat template) shares only in part.

What is kept: per key, a new checkpoint replaces those it extends; one that
diverges (the other side of a rewind, a numbered branch, another kernel's
turns) stays until least recently used removal or the per-key cap
(`MAX_PER_KEY`) takes it, because a switch back to that branch can use it.
A checkpoint never answers for tokens it does not hold: its ids are compared
one by one with the prompt, and everything in its header is checked first.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import pathlib
import queue
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..._core.numbers import check_int
from . import checkpoint_files as files
from .chat import common_prefix
from .kv import KVSlot
from .model_identity import model_identity, numerics
from .runtime import LoadedModel

__all__ = [
    "DEFAULT_DISK_BUDGET_BYTES",
    "MAX_PER_KEY",
    "MIN_GAIN",
    "MIN_TOKENS",
    "CheckpointStats",
    "Checkpoints",
    "checkpoints_enabled",
    "open_checkpoints",
]

log = logging.getLogger(__name__)

#: 2 GiB: about 45,000 tokens of the default model's float32 cache (46 KB a
#: token), a dozen 4k-token sessions, on a disk that also holds the model.
#: A checkpoint that falls out only costs one re-read.
DEFAULT_DISK_BUDGET_BYTES = 2 << 30
#: Shorter caches are re-read faster than a file is found and loaded.
MIN_TOKENS = 64
#: A checkpoint is loaded only when it gives this many more tokens than the
#: slot's own cache (loading a file costs about what prefilling a few does).
MIN_GAIN = 16
#: Diverging checkpoints kept per key (branches, rewinds), newest first.
MAX_PER_KEY = 4


@dataclass
class _Write:
    key: str
    parts: files.KeyParts
    tokens: list[int]
    layers: list[tuple[Any, Any, int]]
    epoch: int
    arrays: list[tuple[Any, Any]] = field(default_factory=list)
    captured_at: float = field(default_factory=time.perf_counter)


@dataclass
class CheckpointStats:
    writes: int = 0
    write_failures: int = 0
    resumes: int = 0
    resumed_tokens: int = 0
    corrupt_deleted: int = 0
    #: seconds on the MLX thread (cutting and evaluating) / on the writer thread
    mlx_seconds: float = 0.0
    io_seconds: float = 0.0
    last_resume: dict[str, Any] = field(default_factory=dict)


class Checkpoints:
    """One backend's checkpoints for one store identity."""

    def __init__(
        self,
        *,
        root: pathlib.Path,
        store_identity: str,
        disk_budget: int,
        submit: Callable[[Callable[[], None]], Any],
        on_mlx_thread: Callable[[], bool] = lambda: False,
    ) -> None:
        self.root = root
        self.store_identity = store_identity
        self.store = files.store_hash(store_identity)
        self.disk_budget = disk_budget
        self._submit = submit
        self._on_mlx_thread = on_mlx_thread
        self._model_id: str | None = None
        self._weights = ""
        self._lock = threading.Condition()
        self._pending = 0
        self._epochs: dict[str, int] = {}  # per session, bumped by delete
        self._latest: dict[str, tuple[list[int], pathlib.Path]] = {}  # per key, the last write
        self._queued: dict[str, list[int]] = {}  # per key, the last capture not yet written
        self._headers: dict[tuple[str, float, int], files.Header] = {}
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._closed = False
        self.stats = CheckpointStats()
        root.mkdir(parents=True, exist_ok=True)
        files.remove_stale_temps(root)
        self._writer = threading.Thread(
            target=self._write_loop, name="agent_nb-kv-writer", daemon=True
        )
        self._writer.start()
        _live.add(self)

    # -- identity -------------------------------------------------------------------

    def bind(self, loaded: LoadedModel) -> bool:
        """Compute the model identity once (on first use); False if it has none."""
        if self._model_id is None:
            model_dir = pathlib.Path(loaded.path)
            if not model_dir.is_dir():  # a Hub name mlx-lm resolved itself
                return False
            self._weights = loaded.weights
            self._model_id = model_identity(model_dir, loaded.weights, numerics(), self.root)
        return True

    def use_model_identity(self, identity: str, weights: str) -> None:
        """Take a model identity computed elsewhere (a process that writes or
        checks checkpoints without loading the model: tools, tests)."""
        self._model_id, self._weights = identity, weights

    @property
    def weights(self) -> str:
        return self._weights

    @property
    def model_identity(self) -> str | None:
        return self._model_id

    def _folder(self, parts: files.KeyParts) -> pathlib.Path:
        assert self._model_id is not None
        return parts.folder(self.root, self._model_id, self.store)

    def _expected(self, key: str) -> dict[str, str]:
        assert self._model_id is not None
        return {
            "format": files.FORMAT,
            "model": self._model_id,
            "dtype": self._weights,
            "store": self.store_identity,
            "key": key,
        }

    # -- writing ----------------------------------------------------------------------

    def capture(self, slot: KVSlot) -> bool:
        """Queue a checkpoint of ``slot`` as it is now; True if one was queued.

        Call it while nothing changes the slot (busy on the MLX thread, or
        under the KV store's lock): it only takes references.
        """
        parts = files.split_key(slot.key)
        cache, tokens = slot.cache, slot.tokens
        if self._closed or parts is None or self._model_id is None or not cache:
            return False
        if len(tokens) < MIN_TOKENS or slot.offset() != len(tokens):
            return False
        if any(type(c).__name__ != "KVCache" or c.keys is None for c in cache):
            return False  # rotating, quantised or recurrent caches: not checkpointed
        if self._holds(slot.key, tokens):
            return False  # the last checkpoint (written or queued) holds all of it
        size = sum(2 * c.keys.nbytes * c.offset // max(c.keys.shape[2], 1) for c in cache)
        if size > self.disk_budget:
            return False
        job = _Write(
            slot.key,
            parts,
            list(tokens),
            [(c.keys, c.values, c.offset) for c in cache],
            self._epochs.get(parts.session, 0),
        )
        with self._lock:
            self._pending += 1
            self._queued[slot.key] = job.tokens
        try:
            self._submit(lambda: self._materialise(job))
        except Exception:
            self._done(job)
            return False
        return True

    def _holds(self, key: str, tokens: list[int]) -> bool:
        queued = self._queued.get(key)
        if queued is not None and queued[: len(tokens)] == tokens:
            return True
        latest = self._latest.get(key)
        return latest is not None and latest[0][: len(tokens)] == tokens and latest[1].exists()

    def _materialise(self, job: _Write) -> None:
        """On the MLX thread: the arrays cut to the tokens they hold, evaluated."""
        try:
            import mlx.core as mx

            started = time.perf_counter()
            for keys, values, offset in job.layers:
                job.arrays.append(
                    (mx.contiguous(keys[..., :offset, :]), mx.contiguous(values[..., :offset, :]))
                )
            job.layers = []
            mx.eval(job.arrays)
            self.stats.mlx_seconds += time.perf_counter() - started
        except Exception:
            log.exception("KV checkpoint of %r failed", job.key)
            self.stats.write_failures += 1
            self._done(job)
            return
        self._queue.put(job)

    def _write_loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                self._write(job)
            except Exception:
                log.exception("KV checkpoint of %r failed", job.key)
                self.stats.write_failures += 1
            finally:
                self._done(job)

    def _write(self, job: _Write) -> None:
        from mlx_lm.models.cache import KVCache, save_prompt_cache

        started = time.perf_counter()
        folder = self._folder(job.parts)
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / files.temp_name()
        caches = []
        for keys, values in job.arrays:
            cache = KVCache()
            cache.state = (keys, values, keys.shape[2])
            caches.append(cache)
        metadata = {
            **self._expected(job.key),
            "session": job.parts.session,
            "count": str(len(job.tokens)),
            "tokens_sha256": files.hash_tokens(job.tokens),
            "tokens": files.pack_tokens(job.tokens),
            "kv_dtype": str(job.arrays[0][0].dtype),
        }
        try:
            save_prompt_cache(str(temp), caches, metadata)
            with self._lock:  # against delete_session: never resurrect a deleted session
                if self._closed or self._epochs.get(job.parts.session, 0) != job.epoch:
                    return
                final = folder / files.file_name(job.tokens)
                temp.replace(final)
                self._latest[job.key] = (job.tokens, final)
        finally:
            files.unlink(temp)
        # what this one extends is of no more use; then the per-key cap, newest kept
        others = [f for f in files.key_files(folder) if f.path != final]
        for old in [f for f in others if f.holds_prefix_of(job.tokens)]:
            others.remove(old)
            files.unlink(old.path)
        for old in others[MAX_PER_KEY - 1 :]:
            files.unlink(old.path)
        files.enforce_budget(self.root, self.disk_budget, keep=final)
        self.stats.writes += 1
        self.stats.io_seconds += time.perf_counter() - started

    def _done(self, job: _Write) -> None:
        with self._lock:
            if self._queued.get(job.key) is job.tokens:
                del self._queued[job.key]
            self._pending -= 1
            self._lock.notify_all()

    def flush(self, timeout: float = 60.0) -> bool:
        """Wait until every queued checkpoint is written; False on timeout.

        Never waits on the MLX thread itself: the jobs it would wait for queue there.
        """
        if self._on_mlx_thread():
            return not self._pending
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def close(self, timeout: float = 60.0) -> None:
        """Write what is queued, then stop the writer."""
        self.flush(timeout)
        with self._lock:
            self._closed = True
        self._queue.put(None)
        _live.discard(self)

    # -- reading ----------------------------------------------------------------------

    def _header(self, f: files.CheckpointFile) -> files.Header:
        cache_key = (str(f.path), f.mtime, f.size)
        found = self._headers.get(cache_key)
        if found is None:
            if len(self._headers) > 64:
                self._headers.clear()
            found = self._headers[cache_key] = files.read_header(f.path)
        return found

    def resume(self, slot: KVSlot, prompt: list[int], loaded: LoadedModel) -> int:
        """On the MLX thread, ``slot`` busy: load the best checkpoint into it.

        Returns the prompt tokens the loaded checkpoint shares (0: none loaded).
        """
        parts = files.split_key(slot.key)
        if self._closed or parts is None or not self.bind(loaded):
            return 0
        usable = len(prompt) - 1  # a generation always feeds at least one token
        own = 0
        if slot.cache is not None and slot.offset() == len(slot.tokens):
            own = min(common_prefix(slot.tokens, prompt), usable)
        ranked: list[tuple[int, files.CheckpointFile, files.Header]] = []
        for f in files.key_files(self._folder(parts)):
            if min(f.count, usable) <= own + MIN_GAIN:
                continue  # cannot beat what the slot has
            try:
                header = self._header(f)
            except FileNotFoundError:
                continue
            except files.CorruptCheckpoint as exc:
                self._discard(f, str(exc))
                continue
            shared = min(common_prefix(header.tokens, prompt), usable)
            if shared > own + MIN_GAIN:
                ranked.append((shared, f, header))
        ranked.sort(key=lambda item: (item[0], item[1].mtime), reverse=True)
        for shared, f, header in ranked:
            if self._load_into(slot, f, header, loaded):
                self.stats.resumes += 1
                self.stats.resumed_tokens += shared
                self.stats.last_resume = {"key": slot.key, "tokens": shared, "file": f.path.name}
                return shared
        return 0

    def _load_into(
        self, slot: KVSlot, f: files.CheckpointFile, header: files.Header, loaded: LoadedModel
    ) -> bool:
        import mlx.core as mx
        from mlx_lm.models.cache import load_prompt_cache, make_prompt_cache

        why = header.mismatch(self._expected(slot.key), f.count, f.hash16)
        if why is not None:  # another model's or store's file in our folder: leave it
            log.warning("KV checkpoint %s ignored: %s", f.path, why)
            return False
        try:
            cache: Any = load_prompt_cache(str(f.path))
            mx.eval([[c.keys, c.values] for c in cache])  # read now: the file may go later
            layers = len(make_prompt_cache(loaded.model))
            shapes_ok = len(cache) == layers and all(
                c.offset == f.count == c.keys.shape[2] == c.values.shape[2]
                and str(c.keys.dtype) == header.meta.get("kv_dtype")
                for c in cache
            )
        except Exception as exc:
            if f.path.exists():  # else another kernel's budget removed it meanwhile
                self._discard(f, f"unloadable ({exc})")
            return False
        if not shapes_ok:
            self._discard(f, "its arrays do not fit this model")
            return False
        slot.clear()
        slot.cache = cache
        slot.tokens = list(header.tokens)
        with contextlib.suppress(OSError):  # recently used; never `touch`: it would
            os.utime(f.path)  # make an empty file where another kernel just removed one
        return True

    def _discard(self, f: files.CheckpointFile, why: str) -> None:
        log.warning("KV checkpoint %s deleted: %s", f.path, why)
        files.unlink(f.path)
        self.stats.corrupt_deleted += 1

    # -- sessions ---------------------------------------------------------------------

    def delete_session(self, session: str) -> None:
        """Remove ``session``'s checkpoints (every agent, every model); a write
        still queued for it is dropped."""
        with self._lock:
            self._epochs[session] = self._epochs.get(session, 0) + 1
            for table in (self._latest, self._queued):
                for key in [k for k in table if k.partition("/")[0] == session]:
                    del table[key]
            files.remove_session(self.root, self.store, session)

    def bytes_by_session(self) -> dict[str, int]:
        return files.bytes_by_session(self.root, self.store)

    def figures(self) -> dict[str, Any]:
        by_session = self.bytes_by_session()
        s = self.stats
        return {
            "kv_checkpoints": str(self.root),
            "kv_disk_bytes": by_session,
            "kv_disk_bytes_total": sum(by_session.values()),
            "kv_disk_budget_bytes": self.disk_budget,
            "kv_checkpoint_writes": s.writes,
            "kv_checkpoint_resumes": s.resumes,
            "kv_checkpoint_resumed_tokens": s.resumed_tokens,
            "kv_checkpoint_failures": s.write_failures,
            "kv_checkpoint_corrupt_deleted": s.corrupt_deleted,
        }


_live: weakref.WeakSet[Checkpoints] = weakref.WeakSet()


def _flush_all() -> None:
    """At exit, before the MLX thread stops: write what the last turns queued."""
    for checkpoints in list(_live):
        checkpoints.close(timeout=30.0)


_registered = False


def register_exit_flush() -> None:
    """Register `_flush_all` once; call after the MLX thread exists, so that
    (atexit runs last-in first-out) the flush runs before the thread stops."""
    global _registered
    if not _registered:
        atexit.register(_flush_all)
        _registered = True


def checkpoints_enabled() -> bool:
    """``$AGENT_NB_KV_CHECKPOINTS``: unset or ``1`` (as configured), or ``0`` (off)."""
    raw = os.environ.get("AGENT_NB_KV_CHECKPOINTS", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_KV_CHECKPOINTS must be 0 or 1, got {raw!r}")
    return raw != "0"


def open_checkpoints(
    *,
    store_identity: str,
    directory: str | os.PathLike[str] | None,
    disk_budget: int | None,
) -> Checkpoints | None:
    """A `Checkpoints` for the backend, or None when ``$AGENT_NB_KV_CHECKPOINTS=0``.

    The default folder is ``kv/`` in the agent_nb cache folder (moved by
    ``$AGENT_NB_CACHE_DIR``).
    """
    if not isinstance(store_identity, str) or not store_identity:
        raise ValueError("store_identity must be a non-empty string naming the session store")
    budget = check_int(
        "the KV disk budget (bytes)",
        DEFAULT_DISK_BUDGET_BYTES if disk_budget is None else disk_budget,
        low=0,
    )
    if not checkpoints_enabled():
        return None
    from .embedded import cache_root
    from .runtime import mlx_thread

    root = pathlib.Path(directory).expanduser() if directory is not None else cache_root() / "kv"
    thread = mlx_thread()  # exists before the exit flush is registered (see there)
    register_exit_flush()
    return Checkpoints(
        root=root,
        store_identity=store_identity,
        disk_budget=budget,
        submit=thread.submit,
        on_mlx_thread=thread.is_current,
    )
