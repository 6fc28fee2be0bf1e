"""Per-conversation KV caches under one byte budget, least recently used out first.

A `KVSlot` pairs an mlx-lm prompt cache with the exact token ids it holds.
That pairing is the invariant everything relies on: a turn may reuse the
cache only up to the longest common prefix of those ids and the new prompt,
so whenever generation stops (finished, cancelled, failed) the ids are made
to match the cache again, or the slot is emptied.

Slots are touched by the MLX thread (generation) and by whoever closes or
rewinds a session; the store's lock guards the table, and a slot in use by a
generation (``busy``) is never freed under it -- it is marked and freed by
the generation when it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..._core.numbers import check_int

__all__ = ["KVSlot", "KVStore"]


@dataclass
class KVSlot:
    key: str
    cache: list[Any] | None = None
    tokens: list[int] = field(default_factory=list)
    nbytes: int = 0
    last_used: float = field(default_factory=time.monotonic)
    busy: bool = False
    dropped: bool = False

    def clear(self) -> int:
        """Let the arrays go; returns the bytes they held."""
        freed = self.nbytes
        self.cache = None
        self.tokens = []
        self.nbytes = 0
        return freed

    def measure(self) -> int:
        self.nbytes = sum(c.nbytes for c in self.cache) if self.cache else 0
        return self.nbytes

    def offset(self) -> int | None:
        """Tokens the cache holds, when its layers say so (plain KV caches do)."""
        if not self.cache:
            return 0
        first = self.cache[0]
        return getattr(first, "offset", None)


class KVStore:
    """The table of slots, the budget, and LRU eviction of idle slots."""

    def __init__(self, budget_bytes: int) -> None:
        budget_bytes = check_int("the KV budget (bytes)", budget_bytes, low=0)
        self.budget_bytes = budget_bytes
        self._slots: dict[str, KVSlot] = {}
        self._lock = threading.Lock()
        self.evictions = 0
        #: Called under the lock with each slot eviction or `trim` empties, just
        #: before its arrays go (KV checkpoints keep a copy on disk instead).
        self.on_evict: Callable[[KVSlot], object] | None = None

    def acquire(self, key: str) -> KVSlot:
        """The slot for ``key`` (new if needed), marked busy for a generation."""
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = KVSlot(key)
            slot.busy = True
            slot.last_used = time.monotonic()
            return slot

    def release(self, slot: KVSlot) -> int:
        """A generation ended: re-measure, free a dropped slot, enforce the budget.

        Returns the bytes freed (by a drop or by eviction of idle slots).
        """
        freed = 0
        with self._lock:
            slot.busy = False
            slot.last_used = time.monotonic()
            if slot.dropped or self._slots.get(slot.key) is not slot:
                freed += slot.clear()
            else:
                slot.measure()
            freed += self._evict_over_budget(protect=slot.key)
        return freed

    def _evict_over_budget(self, protect: str) -> int:
        total = sum(s.nbytes for s in self._slots.values())
        freed = 0
        idle = sorted(
            (s for s in self._slots.values() if not s.busy and s.key != protect and s.nbytes),
            key=lambda s: s.last_used,
        )
        for slot in idle:
            if total <= self.budget_bytes:
                break
            self._evicting(slot)
            n = slot.clear()
            total -= n
            freed += n
            self.evictions += 1
        if total > self.budget_bytes:  # the protected slot alone is over budget
            own = self._slots.get(protect)
            if own is not None and not own.busy:
                self._evicting(own)
                freed += own.clear()
                self.evictions += 1
        return freed

    def _evicting(self, slot: KVSlot) -> None:
        if self.on_evict is not None and slot.cache:
            self.on_evict(slot)

    def get(self, key: str) -> KVSlot | None:
        with self._lock:
            return self._slots.get(key)

    def drop(self, key: str) -> int:
        """Forget ``key``; its arrays go now, or when its generation ends."""
        with self._lock:
            slot = self._slots.pop(key, None)
            if slot is None:
                return 0
            slot.dropped = True
            return 0 if slot.busy else slot.clear()

    def trim(self, keep: frozenset[str] = frozenset()) -> int:
        """Empty every idle slot whose key is not in ``keep``."""
        freed = 0
        with self._lock:
            for key in list(self._slots):
                slot = self._slots[key]
                if key in keep or slot.busy:
                    continue
                self._evicting(slot)
                freed += slot.clear()
                del self._slots[key]
        return freed

    def drop_all(self) -> int:
        with self._lock:
            keys = list(self._slots)
        return sum(self.drop(key) for key in keys)

    def bytes_of(self, key: str) -> int:
        with self._lock:
            slot = self._slots.get(key)
            return slot.nbytes if slot is not None else 0

    def by_key(self) -> dict[str, int]:
        with self._lock:
            return {key: slot.nbytes for key, slot in self._slots.items()}
