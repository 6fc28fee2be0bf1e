"""History as OpenAI-style chat messages, shared by the MLX and OpenAI backends.

Both a Hugging Face chat template and a chat-completions server want the same
shape: a system message, user/assistant turns, an assistant message carrying
``tool_calls``, and ``tool`` messages tied to a call by ``tool_call_id``. They
differ in small ways, chosen by ``for_template``: templates take tool
arguments as a dict and like the tool's ``name`` on its result; the wire
format takes arguments as a JSON string and an empty assistant text as null.
"""

from __future__ import annotations

import json
from typing import Any

from .types import GenerateContentRequest, Role

__all__ = ["chat_messages"]


def chat_messages(request: GenerateContentRequest, *, for_template: bool) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    for content in request.contents:
        for part in content.parts:
            last = messages[-1] if messages else None
            if part.function_call is not None:
                call = part.function_call
                args = dict(call.args)
                # A model's text and the tool calls that follow it are one
                # assistant message, as tool-calling templates and servers expect.
                if last is None or last["role"] != "assistant":
                    last = {"role": "assistant", "content": "" if for_template else None}
                    messages.append(last)
                last.setdefault("tool_calls", []).append(
                    {
                        "id": call.call_id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": args if for_template else json.dumps(args),
                        },
                    }
                )
            elif part.function_response is not None:
                result = part.function_response
                message = {
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": json.dumps(dict(result.response), ensure_ascii=False, default=str),
                }
                if for_template:
                    message["name"] = result.name
                messages.append(message)
            elif part.text is not None:
                role = "user" if content.role is Role.USER else "assistant"
                if last is not None and last["role"] == role and "tool_calls" not in last:
                    # Same speaker twice (a turn that failed or was cancelled before
                    # any output): one message keeps strict-alternation templates happy.
                    before = last["content"]
                    last["content"] = f"{before}\n\n{part.text}" if before else part.text
                else:
                    messages.append({"role": role, "content": part.text})
    return messages
