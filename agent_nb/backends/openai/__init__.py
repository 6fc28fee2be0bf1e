"""Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio,
``mlx_lm.server``) through the official ``openai`` SDK."""

from .backend import OpenAIBackend, from_spec, parse_spec, request_messages

__all__ = ["OpenAIBackend", "from_spec", "parse_spec", "request_messages"]
