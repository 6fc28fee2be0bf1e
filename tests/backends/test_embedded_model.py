"""The embedded SmolLM2: GGUF -> mlx-lm folder conversion, checked against the real files."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from agent_nb import GenerationConfig
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx.embedded import (
    CONVERTER_VERSION,
    MARKER,
    ensure_embedded_model,
    find_gguf,
)
from tests.fixtures_runtime import RunnerFactory

pytestmark = pytest.mark.mlx


def test_converted_folder_is_a_quantised_llama_with_traditional_rope(
    embedded_model_dir: pathlib.Path,
) -> None:
    names = {p.name for p in embedded_model_dir.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"} <= names
    config = json.loads((embedded_model_dir / "config.json").read_text())
    assert config["model_type"] == "llama" and config["rope_traditional"] is True
    assert config["quantization"]["group_size"] == 32 and config["quantization"]["bits"] == 4
    # The GGUF keeps the token embedding at 8 bits; the config must say so.
    assert config["quantization"]["model.embed_tokens"] == {"group_size": 32, "bits": 8}
    assert config["tie_word_embeddings"] is True
    tokenizer_config = json.loads((embedded_model_dir / "tokenizer_config.json").read_text())
    assert tokenizer_config["eos_token"] == "<|im_end|>"
    assert "<|im_start|>assistant" in tokenizer_config["chat_template"]
    marker = json.loads((embedded_model_dir / MARKER).read_text())
    assert marker["converter_version"] == CONVERTER_VERSION


def test_second_call_reuses_the_folder(embedded_model_dir: pathlib.Path) -> None:
    stamp = (embedded_model_dir / "model.safetensors").stat().st_mtime_ns
    assert ensure_embedded_model(progress=False) == embedded_model_dir
    assert (embedded_model_dir / "model.safetensors").stat().st_mtime_ns == stamp


def test_a_stale_marker_reconverts_atomically(tmp_path: pathlib.Path) -> None:
    gguf = find_gguf(progress=False)
    first = ensure_embedded_model(tmp_path, progress=False, gguf=gguf)
    marker = first / MARKER
    marker.write_text(json.dumps({"converter_version": CONVERTER_VERSION - 1}))
    (first / "leftover").write_text("from an older converter")

    again = ensure_embedded_model(tmp_path, progress=False, gguf=gguf)

    assert again == first and not (again / "leftover").exists()
    assert json.loads(marker.read_text())["converter_version"] == CONVERTER_VERSION
    # Nothing half-written is left next to it.
    assert [p.name for p in tmp_path.iterdir()] == [first.name]
    shutil.rmtree(first)


def test_tokenizer_round_trips_and_renders_the_chat_template(mlx_backend: MLXBackend) -> None:
    tokenizer = mlx_backend.tokenizer
    text = "Numbers 2024, accents café, emoji 🙂 and <|im_end|> stay intact."
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert tokenizer.decode(ids) == text
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") in ids  # special token kept whole
    assert ids[:2] == tokenizer.encode("Numbers 2", add_special_tokens=False)[:2]
    assert tokenizer.eos_token_ids == {tokenizer.convert_tokens_to_ids("<|im_end|>")}


def test_the_converted_model_answers_a_simple_factual_question(
    mlx_backend: MLXBackend, make_runner: RunnerFactory
) -> None:
    runner = make_runner(model=mlx_backend)
    reply = runner.run_single_turn(
        "What is the capital of France?", config=GenerationConfig(max_tokens=16)
    )
    assert "Paris" in reply.text, reply.text
    assert reply.finish_reason == "stop"
