"""The conformance suite fails when a fixture or an adapter maps a refusal to complete."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from turnframe.providers.base import StopReason
from turnframe.providers.conformance import FIXTURES, LoopbackServer, Target, run_case
from turnframe.providers.conformance.targets import builtin_targets
from turnframe.providers.openai import OpenAIProvider

CHAT = next(t for t in builtin_targets() if t.name == "openai (chat completions)")


def _broken_fixtures(tmp_path: Path) -> Path:
    """A copy of the OpenAI fixtures whose refusal case serves a complete answer."""
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES / "openai_chat", root / "openai_chat")
    complete = json.loads((root / "openai_chat" / "structured_valid.json").read_text())
    (root / "openai_chat" / "refusal.json").write_text(json.dumps(complete))
    return root


def _run(target: Target, case: str) -> Any:
    async def go() -> Any:
        with LoopbackServer() as server:
            return await run_case(target, case, server)

    return anyio.run(go)


def test_a_refusal_fixture_mapped_to_complete_fails_the_case(tmp_path: Path) -> None:
    result = _run(replace(CHAT, fixtures=_broken_fixtures(tmp_path)), "refusal")
    assert result.status == "fail"
    assert "expected refusal, got complete" in result.detail
    assert _run(CHAT, "refusal").status == "pass"


def test_an_adapter_that_maps_refusal_to_complete_fails_the_case() -> None:
    class Careless(OpenAIProvider):
        def _ending(self, raw: Any, **kwargs: Any) -> Any:
            raw = super()._ending(raw, **kwargs)
            if raw.stop is StopReason.REFUSAL:
                raw.stop, raw.text = StopReason.COMPLETE, '{"acts": []}'
            return raw

    def make(*, base_url: str, api_key: str, timeout: float) -> Careless:
        return Careless("gpt-4.1-mini", api_key=api_key, base_url=f"{base_url}/v1", timeout=timeout)

    result = _run(replace(CHAT, make=make), "refusal")
    assert result.status == "fail"
    assert "expected refusal, got complete" in result.detail


def test_the_pytest_suite_fails_on_the_broken_fixture(tmp_path: Path) -> None:
    fixtures = _broken_fixtures(tmp_path)
    test_file = tmp_path / "test_adopter_suite.py"
    test_file.write_text(
        "from dataclasses import replace\n"
        "from pathlib import Path\n"
        "from turnframe.providers.conformance import ProviderConformance\n"
        "from turnframe.providers.conformance.targets import builtin_targets\n"
        "CHAT = next(t for t in builtin_targets() if t.name == 'openai (chat completions)')\n"
        "class TestBrokenFixture(ProviderConformance):\n"
        f"    target = replace(CHAT, fixtures=Path({str(fixtures)!r}))\n"
        "    cases = ('structured_valid', 'refusal')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "test_conformance[refusal]" in proc.stdout
    assert "expected refusal, got complete" in proc.stdout
    assert "1 failed, 1 passed" in proc.stdout
