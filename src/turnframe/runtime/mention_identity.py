"""Which words of a mention identify a record (docs/adr/0001-ambiguous-target.md, I8).

The default directory finds a record when every word of a mention is a substring of its
search text (:mod:`turnframe.store.search`). Two kinds of word in a mention name no
record, so requiring them would find nothing ("the ticket") or hide the record meant
("the Oslo trip"):

* *function words*: articles and determiners (``"the"``, ``"this"``, ``"my"``,
  ``"all"``; ``"o"``, ``"esta"``, ``"minhas"``), per language in :data:`FUNCTION_WORDS`.
  A mention drops those of every language listed: the directory is not told the turn's
  language, and none of them identifies a record in any of them. Prepositions are not
  among them; they are parts of names.
* *kind words* of the workflow searched: the parts of its name (``"trip"``;
  ``"expense_report"`` gives ``"expense"`` and ``"report"``), the nouns its optional
  ``record_nouns(locale)`` hook declares, and the one-word terms of its glossary
  (``turnframe/core/glossary.py``), each also in its plural forms (:func:`plural_forms`).

:func:`identify` splits a mention into its identifying words and its kind words. When
identifying words remain, every one of them must match, exactly as before. When none
remain and a kind word was there, the mention names every record of that workflow the
actor may address: one is resolved, several are a selection card (the no-guess rule,
I8). A mention of articles and determiners only names nothing. The rule and its limits
are in docs/architecture.md, "Stores".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.mentions import bare
from turnframe.store.base import TurnStore
from turnframe.store.search import CasePage, query_words

__all__ = ["FUNCTION_WORDS", "MentionWords", "identify", "kind_words", "plural_forms", "seek"]

_EN = """
a an the this that these those my our your his her their its
all every each both
"""

_PT = """
o a os as um uma uns umas
este esta estes estas esse essa esses essas aquele aquela aqueles aquelas
meu minha meus minhas teu tua teus tuas seu sua seus suas nosso nossa nossos nossas
todo toda todos todas cada ambos ambas
"""

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_EN.split()),
    "pt": frozenset(_PT.split()),
}
"""Per language, the articles and determiners (folded): they determine a noun, name nothing.

Prepositions are deliberately absent: they are part of names ("Ana da Silva", "Bank of
America"), and dropping one could make a mention find a different record alone.
"""

_ALL_FUNCTION = frozenset().union(*FUNCTION_WORDS.values())

_SPLIT = re.compile(r"[\s_.\-/]+")


def plural_forms(noun: str) -> frozenset[str]:
    """Return ``noun`` (folded) and its regular plural forms in English and Portuguese.

    ``"trip"`` → ``trip, trips``; ``"city"`` → ``city, cities``; ``"box"`` → ``box,
    boxes``; ``"viagem"`` → ``viagem, viagens``; ``"papel"`` → ``papel, papeis``;
    ``"razão"`` → ``razão, razões``.
    """
    word = noun.lower()
    forms = {word, word + "s", word + "es"}
    if word.endswith("y"):
        forms.add(word[:-1] + "ies")
    if word.endswith("m"):
        forms.add(word[:-1] + "ns")
    if word.endswith("l"):
        forms.add(word[:-1] + "is")
    if word.endswith("ão"):
        forms.update({word[:-2] + "ões", word[:-2] + "ães"})
    return frozenset(forms)


def kind_words(registry: WorkflowRegistry, workflow: str) -> frozenset[str]:
    """Return the folded words that name ``workflow``'s kind of record, plurals included.

    The parts of the workflow's name, the nouns of its optional ``record_nouns(locale)``
    hook, and its glossary's one-word terms, in each locale the workflow declares and
    in English.

    Raises:
        RegistryError: ``workflow`` is not registered, or its glossary is malformed.
    """
    erased = registry.workflow(workflow)
    nouns: set[str] = {part for part in _SPLIT.split(workflow.lower()) if part}
    hook = getattr(erased.definition, "record_nouns", None)
    for locale in dict.fromkeys(("en", *erased.locales)):
        if callable(hook):
            nouns.update(w for noun in hook(locale) for w in query_words(str(noun)))
        for entry in erased.glossary(locale):
            words = query_words(entry.term)
            if len(words) == 1:
                nouns.add(words[0])
    return frozenset(form for noun in nouns for form in plural_forms(noun))


@fast_init
@dataclass(frozen=True, slots=True)
class MentionWords:
    """A mention split by :func:`identify`.

    Attributes:
        identifying: the folded words that must all match a record's search text, in
            order, distinct (``()``: none).
        workflow: the workflow searched (the one asked for, or the one the mention's kind
            words name), or ``None`` for every workflow.
        kind: whether a word of the mention names ``workflow``'s kind.
    """

    identifying: tuple[str, ...]
    workflow: str | None
    kind: bool

    @property
    def every(self) -> str | None:
        """The workflow whose every record the mention names: nothing identifying, a kind word."""
        return self.workflow if self.kind and not self.identifying else None

    @property
    def names_any(self) -> bool:
        """Whether the mention can name a record at all (identifying words, or a kind)."""
        return bool(self.identifying) or self.every is not None


async def seek(
    store: TurnStore, mention: MentionWords, account: str, *, limit: int, after: str | None
) -> CasePage:
    """Return one page of the cases ``mention`` names in ``account``, in creation order.

    Every case of :attr:`MentionWords.every` (``TurnStore.list_cases_page``), else the
    cases whose search text holds every identifying word (``TurnStore.find_cases``, over
    :attr:`MentionWords.workflow`).

    Raises:
        BadPageRequest: ``limit`` or ``after`` is malformed.
    """
    if mention.every is not None:
        return await store.list_cases_page(
            account, workflow=mention.every, limit=limit, after=after
        )
    words = " ".join(mention.identifying)
    return await store.find_cases(
        account, words, workflow=mention.workflow, limit=limit, after=after
    )


def identify(registry: WorkflowRegistry, words: str, workflow: str | None = None) -> MentionWords:
    """Split the mention ``words`` of a record of ``workflow`` (``None``: any workflow).

    A word is not identifying when it is an article or determiner of any language of
    :data:`FUNCTION_WORDS`, or a kind word (:func:`kind_words`) of the workflow searched,
    once the punctuation around it is stripped
    (:func:`~turnframe.runtime.mentions.bare`); a word of punctuation only is dropped.
    With ``workflow=None``, the workflow searched is the one the mention's kind words
    name when they name exactly one (``"the Porto trip"``: trips), else every workflow
    and no word is a kind word. A kind word of another workflow stays identifying, so
    it still has to match (a traveler "Ana Trip" is not any Ana). Identifying words are
    kept as written and matched as the directory always matched: every one of them a
    substring of the record's folded search text.

    Raises:
        RegistryError: ``workflow`` is not registered, or a workflow's glossary is
            malformed.
    """
    folded = query_words(words)
    cores = [bare(word) for word in folded]
    if workflow is None:
        named = [
            name
            for name in registry.names()
            if any(core in kind_words(registry, name) for core in cores)
        ]
        workflow = named[0] if len(named) == 1 else None
    kinds = kind_words(registry, workflow) if workflow is not None else frozenset()
    identifying: list[str] = []
    kind = False
    for word, core in zip(folded, cores, strict=True):
        if core in kinds:
            kind = True
        elif core and core not in _ALL_FUNCTION:
            identifying.append(word)
    return MentionWords(identifying=tuple(identifying), workflow=workflow, kind=kind)
