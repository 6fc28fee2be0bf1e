"""`TurnLeases`: this runner's turn leases on its store, kept alive by a heartbeat.

Several kernels may share one store (a SQLite file in the user's home, a
PostgreSQL database for a class). A turn takes its session's lease before it
writes anything (`SessionStore.begin_turn`), so a second kernel's turn fails
at once with `SessionBusyError` instead of forking the history. While turns
run, one daemon thread renews their leases every third of the lease time;
a kernel that dies stops renewing, and its lease runs out (or, on the same
host, its dead pid proves it gone at once). The lease, not a guess, is what
lets the next turn repair the turn a dead kernel left unfinished.
"""

from __future__ import annotations

import logging
import threading

from ..errors import StoreError
from ..stores import DEFAULT_LEASE_S, LeaseOwner, SessionRecord, SessionStore

__all__ = ["TurnLeases"]

log = logging.getLogger("agent_nb")

_Key = tuple[str, str, str]


class TurnLeases:
    """Take, renew and give back the leases of one runner's running turns."""

    def __init__(self, store: SessionStore, *, lease_s: float = DEFAULT_LEASE_S) -> None:
        self.owner = LeaseOwner.here()
        self.lease_s = lease_s
        self._store = store
        self._held: dict[_Key, SessionRecord] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def take(self, record: SessionRecord) -> int | None:
        """Take the session's lease; the stored revision (None: no longer stored).
        Raises `SessionBusyError` if another kernel's turn holds it."""
        revision = self._store.begin_turn(record, self.owner, lease_s=self.lease_s)
        if revision is not None:
            probe = SessionRecord(record.app_name, record.user_id, record.session_id)
            with self._lock:
                self._held[_key(record)] = probe
                if self._thread is None and not self._stop.is_set():
                    self._thread = threading.Thread(
                        target=self._beat, name="agent_nb-turn-leases", daemon=True
                    )
                    self._thread.start()
        return revision

    def give_back(self, record: SessionRecord) -> None:
        with self._lock:
            held = self._held.pop(_key(record), None)
        if held is None:
            return
        try:
            self._store.end_turn(held, self.owner)
        except StoreError:  # the lease then simply runs out
            log.warning("agent_nb could not release the turn lease of %r", record.session_id)

    def _beat(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            with self._lock:
                held = list(self._held.values())
            for record in held:
                try:
                    self._store.renew_turn(record, self.owner, lease_s=self.lease_s)
                except StoreError:
                    log.warning("agent_nb could not renew the turn lease of %r", record.session_id)

    def close(self) -> None:
        """Stop the heartbeat (leases still held run out)."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5)


def _key(record: SessionRecord) -> _Key:
    return (record.app_name, record.user_id, record.session_id)
