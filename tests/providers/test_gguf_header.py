"""``local:PATH`` reads the trained context from any file's GGUF header without trusting it.

A damaged or hostile header (a string or array length far past the end of the file)
must give ``None`` quickly: never a ``MemoryError``, never a loop over 2⁶³ elements
(src/turnframe/providers/xllamacpp_local.py, ``_trained_context``). No model is loaded.
"""

from __future__ import annotations

import struct
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("xllamacpp", reason='the local adapter needs "turnframe[local]"')

from turnframe.providers.xllamacpp_local import _trained_context


def _string(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def _header(*pairs: bytes, count: int | None = None) -> bytes:
    n = len(pairs) if count is None else count
    return b"GGUF" + struct.pack("<IQQ", 3, 0, n) + b"".join(pairs)


def _kv_u32(key: bytes, value: int) -> bytes:
    return _string(key) + struct.pack("<II", 4, value)


def _within(seconds: float, path: Path) -> Any:
    """``_trained_context(path)`` run in a thread: its result, or a failure if it hangs or raises."""
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(("ok", _trained_context(path)))
        except BaseException as exc:  # the property: nothing escapes
            result.append(("raised", repr(exc)))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"_trained_context did not return within {seconds}s"
    kind, value = result[0]
    assert kind == "ok", value
    return value


def test_a_well_formed_header_gives_its_context(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    array = _string(b"tokenizer.scores") + struct.pack("<IIQ", 9, 6, 3) + bytes(12)
    path.write_bytes(_header(array, _kv_u32(b"llama.context_length", 8192)))
    assert _within(5, path) == 8192


@pytest.mark.parametrize(
    "body",
    [
        _string(b"k")[:8] + b"x",  # a string shorter than its length
        struct.pack("<Q", 1 << 62),  # a key of 4 EiB
        _string(b"k") + struct.pack("<I", 8) + struct.pack("<Q", 1 << 62),  # a value of 4 EiB
        _string(b"k") + struct.pack("<IIQ", 9, 4, (1 << 63) - 1),  # 2⁶³ uint32 at the end
        _string(b"k") + struct.pack("<IIQ", 9, 8, (1 << 63) - 1),  # 2⁶³ strings at the end
        _string(b"llama.context_length") + struct.pack("<I", 4),  # a value cut off
    ],
    ids=["short-string", "huge-key", "huge-value", "huge-u32-array", "huge-string-array", "cut"],
)
def test_a_header_that_claims_more_than_the_file_holds_gives_none(
    body: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "bad.gguf"
    path.write_bytes(_header(body, count=1))
    assert _within(5, path) is None


@settings(max_examples=300, deadline=None)
@given(tail=st.binary(max_size=256), count=st.integers(0, 2**64 - 1))
def test_any_bytes_after_the_magic_give_an_int_or_none_quickly(
    tmp_path_factory: Any, tail: bytes, count: int
) -> None:
    path = tmp_path_factory.mktemp("gguf") / "any.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, count) + tail)
    value = _within(5, path)
    assert value is None or isinstance(value, int)
