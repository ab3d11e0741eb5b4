"""What ``turnframe chat`` says before and between turns: its first screen and ``/help``.

The words are the command line's own (docs/chat.md); no model writes them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "HELP",
    "MODEL_HELP",
    "NO_MODEL",
    "example_script",
]

DEFAULT_MAX_MESSAGE_BYTES = 8192
"""The longest message ``chat`` reads, in bytes of its UTF-8 encoding (8 KB)."""

MODEL_HELP = (
    "the model: scripted:FILE (answers from a file, no model; "
    "scripted:example plays the shipped travel script), hostile[:SEED] (random answers the "
    "schema allows, seeded: watch the guards hold), replay:FILE, local:smollm2, "
    "openai-compatible:URL#MODEL (llama.cpp server, vLLM, LM Studio), ollama:MODEL, or a "
    "hosted vendor (openai:, anthropic:, gemini:, bedrock:, azure:); default $TURNFRAME_MODEL"
)

NO_MODEL = """No model is configured for `turnframe chat`.

Try it with no model and no key:
  turnframe chat --model scripted:example
      plays the shipped script (the messages to type are listed when it starts;
      the file's format is in docs/chat.md)
  turnframe demo
      a guided tour whose understanding is scripted, through the real reducer,
      policy, cards and receipts

Or point it at a model server you run (any OpenAI-compatible /v1 endpoint):
  llama.cpp server   llama-server -m MODEL.gguf --port 8080
                     --model openai-compatible:http://127.0.0.1:8080/v1#MODEL
  vLLM               vllm serve MODEL            (port 8000)
                     --model openai-compatible:http://127.0.0.1:8000/v1#MODEL
  LM Studio          its local server            (port 1234)
                     --model openai-compatible:http://127.0.0.1:1234/v1#MODEL
  Ollama             ollama serve                (port 11434, $OLLAMA_HOST)
                     --model ollama:MODEL
  The openai-compatible servers are read with the llama.cpp server's profile: JSON
  schema enforced by grammar, the subset that server enforces (docs/provider-adapters.md);
  Ollama has its own adapter and profile. Needs the extra: pip install "turnframe[openai]"
  (or "turnframe[ollama]").

Or run a small model in this process (no server, no key; fetched on first use):
  pip install "turnframe[local]" && turnframe chat --model local:smollm2

Or a hosted vendor, with its usual credential variable:
  {known}

Choose with --model or the TURNFRAME_MODEL environment variable."""

HELP = """Type a message and press Enter; a number answers the card shown last (a click,
no model call).
  /help      this list
  /records   the records you may address (the application's directory)
  /replay    the last turn's replay record (JSON)
  /inspect   the last turn's acts, evidence, results, commands and events
  /quit      leave (also /exit, or end of input: Ctrl-D)
Ctrl-C while a turn runs cancels it: the turn is closed (recovered from its stored
phase, nothing committed twice) and the prompt comes back. Ctrl-C at the prompt leaves.
A message over {limit} bytes (UTF-8) or not valid UTF-8 is refused with a one-line
notice and not run."""


def example_script() -> Path:
    """Return the path of the shipped scripted chat (``--model scripted:example``).

    The file is package data of :mod:`turnframe.cli` (``examples/travel-chat.yaml``).
    """
    return Path(str(resources.files("turnframe.cli").joinpath("examples/travel-chat.yaml")))
