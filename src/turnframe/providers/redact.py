r"""Secret redaction shared by every adapter (docs/provider-adapters.md, docs/adr/0019-local-model-and-answer-bounds.md).

Adapters never keep a vendor SDK's exception, request or response (``openai`` and
``anthropic`` exceptions hold the request headers, ``Authorization`` included); they
keep only a redacted message. :class:`Redactor` removes the adapter's own secrets
and anything that looks like a credential from any text before it leaves the adapter.

A secret is found in every spelling JSON allows for it, not only as written: each
character raw, ``\u``-escaped (either case of hex digit, as a surrogate pair above
U+FFFF, with any number of backslashes for text escaped more than once) or, for ``"``,
``\`` and ``/``, short-escaped; mixed freely. So a key a vendor echoes back
``\u``-escaped in an answer or an error body is caught in the raw text, before any
parser decodes it (docs/adr/0019-local-model-and-answer-bounds.md).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["REDACTED", "Redactor", "SecretFilter", "guard_loggers"]

REDACTED = "[redacted]"

# Credential shapes worth hiding even when the adapter was not told the value.
_PATTERNS = (
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_*-]{8,}"),  # OpenAI / Anthropic keys, masked or not
    re.compile(r"\bAIza[0-9A-Za-z_-]{20,}"),  # Google API keys
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(
        r"(?i)(x-api-key|api-key|x-goog-api-key|authorization)(['\"]?\s*[:=]\s*['\"]?)[^\s'\",}]+"
    ),
)


# What follows the backslash in JSON's short escape of a character.
_SHORT_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "\b": "b",
    "\f": "f",
    "\n": "n",
    "\r": "r",
    "\t": "t",
}


def _hex4(code: int) -> str:
    return "".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in f"{code:04x}")


def _char_forms(ch: str) -> str:
    code = ord(ch)
    forms = [re.escape(ch)]
    if code <= 0xFFFF:
        forms.append(r"\\+u" + _hex4(code))
    else:
        high = 0xD800 + ((code - 0x10000) >> 10)
        low = 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(r"\\+u" + _hex4(high) + r"\\+u" + _hex4(low))
    if ch in _SHORT_ESCAPES:
        forms.append(r"\\+" + re.escape(_SHORT_ESCAPES[ch]))
    return "(?:" + "|".join(forms) + ")"


def encoded_pattern(secret: str) -> re.Pattern[str]:
    """Return a pattern matching ``secret`` in every spelling JSON allows, mixed per character."""
    return re.compile("".join(_char_forms(ch) for ch in secret))


_ESCAPE = re.compile(
    r"\\+u([dD][89abAB][0-9a-fA-F]{2})\\+u([dD][c-fC-F][0-9a-fA-F]{2})|\\+u([0-9a-fA-F]{4})"
)


def _unescape(text: str) -> str:
    r"""Decode every ``\uXXXX`` (and surrogate pair) in ``text``, however many backslashes lead."""

    def one(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            code = int(m.group(3), 16)
            return m.group(0) if 0xD800 <= code <= 0xDFFF else chr(code)
        high, low = int(m.group(1), 16), int(m.group(2), 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))

    return _ESCAPE.sub(one, text)


class Redactor:
    """Removes known secrets and credential-shaped strings from text.

    Args:
        secrets: the values to hide wherever they appear (API keys, tokens); empty
            and very short values are ignored so that redaction never eats ordinary text.
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets: list[str] = []
        self._encoded: list[re.Pattern[str]] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        """Also hide ``secret`` (in every JSON spelling of it) from now on."""
        if secret and len(secret) >= 6 and secret not in self._secrets:
            self._secrets.append(secret)
            self._secrets.sort(key=len, reverse=True)
            self._encoded = [encoded_pattern(s) for s in self._secrets]

    def known(self, text: str) -> str:
        """Return ``text`` with only the known secrets replaced, in any JSON spelling (model output).

        Replacing a whole escaped spelling by ``[redacted]`` keeps a JSON text JSON.
        """
        if not self._secrets:
            return text
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        if "\\" in text:  # every escaped spelling has a backslash
            for pattern in self._encoded:
                text = pattern.sub(REDACTED, text)
        return text

    def value(self, value: Any) -> Any:
        """Return a decoded JSON value with :meth:`known` applied to every string, keys included."""
        if isinstance(value, str):
            return self.known(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.known(str(k)): self.value(v) for k, v in value.items()}
        return value

    def __call__(self, text: str) -> str:
        r"""Return ``text`` with every secret and credential shape replaced by ``[redacted]``.

        For error text: escapes are decoded first, so a credential shape spelled with
        ``\u`` escapes (``\u0073k-…``) is caught too.
        """
        text = _unescape(self.known(text))
        text = self.known(text)
        for pattern in _PATTERNS:
            if pattern.groups == 2:
                text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
            else:
                text = pattern.sub(REDACTED, text)
        return text


class SecretFilter(logging.Filter):
    """A logging filter that redacts every record's message with a :class:`Redactor`.

    Install it on handlers that may see vendor SDK debug logs.
    """

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message in place; never drops a record."""
        message = record.getMessage()
        clean = self.redactor(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


_GUARDS: dict[str, SecretFilter] = {}


def guard_loggers(names: Iterable[str], secrets: Iterable[str | None]) -> None:
    """Redact ``secrets`` from every record the loggers ``names`` emit.

    For SDKs that log raw bodies at DEBUG (botocore's ``Response body``): a vendor
    that echoes a credential in an error message would otherwise put it in the logs.
    A filter on a logger applies to that logger's own records only, so name each one.
    """
    values = [s for s in secrets if s]
    for name in names:
        guard = _GUARDS.get(name)
        if guard is None:
            guard = _GUARDS[name] = SecretFilter(Redactor())
            logging.getLogger(name).addFilter(guard)
        for value in values:
            guard.redactor.add(value)
