"""Per-locale tables and the kit's own generic sentences (docs/authoring.md#words-and-locales).

A table maps a locale tag to its words. :func:`in_locale` picks the words of a locale:
the exact tag, else its language (``"pt"`` for ``"pt-PT"``). The kit words its generic
refusals and questions in English and Portuguese; a workflow declaring another locale
supplies them (``Workflow.words``), which ``registration_problems`` checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

__all__ = ["GENERIC_WORDS", "Refused", "in_locale", "language"]

T = TypeVar("T")


def language(locale: str) -> str:
    """Return the language of a locale tag: ``"pt"`` for ``"pt-PT"``."""
    return locale.split("-")[0].split("_")[0].lower()


def in_locale(table: Mapping[str, T], locale: str) -> T | None:
    """Return ``table``'s entry for ``locale``, else its language's, else ``None``.

    The language's entry is the one keyed by the bare language (``"pt"``) or, failing
    that, the first keyed by a tag of that language (``"pt-PT"`` serves ``"pt-BR"``).
    """
    found = table.get(locale)
    if found is None:
        lang = language(locale)
        found = table.get(lang)
        if found is None:
            found = next((v for k, v in table.items() if language(k) == lang), None)
    return found


class Refused(Exception):
    """A domain refusal raised inside a check; the base class turns it into a Refusal.

    Args:
        code: the stable refusal code; its sentence is ``refusal.<code>`` of the
            workflow's words (or the kit's generic words).
        params: server data the sentence interpolates (never the user's instructions).
    """

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


GENERIC_WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "refusal.missing_argument": "I need the {argument} to do that.",
        "refusal.invalid_value": "That is not a valid {argument}.",
        "refusal.not_created": "This {record} doesn't exist yet.",
        "refusal.already_exists": "This {record} already exists.",
        "refusal.not_on_offer": "That can't be done now: {label} is {phase}.",
        "ask.argument": "What {argument} should I use?",
        "ask.obligation": "What is still needed for {obligation}?",
        "select": "Which {record} did you mean?",
        "no_candidate": "None of the records you named can take this now: {operation}.",
        "label.absent": "new {record}",
        "silent": "",
    },
    "pt": {
        "refusal.missing_argument": "Preciso do campo {argument} para fazer isso.",
        "refusal.invalid_value": "Isso não é um valor válido para {argument}.",
        "refusal.not_created": "Este registo ({record}) ainda não existe.",
        "refusal.already_exists": "Este registo ({record}) já existe.",
        "refusal.not_on_offer": "Isso não pode ser feito agora: {label} está em {phase}.",
        "ask.argument": "Que valor devo usar para {argument}?",
        "ask.obligation": "O que falta para {obligation}?",
        "select": "A que registo ({record}) se referia?",
        "no_candidate": "Nenhum dos registos que indicou pode receber isto agora: {operation}.",
        "label.absent": "registo novo ({record})",
        "silent": "",
    },
}
"""The kit's generic sentences, by language; placeholders are server data only."""
