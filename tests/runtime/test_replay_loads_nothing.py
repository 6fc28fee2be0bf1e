"""A replayed turn on the MLX backend loads neither weights nor tokenizer.

"Restart and Run All" is fast only if the first replayed cell does not wait
for the model: fitting the request to the window would count its tokens with
the tokenizer, and the replay key names the model. So the window comes from
the folder's JSON files, the key from a hash of its files, and the count from
the replay file. Each "kernel" here is a fresh interpreter on one replay file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.mlx

_KERNEL = textwrap.dedent(
    """
    import json, sys
    from agent_nb import AgentRunner, GenerationConfig
    from agent_nb.backends.mlx.runtime import loaded_models

    runner = AgentRunner(model="mlx:smollm2-135m", kv_checkpoints=False)
    session = runner.get_or_create_session("s")
    config = GenerationConfig(max_tokens=6, temperature=0.0)
    texts = [session.run(q, config=config, replay=True).text for q in sys.argv[1:]]
    usage = session.history[-1].usage
    runner.shutdown()
    print("RESULT " + json.dumps({
        "texts": texts,
        "replayed": usage.replayed_calls,
        "loaded": sorted(loaded_models()),
        "modules": sorted(m for m in ("mlx_lm", "transformers") if m in sys.modules),
    }))
    """
)


_DIRECT = textwrap.dedent(
    """
    import json, sys
    from agent_nb import AgentRunner, Content, GenerateContentRequest, GenerationConfig
    from agent_nb.backends.mlx.runtime import loaded_models

    runner = AgentRunner(model="mlx:smollm2-135m", kv_checkpoints=False)
    config = GenerationConfig(max_tokens=6, temperature=0.0)
    request = GenerateContentRequest([Content.user(sys.argv[1])], config=config)
    reply = runner.wait(runner.generate_content_async(request, replay=True))
    runner.shutdown()
    print("RESULT " + json.dumps({
        "texts": [reply.text],
        "replayed": reply.usage.replayed_calls,
        "loaded": sorted(loaded_models()),
        "modules": sorted(m for m in ("mlx_lm", "transformers") if m in sys.modules),
    }))
    """
)


def _kernel(replay_file: Path, *questions: str, script: str = _KERNEL) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script, *questions],
        capture_output=True,
        text=True,
        timeout=300,
        env={**_env(), "AGENT_NB_REPLAY": "1", "AGENT_NB_REPLAY_FILE": str(replay_file)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "AGENT_NB_REPLAY"}


def test_a_replayed_run_loads_no_model_and_answers_the_same(tmp_path: Path) -> None:
    replay_file = tmp_path / "replay.sqlite"
    questions = ("What is the capital of France?", "And of Italy?")
    cold = _kernel(replay_file, *questions)
    assert cold["loaded"] == ["embedded:smollm2-135m"]
    assert cold["replayed"] == 0

    warm = _kernel(replay_file, *questions)
    assert warm["texts"] == cold["texts"]
    assert warm["replayed"] == 1
    # Nothing of the model was read: no weights, and not even the tokenizer's library.
    assert warm["loaded"] == []
    assert warm["modules"] == []


def test_a_new_question_after_a_replay_loads_the_model_and_counts_as_usual(
    tmp_path: Path,
) -> None:
    replay_file = tmp_path / "replay.sqlite"
    cold = _kernel(replay_file, "What is the capital of France?")
    mixed = _kernel(replay_file, "What is the capital of France?", "Name a river in Paris.")
    assert mixed["texts"][0] == cold["texts"][0]
    assert mixed["replayed"] == 0  # the last turn went to the model
    assert mixed["loaded"] == ["embedded:smollm2-135m"]
    assert mixed["texts"][1].strip()


def test_a_replayed_direct_call_loads_no_model_and_answers_the_same(tmp_path: Path) -> None:
    """Direct model access takes the same route: asked to replay, a request the
    model answered before is answered from the replay file, with no model loaded."""
    replay_file = tmp_path / "replay.sqlite"
    cold = _kernel(replay_file, "What is the capital of France?", script=_DIRECT)
    assert cold["loaded"] == ["embedded:smollm2-135m"] and cold["replayed"] == 0
    assert cold["texts"][0].strip()
    warm = _kernel(replay_file, "What is the capital of France?", script=_DIRECT)
    assert warm["texts"] == cold["texts"]
    assert warm["replayed"] == 1
    assert warm["loaded"] == [] and warm["modules"] == []
