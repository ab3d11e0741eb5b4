"""The claim guard: no block and no model word asserts an outcome without committed events.

Two guards, both structural (docs/invariants.md I15, docs/adr/0017-no-claim-in-model-words.md):

* :func:`guard_claims` checks the structured claims of blocks: every claim cites
  committed events of its case and operation.
* :func:`guard_sentence` checks a model-written sentence against the facts it declares it
  speaks about (:class:`Fact`): every word it uses is a word of those facts or a function
  word of the language; a word that asserts an effect (:class:`ClaimVocabulary`) is
  allowed only where a cited receipt (or, in a question, the cited thing to ask) says it
  with the same word before it, and only about one record. A sentence that fails is
  dropped; the code-written words stand (the runtime, ``runtime/steps/reply.py``).

Pure and synchronous.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent
from turnframe.core.reply import ReplyBlock
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.claim_words import CLAIM_STEMS, FUNCTION_WORDS, language, tokens

__all__ = ["ClaimVocabulary", "Fact", "FactKind", "guard_claims", "guard_sentence", "guard_text"]


def guard_claims(
    blocks: Sequence[ReplyBlock], committed: Iterable[DomainEvent]
) -> tuple[tuple[ReplyBlock, ...], tuple[ReplyBlock, ...]]:
    """Split ``blocks`` into those whose claims committed events prove and those refused.

    A claim is proved when it cites at least one event id and every cited id is a committed
    event of the claimed case produced by the claimed operation.

    Args:
        blocks: the reply's blocks, in order.
        committed: the committed events the reply may cite.

    Returns:
        ``(kept, refused)``, each in the original order.
    """
    by_id = {e.id: e for e in committed}
    kept: list[ReplyBlock] = []
    refused: list[ReplyBlock] = []
    for block in blocks:
        ok = True
        for claim in block.claims:
            if not claim.event_ids:
                ok = False
            for event_id in claim.event_ids:
                event = by_id.get(event_id)
                if event is None or event.case != claim.case or event.operation != claim.operation:
                    ok = False
        (kept if ok else refused).append(block)
    return tuple(kept), tuple(refused)


class FactKind(StrEnum):
    """What a fact a sentence may cite is; only a receipt can back an effect word."""

    RECEIPT = "done"
    REFUSAL = "not_done"
    NOTICE = "notice"
    CARD = "card"
    ASK_NEXT = "ask_next"
    ANSWER = "answer"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """A code-written fact a model sentence may speak about.

    Attributes:
        ref: its id in the acknowledgement's schema (``done:1``, ``not_done:2``, ``ask_next``).
        kind: what it is.
        text: its code-written words (a receipt's text, a refusal's sentence...).
        case: for a receipt, the record it is about (``str(CaseRef)``).
    """

    ref: str
    kind: FactKind
    text: str
    case: str | None = None


_START = "^"
_ENDS = (".", "!", "?", ";", ":", "…")


class ClaimVocabulary:
    """The words that assert an effect: the generic stems plus a domain's operation words.

    From every operation of every workflow: the words of its key (``trip.add_extra`` →
    ``add``, ``extra`` are not added: only the verb, the first word after the dot) and
    the first word of its summary in every locale it has (``Cancel the trip.``,
    ``Cancelar a viagem.``), reduced to a prefix so that every tense matches.

    Args:
        stems: extra prefixes (normalised) that assert an effect.
    """

    def __init__(self, stems: Iterable[str] = ()) -> None:
        self.stems = frozenset(CLAIM_STEMS) | frozenset(_stem(s) for s in stems if s)
        self._prefixes = tuple(sorted(s for s in self.stems if s))

    @classmethod
    def from_registry(cls, registry: WorkflowRegistry) -> ClaimVocabulary:
        """Return the vocabulary of ``registry``'s operations, in every locale they carry."""
        words: list[str] = []
        for name in registry.names():
            for spec in registry.workflow(name).operations():
                words.append(spec.key.split(".", 1)[-1].split("_", 1)[0])
                for summary in (spec.summary, *spec.summaries.values()):
                    first = tokens(summary)[:1]
                    words.extend(first)
        return cls(words)

    def asserts(self, word: str) -> bool:
        """Return whether normalised ``word`` asserts an effect (by prefix, broadly)."""
        return word.startswith(self._prefixes)


def _stem(word: str) -> str:
    """Return the prefix by which ``word`` matches its every tense (``cancelar`` → ``cance``)."""
    folded = tokens(word)
    base = folded[0] if folded else ""
    for suffix in ("ing", "ed", "es", "e", "s", "ar", "er", "ir"):
        if base.endswith(suffix) and len(base) - len(suffix) >= 3:
            base = base[: -len(suffix)]
            break
    return base[:5]


def _sentences(text: str) -> list[list[str]]:
    """Return ``text`` split into sentences (and clauses after ``;`` or ``:``) of tokens."""
    out: list[list[str]] = []
    current: list[str] = []
    for word in _chunks(text):
        if word in _ENDS:
            if current:
                out.append(current)
            current = []
        else:
            current.append(word)
    if current:
        out.append(current)
    return out


def _chunks(text: str) -> list[str]:
    marked = text
    for end in _ENDS:
        marked = marked.replace(end, f" {end} ")
    words: list[str] = []
    for piece in marked.split():
        if piece in _ENDS:
            words.append(piece)
        else:
            words.extend(tokens(piece))
    return words


def _pairs(text: str) -> set[tuple[str, str]]:
    """Return every (word before, word) pair of ``text``; ``^`` marks a sentence start."""
    pairs: set[tuple[str, str]] = set()
    for sentence in _sentences(text):
        previous = _START
        for word in sentence:
            pairs.add((previous, word))
            previous = word
    return pairs


def guard_sentence(
    text: str,
    about: Sequence[str],
    facts: Sequence[Fact],
    vocabulary: ClaimVocabulary,
    locale: str,
) -> str | None:
    """Return why model sentence ``text`` may not be shown, or ``None`` when it may (I15).

    Args:
        text: the sentence (several sentences are checked one by one, against the same
            ``about``).
        about: the refs of the facts it declares it speaks about.
        facts: every fact of the turn the sentence could cite.
        vocabulary: the effect words.
        locale: the turn's locale (which function words apply).

    Rules, each structural:

    1. ``about`` names only facts on offer.
    2. Every word is a word of a cited fact or a function word of the language.
    3. A sentence with an effect word cites only receipts (plus, for a question, the
       thing to ask next), all about one record; each effect word appears in one of
       them after the same word (or at a sentence start, as there), so neither a
       negation nor a tense nor a subject can be added or removed around it.
    """
    by_ref = {f.ref: f for f in facts}
    unknown = [r for r in about if r not in by_ref]
    if unknown:
        return f"cites facts not on offer: {', '.join(unknown)}"
    cited = [by_ref[r] for r in dict.fromkeys(about)]
    allowed = set(FUNCTION_WORDS[language(locale)])
    for fact in cited:
        allowed.update(tokens(fact.text))
    question = text.rstrip().endswith("?")
    for sentence in _sentences(text):
        strange = sorted({w for w in sentence if w not in allowed})
        if strange:
            return f"uses words no cited fact holds: {', '.join(strange[:5])}"
        claims = [n for n, w in enumerate(sentence) if vocabulary.asserts(w)]
        if not claims:
            continue
        backing = [f for f in cited if f.kind is FactKind.RECEIPT]
        others = [f for f in cited if f.kind is not FactKind.RECEIPT]
        if question:
            backing += [f for f in others if f.kind is FactKind.ASK_NEXT]
            others = [f for f in others if f.kind is not FactKind.ASK_NEXT]
        words = ", ".join(sentence[n] for n in claims)
        if not backing:
            return f"asserts an effect ({words}) no cited receipt backs"
        if others:
            return f"asserts an effect ({words}) while citing facts that are not receipts"
        if len({f.case for f in backing if f.kind is FactKind.RECEIPT}) > 1:
            return f"asserts an effect ({words}) about several records at once"
        pairs: set[tuple[str, str]] = set()
        for fact in backing:
            pairs |= _pairs(fact.text)
        for n in claims:
            before = sentence[n - 1] if n else _START
            if (before, sentence[n]) not in pairs:
                return f"asserts an effect ({before} {sentence[n]}) no cited receipt says"
    return None


def guard_text(text: str, facts: str, vocabulary: ClaimVocabulary, locale: str) -> str | None:
    """Return why model text ``text`` written from code's ``facts`` may not be shown, or ``None``.

    For an answer: the facts are the knowledge source's words; they may license an
    effect word as a receipt does (a current status, what would happen), but only in
    the same words (:func:`guard_sentence`, rules 2 and 3).
    """
    fact = Fact(ref="facts", kind=FactKind.RECEIPT, text=facts)
    return guard_sentence(text, ("facts",), (fact,), vocabulary, locale)
