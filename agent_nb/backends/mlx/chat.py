"""From a `GenerateContentRequest` to prompt token ids, and from text back to chunks.

The whole chat is rendered every turn with the model's own chat template;
KV reuse then comes from the longest common token prefix with what the cache
already holds, so nothing here needs to know about earlier turns.

`TextGate` sits between the detokenizer and the caller: it holds back text
that might be the start of a stop string or a tool-call marker, so a stop
string is never shown and tool-call markup never leaks into the transcript.

Tools reach the model through its chat template. A template that shows no
tools (SmolLM2's) gets them in its system message instead, in the Hermes
format whose JSON calls the tool grammar writes (`structured.ToolCallFormat`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from ..._core.messages import chat_messages
from ..._core.types import GenerateContentRequest
from ...errors import BackendError
from .._base import TextDelta, ToolCallChunk

__all__ = [
    "TextGate",
    "common_prefix",
    "encode",
    "parse_tool_calls",
    "render_prompt",
    "template_shows_tools",
    "to_messages",
    "tool_prompt",
]


def to_messages(request: GenerateContentRequest) -> list[dict[str, Any]]:
    """Chat messages in the shape Hugging Face chat templates expect."""
    return chat_messages(request, for_template=True)


def encode(tokenizer: Any, text: str) -> list[int]:
    """Token ids of ``text``. ``verbose=False``: transformers otherwise warns that a
    text longer than ``model_max_length`` "will result in indexing errors", before
    the turn's own, clearer `ContextWindowError` (we count to check exactly that)."""
    ids: list[int] = tokenizer.encode(text, add_special_tokens=False, verbose=False)
    return ids


_PROBE_TOOL = {
    "type": "function",
    "function": {"name": "probe_tool_zq", "description": "", "parameters": {"type": "object"}},
}


@functools.lru_cache(maxsize=8)
def template_shows_tools(tokenizer: Any) -> bool:
    """Whether the chat template renders a ``tools=`` list (many small models' do not)."""
    if not getattr(tokenizer, "has_chat_template", True):
        return False
    messages = [{"role": "user", "content": "x"}]
    try:
        text = tokenizer.apply_chat_template(messages, tools=[_PROBE_TOOL], tokenize=False)
    except Exception:  # a template that chokes on tools does not show them either
        return False
    return "probe_tool_zq" in str(text)


def tool_prompt(tools: list[dict[str, Any]]) -> str:
    """The Hermes tool-use instructions (Qwen2.5's, SmolLM2-1.7B's), for templates without."""
    listed = "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools)
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n"
        f"<tools>\n{listed}\n</tools>\n\n"
        "For each function call, return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


def _with_tool_prompt(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
    text = tool_prompt(tools)
    if messages and messages[0]["role"] == "system":
        messages[0]["content"] = f"{messages[0]['content']}\n\n{text}"
    else:
        messages.insert(0, {"role": "system", "content": text})


def render_prompt(tokenizer: Any, request: GenerateContentRequest) -> list[int]:
    """Token ids of the full chat plus the generation prompt.

    With ``tool_choice="none"`` the model is not shown the tools (it may not call them).
    """
    messages = to_messages(request)
    kwargs: dict[str, Any] = {"add_generation_prompt": True, "tokenize": False}
    if request.offers_tools:
        tools = [tool.to_openai() for tool in request.tools]
        if getattr(tokenizer, "has_tool_calling", False) or template_shows_tools(tokenizer):
            kwargs["tools"] = tools
        else:
            _with_tool_prompt(messages, tools)
    try:
        if getattr(tokenizer, "has_chat_template", True):
            text = tokenizer.apply_chat_template(messages, **kwargs)
        else:  # base models: a plain transcript
            text = "".join(f"{m['role']}: {m.get('content', '')}\n" for m in messages)
            text += "assistant: "
    except Exception as exc:  # jinja errors carry the template's own message
        raise BackendError(
            f"the model's chat template could not render this conversation: {exc}"
        ) from exc
    ids = encode(tokenizer, text)
    if not ids:
        raise BackendError("the chat template rendered an empty prompt")
    return ids


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def parse_tool_calls(parser: Any, text: str, tools: list[dict[str, Any]]) -> list[ToolCallChunk]:
    """Run an mlx-lm tool parser; raises ValueError when the text is no call."""
    parsed = parser(text, tools)
    calls = parsed if isinstance(parsed, list) else [parsed]
    chunks = []
    for call in calls:
        if not isinstance(call, dict) or "name" not in call:
            raise ValueError(f"tool parser returned {call!r}")
        args = call.get("arguments") or {}
        if isinstance(args, str):
            args = json.loads(args) if args.strip() else {}
        if not isinstance(args, dict):
            raise ValueError(f"tool arguments must be an object, got {args!r}")
        extra = {"call_id": str(call["id"])} if call.get("id") else {}
        chunks.append(ToolCallChunk(name=str(call["name"]), args=args, **extra))
    return chunks


class TextGate:
    """Turns detokenized text into chunks, honouring stop strings and tool markup."""

    def __init__(
        self,
        stop: Sequence[str] = (),
        tool_markers: tuple[str, str] | None = None,
        tool_parser: Any = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> None:
        self._stop = [s for s in stop if s]
        self._tool = tool_markers if tool_parser is not None else None
        self._parser = tool_parser
        self._tools = tools or []
        self._buffer = ""
        self._in_tool = False
        self.stopped = False
        self.tool_calls = 0
        markers = list(self._stop)
        if self._tool:
            markers.append(self._tool[0])
        self._markers = markers

    def _hold(self, text: str) -> int:
        """Length of the longest tail of ``text`` that could start a marker."""
        best = 0
        for marker in self._markers:
            for k in range(min(len(marker) - 1, len(text)), best, -1):
                if text.endswith(marker[:k]):
                    best = k
                    break
        return best

    def _finish_tool(self, text: str, out: list[TextDelta | ToolCallChunk]) -> None:
        try:
            calls = parse_tool_calls(self._parser, text, self._tools)
        except (ValueError, KeyError, TypeError) as exc:
            del exc  # not a call after all: show it rather than lose it
            assert self._tool is not None
            out.append(TextDelta(self._tool[0] + text))
            return
        self.tool_calls += len(calls)
        out.extend(calls)

    def feed(self, text: str) -> list[TextDelta | ToolCallChunk]:
        out: list[TextDelta | ToolCallChunk] = []
        if self.stopped:
            return out
        self._buffer += text
        while self._buffer:
            if self._in_tool:
                assert self._tool is not None
                end = self._buffer.find(self._tool[1])
                if end < 0:
                    break
                self._finish_tool(self._buffer[:end], out)
                self._buffer = self._buffer[end + len(self._tool[1]) :]
                self._in_tool = False
                continue
            hits = [(self._buffer.find(s), s, True) for s in self._stop]
            if self._tool:
                hits.append((self._buffer.find(self._tool[0]), self._tool[0], False))
            found = [h for h in hits if h[0] >= 0]
            if found:
                index, marker, is_stop = min(found, key=lambda h: h[0])
                if index:
                    out.append(TextDelta(self._buffer[:index]))
                if is_stop:
                    self._buffer = ""
                    self.stopped = True
                    break
                self._buffer = self._buffer[index + len(marker) :]
                self._in_tool = True
                continue
            keep = self._hold(self._buffer)
            ready = self._buffer[: len(self._buffer) - keep]
            if ready:
                out.append(TextDelta(ready))
            self._buffer = self._buffer[len(ready) :]
            break
        return out

    def flush(self) -> list[TextDelta | ToolCallChunk]:
        """End of generation: whatever was held back goes out."""
        out: list[TextDelta | ToolCallChunk] = []
        if self.stopped or not self._buffer:
            return out
        if self._in_tool:
            self._finish_tool(self._buffer, out)
        else:
            out.append(TextDelta(self._buffer))
        self._buffer = ""
        return out
