"""One kernel's life through the runner: the "restart" of the runner-level resume tests.

``python -m tests.kv_runner_worker SPEC`` opens ``AgentRunner(model="mlx:smollm2-135m",
store=SPEC["store"], kv_directory=SPEC["kv"])`` with ``kv_checkpoints`` left at
its default (None) unless SPEC sets it. For each of SPEC["sessions"] in turn
(``session``, ``turns``: user texts, ``pipeline``) it runs the turns with greedy
replies of SPEC["max_tokens"] tokens, by one `Agent` or, with ``"pipeline": true``,
a `SequentialAgent` of two. Then it shuts the runner down (which writes the
queued checkpoints) and prints ``RESULT {json}``: per session each turn's text
and `TurnComplete` usage and what its turns added to the backend's checkpoint
figures, the backend's figures in all, ``runner.memory()``'s disk figures, and
every checkpoint file's key and token ids. `run` does the same in the calling
process (a control that needs no restart).
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

__all__ = ["main"]

RESULT_PREFIX = "RESULT "


def _agent(pipeline: bool, max_tokens: int) -> Any:
    from agent_nb import Agent, GenerationConfig, SequentialAgent

    config = GenerationConfig(max_tokens=max_tokens)
    if not pipeline:
        return Agent("assistant", "Answer briefly.", config=config)
    return SequentialAgent(
        "pair",
        [
            Agent("drafter", "Answer briefly.", config=config),
            Agent("checker", "Say whether the answer above is right.", config=config),
        ],
    )


def _files(root: pathlib.Path) -> list[dict[str, Any]]:
    from agent_nb.backends.mlx import checkpoint_files as files

    found = []
    for f in files.all_files(root):
        header = files.read_header(f.path)
        found.append({"key": header.meta["key"], "tokens": header.tokens, "path": str(f.path)})
    return found


def _figures(runner: Any) -> dict[str, Any]:
    return {k: v for k, v in runner.backend.memory().items() if k.startswith("kv_")}


def run(spec: dict[str, Any]) -> dict[str, Any]:
    from agent_nb import AgentRunner, TextMessage, TurnComplete

    runner = AgentRunner(
        model="mlx:smollm2-135m",
        store=spec["store"],
        kv_directory=spec["kv"],
        kv_checkpoints=spec.get("checkpoints"),
    )
    sessions: dict[str, Any] = {}
    for plan in spec["sessions"]:
        agent = _agent(plan.get("pipeline", False), spec.get("max_tokens", 8))
        session = runner.get_or_create_session(plan["session"], agent=agent)
        before = _figures(runner)
        turns = []
        for text in plan["turns"]:
            reply = session.run(text)
            complete = [e for e in reply.events if isinstance(e, TurnComplete)][-1]
            texts = [
                e.text for e in reply.events if isinstance(e, TextMessage) and e.author != "user"
            ]
            usage = complete.usage
            turns.append(
                {
                    "text": reply.text,
                    "texts": texts,
                    "cached": usage.cached_tokens,
                    "fed": usage.prompt_tokens,
                }
            )
        added = {
            k: v - before.get(k, 0)
            for k, v in _figures(runner).items()
            if isinstance(v, int) and not isinstance(v, bool)
        }
        sessions[plan["session"]] = {"turns": turns, "figures": added}
    memory = runner.memory()
    result = {
        "sessions": sessions,
        "figures": _figures(runner),
        "kv_checkpoints": runner.kv_checkpoints,
        "memory": {k: v for k, v in memory.items() if k.startswith("kv_") or k == "sessions"},
    }
    runner.shutdown()  # the queued checkpoints reach the disk first
    kv = pathlib.Path(spec["kv"])
    result["files"] = _files(kv) if kv.exists() else []
    return result


def main(argv: list[str]) -> None:
    print(RESULT_PREFIX + json.dumps(run(json.loads(argv[0]))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
