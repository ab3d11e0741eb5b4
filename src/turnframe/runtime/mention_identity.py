"""Which words of a mention identify a record (docs/adr/0001-ambiguous-target.md, I8).

The default directory finds a record when every word of a mention is a substring of its
search text (:mod:`turnframe.store.search`). Two kinds of word in a mention name no
record, so requiring them would find nothing ("the ticket") or hide the record meant
("the Oslo trip"):

* *function words*: articles, demonstratives, possessives and the prepositions that join
  a noun phrase (``"the"``, ``"this"``, ``"my"``, ``"of"``; ``"o"``, ``"esta"``,
  ``"do"``), per language in :data:`FUNCTION_WORDS`. A mention drops those of every
  language listed, since the directory does not know the turn's language and none of
  them identifies a record in any of them.
* *kind words*: the words that name the kind of record, a workflow's name (``"trip"``,
  ``"expense_report"`` as ``"expense"`` and ``"report"``), the nouns its optional
  ``record_nouns(locale)`` hook declares, and the one-word terms of its glossary
  (docs/architecture.md, "Glossary"), each also in its plural forms
  (:func:`plural_forms`).

:func:`identify` splits a mention into its identifying words and the workflows its kind
words name. When identifying words remain, every one of them must match, exactly as
before. When none remain and a kind word names the workflow searched, the mention names
every record of that workflow the actor may address: one is resolved, several are a
selection card (the no-guess rule, I8). A mention of function words only names nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.mentions import bare
from turnframe.store.search import query_words

__all__ = ["FUNCTION_WORDS", "MentionWords", "identify", "kind_words", "plural_forms"]

_EN = """
a an the this that these those my our your his her their its
of for on in at with from
"""

_PT = """
o a os as um uma uns umas
este esta estes estas esse essa esses essas aquele aquela aqueles aquelas
meu minha meus minhas teu tua teus tuas seu sua seus suas nosso nossa nossos nossas
de do da dos das em no na nos nas para com
"""

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_EN.split()),
    "pt": frozenset(_PT.split()),
}
"""Per language, the folded words that join or determine a noun phrase and name no record."""

_ALL_FUNCTION = frozenset().union(*FUNCTION_WORDS.values())

_SPLIT = re.compile(r"[\s_.\-/]+")


def plural_forms(noun: str) -> frozenset[str]:
    """Return ``noun`` (folded) and its regular plural forms in English and Portuguese.

    ``"trip"`` → ``trip, trips``; ``"city"`` → ``city, cities``; ``"box"`` → ``box,
    boxes``; ``"viagem"`` → ``viagem, viagens``; ``"papel"`` → ``papel, papeis``;
    ``"razão"`` → ``razão, razões``. Over-generating only drops a word that no record's
    identity rests on; it never adds a match by itself.
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
        RegistryError: ``workflow`` is not registered.
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


@dataclass(frozen=True, slots=True)
class MentionWords:
    """A mention split by :func:`identify`.

    Attributes:
        identifying: the folded words that must all match a record's search text, in
            order, distinct (``()``: none).
        kinds: the workflows a kind word of the mention names, in registration order.
    """

    identifying: tuple[str, ...]
    kinds: tuple[str, ...]

    def names_all_of(self, workflow: str | None) -> str | None:
        """Return the workflow whose every record the mention names, or ``None``.

        Nothing identifying is left and a kind word names ``workflow`` (or, with
        ``workflow=None``, exactly one workflow is named).
        """
        if self.identifying:
            return None
        if workflow is not None:
            return workflow if workflow in self.kinds else None
        return self.kinds[0] if len(self.kinds) == 1 else None


def identify(registry: WorkflowRegistry, words: str) -> MentionWords:
    """Split ``words`` into identifying words and the workflows its kind words name.

    A word is not identifying when it is a function word of any language of
    :data:`FUNCTION_WORDS` or a kind word (:func:`kind_words`) of any registered
    workflow, once the punctuation around it is stripped
    (:func:`~turnframe.runtime.mentions.bare`); a word of punctuation only is dropped.
    Identifying words are kept as written and matched as the directory always matched
    (every one of them a substring of the record's folded search text).

    Raises:
        RegistryError: a workflow's ``record_nouns`` or glossary hook is malformed.
    """
    folded = query_words(words)
    kinds_of = {name: kind_words(registry, name) for name in registry.names()}
    identifying: list[str] = []
    named: dict[str, None] = {}
    for word in folded:
        core = bare(word)  # "ticket," and "the" in quotes are still the kind and an article
        naming = [name for name, kinds in kinds_of.items() if core in kinds]
        if naming:
            named.update(dict.fromkeys(naming))
        elif core and core not in _ALL_FUNCTION:
            identifying.append(word)
    order = [name for name in registry.names() if name in named]
    return MentionWords(identifying=tuple(identifying), kinds=tuple(order))
