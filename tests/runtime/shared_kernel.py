"""A stand-in for one notebook kernel, run as its own process by the shared-store tests.

``python -m tests.runtime.shared_kernel STORE_URL USER_ID`` builds an
`AgentRunner` on that store with `ScriptedBackend` (which answers "You said:
..." when nothing is enqueued) and obeys one JSON command per stdin line,
answering one JSON line per command on stdout:

* ``{"op": "turn", "sid": ..., "text": ..., "delta": {...}}`` -> ``{"ok": true,
  "seen": [texts of the request the model got]}`` or ``{"ok": false, "error":
  class name, "message": ...}``.
* ``{"op": "turns", "sid": ..., "n": N, "delta_key": K}`` -> N turns in a row,
  each with ``{K_i: i}`` in its delta; ``{"ok": true, "failures": [...]}``.
* ``{"op": "slow", "sid": ..., "gate": PATH}`` -> starts a turn whose tool waits
  until PATH exists; answers ``{"in_tool": true}`` once the tool runs, and
  later ``{"done": true, "ok": ...}`` when the turn ends.
* ``{"op": "state", "sid": ...}`` -> ``{"state": ...}`` (the session's merged state).
* ``{"op": "rewind", "sid": ..., "turn": ID}`` -> ``{"ok": true, "branch": N}``;
  ``{"op": "switch", "sid": ..., "branch": N}`` -> ``{"ok": true}`` (or, for
  both, ``{"ok": false, "error": ..., "message": ...}``).
* ``{"op": "history", "sid": ...}`` -> ``{"texts": [user texts], "branch": N,
  "branches": [turn ids of each branch], "turns": N}`` (this kernel's view).
* ``{"op": "quit"}``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

from agent_nb import Agent, AgentRunner, TextMessage
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import AgentError

__all__ = ["main"]

_out = threading.Lock()


def say(message: dict[str, Any]) -> None:
    with _out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def main() -> None:
    url, user = sys.argv[1], sys.argv[2]

    def wait_gate(path: str) -> str:
        """Wait until a file exists.

        Args:
            path: the file to wait for
        """
        say({"in_tool": True})
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        return "gate open"

    backend = ScriptedBackend()
    runner = AgentRunner(Agent(tools=[wait_gate]), model=backend, store=url, user_id=user)

    def turn(sid: str, text: str, delta: dict[str, Any]) -> dict[str, Any]:
        session = runner.get_or_create_session(sid)
        before = len(backend.requests)
        try:
            reply = session.run(text, state_delta=delta)
        except AgentError as exc:
            return {"ok": False, "error": type(exc).__name__, "message": str(exc)}
        seen = [c.text for c in backend.requests[before].contents] if backend.requests else []
        return {"ok": True, "seen": seen, "turn": reply.invocation_id}

    def change(sid: str, cmd: dict[str, Any]) -> dict[str, Any]:
        session = runner.get_or_create_session(sid)
        try:
            if cmd["op"] == "rewind":
                return {"ok": True, "branch": session.rewind(cmd["turn"])}
            session.switch_branch(cmd["branch"])
        except AgentError as exc:
            return {"ok": False, "error": type(exc).__name__, "message": str(exc)}
        return {"ok": True}

    say({"ready": os.getpid()})
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "turn":
            say(turn(cmd["sid"], cmd["text"], cmd.get("delta", {})))
        elif op == "turns":
            failures = []
            for i in range(cmd["n"]):
                got = turn(cmd["sid"], f"{user} turn {i}", {f"{cmd['delta_key']}{i}": i})
                if not got["ok"]:
                    failures.append(got)
            say({"ok": not failures, "failures": failures})
        elif op == "slow":
            backend.enqueue(ToolCallChunk("wait_gate", {"path": cmd["gate"]}), "slow answer")

            def run_slow(sid: str = cmd["sid"]) -> None:
                got = turn(sid, "a slow question", {})
                say({"done": True, **got})

            threading.Thread(target=run_slow, daemon=True).start()
        elif op == "state":
            say({"state": runner.get_or_create_session(cmd["sid"]).state})
        elif op in ("rewind", "switch"):
            say(change(cmd["sid"], cmd))
        elif op == "history":
            session = runner.get_or_create_session(cmd["sid"])
            say(
                {
                    "texts": [
                        e.text
                        for e in session.history
                        if isinstance(e, TextMessage) and e.author == "user"
                    ],
                    "branch": session.branch,
                    "branches": [list(b.turns) for b in session.branches()],
                    "turns": session.turns,
                }
            )
        elif op == "quit":
            break
    runner.shutdown()


if __name__ == "__main__":
    main()
