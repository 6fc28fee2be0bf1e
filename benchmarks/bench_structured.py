"""What a grammar costs and what it buys, on the embedded model (greedy, CPU).

Run: python benchmarks/bench_structured.py [--reps 3] [--tokens 64]

Three figures, in one run:

* **decode speed** under a permissive schema (any JSON string, at least
  2,000 characters so that both runs decode ``--tokens`` tokens) against
  unconstrained decoding of the same prompt, prompt lookup
  off for both so the mask is all that differs; median decode tok/s
  (`Usage.tokens_per_s`) over ``--reps`` alternating runs on fresh caches.
  Target: ratio >= 0.9. On a shared machine the best run of each is the
  least disturbed one, so both ratios are printed, with the load average.
  Also the mask's own cost per token (llguidance's
  bitmask, unpacked and applied with ``mx.where``) against a decode step.
* **valid tool calls** over a handful of questions: with the grammar
  (``tool_choice="required"``, and ``"auto"``), and without it (the same
  prompt, tools described in the system message, free text searched for a
  ``<tool_call>`` or a bare JSON call); valid = a listed tool with arguments
  that validate against its schema. Expect about 100 % against about 0 %.
* **compile time** per schema: llguidance's matcher built from the grammar
  text (what `Grammars` caches) and its first mask (lexers are built lazily),
  on an empty cache; plus the one-off llguidance tokenizer.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import jsonschema  # noqa: E402

from agent_nb.backends.mlx import MLXBackend  # noqa: E402
from agent_nb.backends.mlx.chat import tool_prompt  # noqa: E402
from agent_nb.backends.mlx.grammar import Grammars, grammars_for  # noqa: E402
from agent_nb.backends.structured import (  # noqa: E402
    ToolCallFormat,
    schema_grammar,
    tool_call_grammar,
)
from tests.backends.structured_cases import (  # noqa: E402
    SCHEMA_CASES,
    TOOLS,
    request,
    stream_request,
)

STORY = (
    "Write a long, detailed story about a dragon who learns to bake bread, "
    "with many characters and places."
)
#: Any JSON string; so long that it never closes within ``--tokens`` (the model
#: ends a free one after a few tokens, and a decode speed over 8 tokens is noise).
PERMISSIVE = {"type": "string", "minLength": 2000}
TOOL_QUESTIONS = (
    "What is the weather in Paris?",
    "Is it raining in London right now?",
    "What time is it in Tokyo?",
    "Tell me the current time in UTC.",
    "How warm is it in Madrid today?",
    "What's the time in Paris?",
)


def decode_speed(backend: MLXBackend, reps: int, tokens: int) -> None:
    speeds: dict[str, list[float]] = {"plain": [], "schema": []}
    generated: dict[str, list[int]] = {"plain": [], "schema": []}
    for _ in range(reps):
        for mode in ("plain", "schema"):
            schema = PERMISSIVE if mode == "schema" else None
            req = request(STORY, max_tokens=tokens, prompt_lookup=False, response_schema=schema)
            out = stream_request(backend, req, cache="bench")
            backend.drop_cache("bench")
            usage = out.finish.usage
            speeds[mode].append(usage.tokens_per_s or 0.0)
            generated[mode].append(usage.generated_tokens)
    plain, schema = (statistics.median(speeds[m]) for m in ("plain", "schema"))
    best_plain, best_schema = (max(speeds[m]) for m in ("plain", "schema"))
    print(f"decode tok/s over {reps} alternating runs (tokens generated {generated}):")
    print(f"  unconstrained   median {plain:6.1f}   best {best_plain:6.1f}")
    print(
        f"  any JSON string median {schema:6.1f}   best {best_schema:6.1f}   ratio median "
        f"{schema / plain:.2f}, best {best_schema / best_plain:.2f} (target >= 0.90)"
    )
    print(f"  load average after: {os.getloadavg()} (on {os.cpu_count()} cores)")
    mask_cost(backend, 1000 / plain)


def mask_cost(backend: MLXBackend, step_ms: float) -> None:
    """The mask alone: llguidance's bitmask, unpacked, applied to a logits row."""
    import mlx.core as mx

    constraint = grammars_for(backend.tokenizer).start(schema_grammar(PERMISSIVE))
    logits = mx.zeros((1, constraint.vocab_size), dtype=mx.float32)
    ids = backend.tokenizer.encode(
        '"The dragon baked bread every morning', add_special_tokens=False
    )
    took = []
    for token in ids:
        started = time.perf_counter()
        mx.eval(constraint.apply(logits))
        took.append(time.perf_counter() - started)
        constraint.consume(token)
    mask_ms = statistics.median(took) * 1000
    print(
        f"  mask per token  {mask_ms:6.2f} ms = {mask_ms / step_ms:.1%} of a "
        f"{step_ms:.1f} ms decode step"
    )


_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)


def _free_text_call(text: str) -> tuple[str, Any] | None:
    """A call in unconstrained text: inside <tool_call> markup, or a bare JSON object."""
    candidates = [m.group(1) for m in _CALL.finditer(text)]
    candidates += re.findall(r"\{.*\}", text, re.S)
    for raw in candidates:
        try:
            value = json.loads(raw.strip())
        except ValueError:
            continue
        if isinstance(value, dict) and "name" in value:
            return str(value["name"]), value.get("arguments", value.get("parameters"))
    return None


def _valid(name: str, args: Any) -> bool:
    tool = next((t for t in TOOLS if t.name == name), None)
    if tool is None or not isinstance(args, dict):
        return False
    try:
        jsonschema.validate(args, dict(tool.parameters))
    except jsonschema.ValidationError:
        return False
    return True


def tool_calls(backend: MLXBackend) -> None:
    system = tool_prompt([t.to_openai() for t in TOOLS])
    valid = {"grammar, required": 0, "grammar, auto": 0, "no grammar": 0}
    for question in TOOL_QUESTIONS:
        for choice in ("required", "auto"):
            out = stream_request(backend, request(question, tools=TOOLS, tool_choice=choice))
            ok = bool(out.calls) and all(_valid(c.name, c.args) and not c.error for c in out.calls)
            valid[f"grammar, {choice}"] += ok
        # the same rendered prompt (tools in the system message), decoded freely
        out = stream_request(backend, request(question, system_instruction=system))
        found = _free_text_call(out.text)
        valid["no grammar"] += found is not None and _valid(*found)
        # "auto" may answer in words: its share says how often the model chose a call
        print(f"  free text for {question!r}: {out.text[:70]!r}")
    n = len(TOOL_QUESTIONS)
    print(f"valid tool calls over {n} questions:")
    for mode, count in valid.items():
        print(f"  {mode:18s} {count}/{n} = {count / n:.0%}")


def compile_times(backend: MLXBackend) -> None:
    started = time.perf_counter()
    grammars = Grammars(backend.tokenizer)  # a fresh cache, not the backend's
    print(f"llguidance tokenizer: {(time.perf_counter() - started) * 1000:.0f} ms (once per model)")
    fmt = ToolCallFormat()
    texts = {case.name: schema_grammar(case.schema) for case in SCHEMA_CASES}
    texts["tools, auto"] = tool_call_grammar(TOOLS, "auto", fmt)
    texts["tools, required"] = tool_call_grammar(TOOLS, "required", fmt)
    print("compile per grammar (ms): matcher + first mask; cached: a second compile")
    for name, text in texts.items():
        started = time.perf_counter()
        matcher = grammars.compile(text)
        built = time.perf_counter()
        grammars.start(text).allowed()
        first_mask = time.perf_counter()
        again = grammars.compile(text)
        cached = time.perf_counter()
        assert again is matcher
        print(
            f"  {name:18s} {(built - started) * 1000:6.2f} + {(first_mask - built) * 1000:6.2f}"
            f"   cached {(cached - first_mask) * 1e6:5.1f} us"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    backend = MLXBackend("smollm2-135m", progress=False)
    loaded = backend.load()
    print(f"weights {loaded.weights}, BLAS {loaded.cpu_blas}, load: {os.getloadavg()}")
    compile_times(backend)
    decode_speed(backend, args.reps, args.tokens)
    tool_calls(backend)


if __name__ == "__main__":
    main()
