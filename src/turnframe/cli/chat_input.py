"""Reading ``turnframe chat``'s input: one message a line, bounded and UTF-8 (docs/chat.md).

The input is read as bytes, so a line that is not UTF-8 is refused with a notice instead
of ending the chat with a decoding error, and a line longer than the limit is refused
without being held whole in memory: at most ``limit + 1`` bytes of it are read, the rest
is skipped up to its newline. A text stream (a test's ``io.StringIO``, a terminal without
a byte buffer) is read as text; a character its decoder could not read (a lone surrogate
from ``surrogateescape``) makes the line refused the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from turnframe.core.dataclass_init import fast_init

__all__ = ["Line", "read_lines"]


@fast_init
@dataclass(frozen=True, slots=True)
class Line:
    """One line of input.

    Attributes:
        text: the message without its line ending (``""`` when refused).
        refused: why it is not run (a one-line notice), or ``None``.
    """

    text: str
    refused: str | None = None


def _too_long(limit: int) -> Line:
    return Line("", f"message refused: over {limit} bytes (UTF-8); not run")


_NOT_UTF8 = Line("", "message refused: not valid UTF-8 text; not run")


def read_lines(stream: IO[Any], limit: int) -> Iterator[Line]:
    """Yield each line of ``stream`` as a :class:`Line`, refusing what is too long or not UTF-8.

    Args:
        stream: ``sys.stdin`` (its ``buffer`` is read when it has one), a byte stream or
            a text stream.
        limit: the most bytes a message may take in UTF-8, line ending excluded.

    Raises:
        ValueError: ``limit`` is below 1.
    """
    if limit < 1:
        raise ValueError(f"the message limit is at least 1 byte, not {limit}")
    raw = getattr(stream, "buffer", stream)
    while True:
        chunk = raw.readline(limit + 3)  # the message, up to "\r\n", and one byte over
        if not chunk:
            return
        if isinstance(chunk, str):
            yield _text_line(chunk, raw, limit)
            continue
        ended = chunk.endswith(b"\n")
        body = chunk.rstrip(b"\r\n")
        if len(body) > limit:
            if not ended:
                _skip_line(raw)
            yield _too_long(limit)
            continue
        try:
            yield Line(body.decode("utf-8"))
        except UnicodeDecodeError:
            yield _NOT_UTF8


def _text_line(chunk: str, raw: Any, limit: int) -> Line:
    ended = chunk.endswith("\n")
    body = chunk.rstrip("\r\n")
    try:
        size = len(body.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: bytes the decoder could not read
        if not ended:
            _skip_line(raw)
        return _NOT_UTF8
    if size > limit:
        if not ended:
            _skip_line(raw)
        return _too_long(limit)
    return Line(body)


def _skip_line(raw: Any) -> None:
    """Read and drop the rest of the current line, a bounded chunk at a time."""
    while True:
        chunk = raw.readline(65536)
        if not chunk or chunk.endswith(b"\n" if isinstance(chunk, bytes) else "\n"):
            return
