"""Secret redaction shared by every adapter (guide §10, providers.md §1.7).

Adapters never keep a vendor SDK's exception, request or response (``openai`` and
``anthropic`` exceptions hold the request headers, ``Authorization`` included); they
keep only a redacted message. :class:`Redactor` removes the adapter's own secrets
and anything that looks like a credential from any text before it leaves the adapter.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

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


class Redactor:
    """Removes known secrets and credential-shaped strings from text.

    Args:
        secrets: the values to hide wherever they appear (API keys, tokens); empty
            and very short values are ignored so that redaction never eats ordinary text.
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def add(self, secret: str | None) -> None:
        """Also hide ``secret`` from now on."""
        if secret and len(secret) >= 6 and secret not in self._secrets:
            self._secrets.append(secret)
            self._secrets.sort(key=len, reverse=True)

    def known(self, text: str) -> str:
        """Return ``text`` with only the exact known secrets replaced (for model output)."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def __call__(self, text: str) -> str:
        """Return ``text`` with every secret replaced by ``[redacted]``."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
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
