"""The replay key: what decides a model call's reply, hashed (see `agent_nb._runtime.replay`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from ..._core.types import GenerateContentRequest

__all__ = ["FORMAT", "agent_is_pure", "qualifies", "request_key"]

FORMAT = 1  # bumped when the key or the recording changes shape


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
        if not all(t.listed for t in getattr(node, "toolsets", ())):
            return False  # what an unlisted server's tools do is unknown
        for tool in getattr(node, "tools", ()):
            if tool.agent is not None:
                if not pure(tool.agent):
                    return False
            elif tool.confirm or not tool.pure:  # one that needs approval acts
                return False
        return all(pure(sub) for sub in getattr(node, "sub_agents", ()))

    return pure(agent)
