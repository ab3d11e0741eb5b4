"""Choosing a provider by name: scripted, replayed, hostile, or a vendor model.

``scripted:FILE``, ``replay:FILE``, ``hostile[:SEED]``, or ``openai:gpt-4.1-mini`` and the
other vendor specs of :mod:`turnframe.providers.registry`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from turnframe.core.errors import UsageError
from turnframe.providers import Provider, ReplayProvider, ScriptedProvider
from turnframe.providers.registry import VENDOR_SPECS, is_vendor_spec, vendor_provider
from turnframe.testing.bounded_yaml import load_yaml

__all__ = ["EXAMPLE_SCRIPT", "KNOWN_MODELS", "provider_from_spec", "read_answers"]

EXAMPLE_SCRIPT = "example"
"""``scripted:example``: everywhere the shipped chat script of ``turnframe chat``
(``turnframe/cli/examples/travel-chat.yaml``, docs/chat.md), never a file named ``example``."""

KNOWN_MODELS = (
    "scripted:FILE (a JSON or YAML table of answers per task), replay:FILE (a turn's replay "
    f"record), hostile[:SEED], or a vendor model: {VENDOR_SPECS}"
)


def provider_from_spec(spec: str) -> Provider:
    """Return the provider ``spec`` names.

    ``scripted:example`` (:data:`EXAMPLE_SCRIPT`) names the shipped chat script, as it
    does in ``turnframe chat``; a chat script answers per typed message, so it is refused
    here rather than read as a file named ``example``.

    Raises:
        UsageError: for an unknown name, an unreadable file, or ``scripted:example``
            (the shipped chat script, for ``turnframe chat`` and ``serve``).
    """
    kind, _, rest = spec.partition(":")
    if kind == "scripted" and rest == EXAMPLE_SCRIPT:
        raise UsageError(
            f"scripted:{EXAMPLE_SCRIPT} is the shipped chat script, for `turnframe chat` and `serve`; "
            "this takes scripted:FILE, a table of task name → answers (docs/chat.md)"
        )
    if kind == "scripted":
        table = _read(rest)
        if not isinstance(table, dict):
            raise UsageError(f"{rest}: a scripted answers file is a mapping of task name → answers")
        if "messages" in table:
            raise UsageError(
                f"{rest}: a chat script (messages: say/answers) is for `turnframe chat`; "
                "this takes a table of task name → answers (docs/chat.md)"
            )
        return ScriptedProvider(table)
    if kind == "replay":
        data = _read(rest)
        calls: Any = data.get("calls") if isinstance(data, dict) else data
        if not isinstance(calls, list):
            raise UsageError(
                f"{rest}: a replay file is a turn's replay record (a mapping with a list of "
                "calls) or a list of calls"
            )
        try:
            return ReplayProvider(calls)
        except UsageError as exc:
            raise UsageError(f"{rest}: {exc}") from None
    if kind == "hostile":
        from turnframe.testing.hostile import HostileProvider

        if rest and not rest.isdecimal():
            raise UsageError(f"hostile:SEED takes a whole number as its seed, not {rest!r}")
        return HostileProvider(int(rest or 0))
    if is_vendor_spec(spec):
        return vendor_provider(spec)
    raise UsageError(f"unknown model {spec!r}; known: {KNOWN_MODELS}")


def read_answers(path: str) -> Any:
    """Return the JSON (``.json``) or YAML content of an answers file.

    Raises:
        UsageError: no path, an unreadable or non-UTF-8 file, or bad JSON/YAML.
    """
    return _read(path)


def _read(path: str) -> Any:
    if not path:
        raise UsageError("name a file after the colon, e.g. scripted:answers.yaml")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path}: it is not UTF-8 text ({exc.reason})") from None
    try:
        return json.loads(text) if path.endswith(".json") else load_yaml(text)
    except RecursionError:
        raise UsageError(f"cannot read {path}: it nests too deep") from None
    except (ValueError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
