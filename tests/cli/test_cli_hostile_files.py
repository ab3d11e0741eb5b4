"""Hostile model specs and files get one typed line and exit 2, never a traceback (issue 11 item 8).

``--model hostile:abc``, a malformed ``replay:`` file (wrong shapes, a 5,000-deep JSON
document) and a 5,000-deep scenario or eval YAML file.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.testing.bounded_yaml import YAMLTooDeep, load_yaml

DEEP = 5_000


def _chat(spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO("hi\n")
    try:
        code = main(["chat", "--model", spec, "--db", str(tmp_path / "chat.db")])
    finally:
        sys.stdin = old
    captured = capsys.readouterr()
    return code, captured.err + captured.out


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (json.dumps({"calls": [1, 2]}), "calls[0] is not a mapping"),
        (json.dumps("text"), "a replay file is a turn's replay record"),
        (json.dumps({"calls": "x"}), "a replay file is a turn's replay record"),
        (json.dumps([{"fingerprint": 3}]), "calls[0].fingerprint"),
        (json.dumps([{"fingerprint": "f", "response": 7}]), "calls[0].response"),
        (json.dumps([{"fingerprint": "f", "response": {"stop": "exploded"}}]), ".stop is not"),
        (json.dumps([{"fingerprint": "f", "response": {"text": {"a": 1}}}]), ".text is not"),
        (
            json.dumps([{"fingerprint": "f", "response": {"usage": {"prompt_tokens": "9"}}}]),
            ".usage",
        ),
        ("[" * DEEP + "]" * DEEP, "nests too deep"),
        ("{not json", "cannot read"),
    ],
)
def test_a_malformed_replay_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, says: str
) -> None:
    path = tmp_path / "replay.json"
    path.write_text(content, encoding="utf-8")
    code, output = _chat(f"replay:{path}", tmp_path, capsys)
    assert code == 2
    assert output.startswith("error: ") and says in output
    assert "Traceback" not in output and output.count("\n") == 1


@pytest.mark.parametrize("spec", ["hostile:abc", "hostile:-1", "hostile:1.5"])
def test_a_hostile_seed_that_is_not_a_number_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    code, output = _chat(spec, tmp_path, capsys)
    assert code == 2 and output.startswith("error: hostile:SEED takes a whole number")


def _deep_flow(depth: int) -> str:
    return "name: x\nsample: travel\nturns: " + "[" * depth + "]" * depth + "\n"


def _deep_block(depth: int) -> str:
    return "name: x\nturns:\n" + "".join(" " * n + "- \n" for n in range(1, depth))


@pytest.mark.parametrize("build", [_deep_flow, _deep_block])
def test_a_5000_deep_scenario_file_is_invalid_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], build: object
) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(build(DEEP), encoding="utf-8")  # type: ignore[operator]
    assert main(["scenario", "run", str(path)]) == 2
    out = capsys.readouterr().out
    assert "invalid:" in out and "nests more than 64 levels deep" in out


def test_a_5000_deep_eval_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "deep.yaml").write_text(_deep_flow(DEEP), encoding="utf-8")
    code = main(["eval", "run", str(tmp_path / "set"), "--model", "oracle"])
    captured = capsys.readouterr()
    assert code == 2 and "nests more than 64 levels deep" in captured.err


def test_the_bounded_loader_reads_what_safe_load_reads() -> None:
    text = "a: [1, {b: c}]\nd: 2026-05-01\ne: !!str 3\n"
    import yaml

    assert load_yaml(text) == yaml.safe_load(text)
    assert load_yaml("[" * 64 + "]" * 64) is not None
    with pytest.raises(YAMLTooDeep):
        load_yaml("[" * 65 + "]" * 65)
    with pytest.raises(yaml.YAMLError):
        load_yaml("!!python/object:os.system ls")
