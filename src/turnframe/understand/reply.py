"""The reply's words: acknowledge, review and answer, three small checked tasks.

See docs/architecture.md "Claims".

Code has decided everything by the time these run: the turn committed, receipts are
rendered from its events and every refusal carries its own sentence. The tasks only put
that into words, and only from facts gathered by code, all of them server-authored:

* **acknowledge** writes one to three sentences from the turn's outcome: what was done
  (each receipt's own words), what was not and why (each refusal's own sentence) and the
  one thing to ask next, which code chose. It is told what is already on screen and is
  never shown the user's words (so never those of a refused request, nor of a question
  answered elsewhere).
* **review** checks it with a yes/no checklist of only the checks that apply. A text
  failing the review goes back once, told which checks failed; failing twice, it is
  dropped and the question code wrote stands in. ``low`` effort drops the review.
* **answer** writes one block per question from that question's facts (the knowledge
  source's own words).

Every text also passes a code check before anyone sees it: not empty, at most three
sentences for an acknowledgement, and no number the facts do not hold. A text that fails
is dropped and the code-written block stands; the words never carry a claim (I15).

The acknowledgement is written as sentences, each declaring which facts it speaks
about (``done:1``, ``not_done:2``, ``notice:1``, ``card:1``, ``ask_next``: the refs of
:meth:`ReplyFacts.refs`, offered as an enum). The runtime checks every sentence against
those facts and the domain's effect words before it is shown, whatever the effect level
and whoever wrote it (``runtime.claims.guard_sentence``,
docs/adr/0017-no-claim-in-model-words.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject, JSONValue
from turnframe.core.turn import Effort
from turnframe.providers.base import Provider
from turnframe.tasks import schema as s
from turnframe.tasks.budget import TurnBudget
from turnframe.tasks.errors import BudgetExceeded, TaskFailed
from turnframe.tasks.run import TaskModels, TaskRunner, concurrently
from turnframe.tasks.task import Check, Task
from turnframe.understand.prompts import prompt

__all__ = [
    "REVIEW_CHECKS",
    "AnswerFacts",
    "ModelReplyWriter",
    "ReplyFacts",
    "ReplyWords",
    "ReplyWriter",
    "Sentence",
    "acknowledge_task",
    "answer_task",
    "review_checks",
    "review_task",
    "sentences_of",
]

REVIEW_CHECKS: dict[str, str] = {
    "claims_only_done": (
        "The text says or suggests that something was done only when 'done' lists it."
    ),
    "nothing_done": "'done' is empty: the text does not say or suggest that anything was done.",
    "not_done_stays_not_done": "The text presents nothing listed in 'not_done' as done.",
    "asks_next": "The text finishes by asking what 'ask_next' asks (other words are fine).",
    "asks_nothing_else": "The text asks no question other than what 'ask_next' asks.",
    "asks_nothing": "The text asks the user no question.",
    "no_repeat": "The text does not repeat what is on screen word for word.",
    "no_new_facts": "The text states no label, date, number or status the facts do not give.",
    "language": "The text is written in the language of 'locale'.",
}
"""Every check the review may be asked; each turn asks only those that apply."""

_SENTENCE_END = re.compile(r"[.!?…。！？]+(?=\s|$)")
_NUMBER = re.compile(r"\d+")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReplyFacts:
    """A turn's outcome as code gathered it for the acknowledgement (all server-authored).

    Attributes:
        turn_id: the turn.
        locale: the user's locale.
        done: what was done, in each receipt's own words.
        not_done: what was not done and why, in each refusal's own sentence.
        notices: the other notices on screen (a standing constraint, a replaced card...).
        ask_next: the one thing to ask next (code-chosen), or ``None``.
        cards: the cards on screen, as their prompts with option labels.
        answered: how many questions are answered in their own blocks.
    """

    turn_id: str
    locale: str
    done: tuple[str, ...] = ()
    not_done: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    ask_next: str | None = None
    cards: tuple[str, ...] = ()
    answered: int = 0

    def empty(self) -> bool:
        """Return whether there is nothing to acknowledge."""
        return not (self.done or self.not_done or self.notices or self.ask_next or self.cards)

    def refs(self) -> dict[str, str]:
        """Return every fact a sentence may cite, by ref, in order (``done:1`` → its words).

        ``done:N`` is the N-th receipt, ``not_done:N`` the N-th refusal, ``notice:N`` and
        ``card:N`` the other notices and the cards on screen, ``ask_next`` the question.
        """
        out: dict[str, str] = {}
        for prefix, texts in (
            ("done", self.done),
            ("not_done", self.not_done),
            ("notice", self.notices),
            ("card", self.cards),
        ):
            for n, text in enumerate(texts, start=1):
                out[f"{prefix}:{n}"] = text
        if self.ask_next:
            out["ask_next"] = self.ask_next
        return out

    def data(self) -> JSONObject:
        """Return the facts as a task sees them (marked as data), each with its ref."""
        refs = self.refs()

        def listed(prefix: str) -> list[JSONValue]:
            return [{"ref": r, "text": t} for r, t in refs.items() if r.startswith(prefix + ":")]

        return {
            "done": listed("done"),
            "not_done": listed("not_done"),
            "ask_next": {"ref": "ask_next", "text": self.ask_next} if self.ask_next else None,
            "on_screen": [*listed("done"), *listed("not_done"), *listed("notice"), *listed("card")],
            "answered_elsewhere": self.answered,
        }

    def text(self) -> str:
        """Return every word of the facts (for the numbers check)."""
        parts = (*self.done, *self.not_done, *self.notices, self.ask_next or "", *self.cards)
        return " ".join(parts)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerFacts:
    """One question's facts, gathered by code.

    Attributes:
        question_id: the question.
        topic: its topic.
        basis: what it is answered on (``current_state``, ``hypothetical``).
        facts: the knowledge source's own words for it.
    """

    question_id: str
    topic: str
    basis: str
    facts: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Sentence:
    """One sentence of an acknowledgement and the facts it declares it speaks about.

    Attributes:
        text: the words.
        about: refs of :meth:`ReplyFacts.refs` (``done:1``, ``ask_next``...); a sentence
            citing nothing may use function words only.
    """

    text: str
    about: tuple[str, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReplyWords:
    """What the reply tasks wrote; ``None`` where the code-written words stand.

    Attributes:
        acknowledgement: the reviewed acknowledgement, or ``None`` (none asked, or dropped).
        sentences: the acknowledgement's sentences with what each speaks about; a writer
            that gives only ``acknowledgement`` is read as one sentence citing nothing.
        answers: question id → the answer's words, for the questions that got them.
        calls: one record per model call (I20).
        trace: how the words were written: checks asked, verdicts, drops, errors.
    """

    acknowledgement: str | None = None
    sentences: tuple[Sentence, ...] = ()
    answers: dict[str, str] = field(default_factory=dict)
    calls: tuple[JSONObject, ...] = ()
    trace: JSONObject = field(default_factory=dict)


class ReplyWriter(Protocol):
    """Writes the words around a committed turn's blocks (docs/architecture.md "Claims")."""

    async def write(
        self, facts: ReplyFacts, questions: Sequence[AnswerFacts], effort: str | None
    ) -> ReplyWords:
        """Return the words for ``facts`` and ``questions``; ``None`` where code's stand.

        Raises:
            ProviderError: a non-retryable provider failure (the runtime keeps code's words).
            CapabilityMissing: the provider cannot give genuine structured output.
        """
        ...


def _numbers_check(allowed: str, field_name: str) -> Check:
    known = set(_NUMBER.findall(allowed))

    def check(answer: Any) -> str | None:
        text = str(answer[field_name]).strip()
        if not text:
            return f"{field_name} is empty; write the words"
        extra = sorted(set(_NUMBER.findall(text)) - known)
        if extra:
            return (
                f"{field_name} states the number(s) {', '.join(extra)}, which the facts do not "
                "hold; use only the facts given"
            )
        return None

    return check


def acknowledge_task(facts: ReplyFacts, *, failed: Sequence[str] = ()) -> Task:
    """Return the acknowledge task for ``facts`` (``failed``: checks an earlier text failed)."""
    instructions, prompt_id = prompt("acknowledge")
    numbers = _numbers_check(facts.text(), "text")
    refs = list(facts.refs())

    def check(answer: Any) -> str | None:
        items = answer["sentences"]
        if not items:
            return "sentences is empty; write one to three sentences"
        problem = numbers({"text": _joined(answer)})
        if problem:
            return problem
        count = sum(len(_SENTENCE_END.findall(str(i["text"]).strip())) or 1 for i in items)
        if count > 3:
            return f"the text has {count} sentences; write one to three"
        return None

    data: dict[str, Any] = {"locale": facts.locale, "data": facts.data()}
    if failed:
        data["read_again"] = [REVIEW_CHECKS[c] for c in failed]
    return Task(
        name="acknowledge",
        instructions=instructions,
        prompt_id=prompt_id,
        data=data,
        schema=s.obj(
            {
                "sentences": s.array(
                    s.obj(
                        {
                            "about": s.array(s.enum(refs), max_items=len(refs), unique=True),
                            "text": s.string(max_length=300),
                        }
                    ),
                    max_items=3,
                )
            }
        ),
        check=check,
        escalate=False,
    )


def _joined(answer: Any) -> str:
    """Return an acknowledgement answer's sentences as one text."""
    return " ".join(str(i["text"]).strip() for i in answer["sentences"]).strip()


def sentences_of(answer: Any) -> tuple[Sentence, ...]:
    """Return the :class:`Sentence` s of a checked acknowledge answer."""
    return tuple(
        Sentence(text=str(i["text"]).strip(), about=tuple(str(r) for r in i["about"]))
        for i in answer["sentences"]
        if str(i["text"]).strip()
    )


def review_checks(facts: ReplyFacts) -> tuple[str, ...]:
    """Return the ids of the review checks that apply to ``facts`` (only those are asked)."""
    checks = ["claims_only_done" if facts.done else "nothing_done"]
    if facts.not_done:
        checks.append("not_done_stays_not_done")
    if facts.ask_next:
        checks.extend(("asks_next", "asks_nothing_else"))
    else:
        checks.append("asks_nothing")
    if facts.done or facts.not_done or facts.notices or facts.cards:
        checks.append("no_repeat")
    checks.extend(("no_new_facts", "language"))
    return tuple(checks)


def review_task(facts: ReplyFacts, text: str) -> Task:
    """Return the review task of acknowledgement ``text`` against ``facts``."""
    instructions, prompt_id = prompt("review")
    checks = review_checks(facts)
    return Task(
        name="review",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "locale": facts.locale,
            "text": text,
            "checklist": {c: REVIEW_CHECKS[c] for c in checks},
            "data": facts.data(),
        },
        schema=s.obj({"checks": s.obj({c: s.boolean() for c in checks})}),
        escalate=False,
    )


def answer_task(question: AnswerFacts, locale: str) -> Task:
    """Return the answer task for one question."""
    instructions, prompt_id = prompt("answer")
    return Task(
        name="answer",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "locale": locale,
            "topic": question.topic,
            "basis": question.basis,
            "data": {"facts": question.facts},
            "for": question.question_id,
        },
        schema=s.obj({"text": s.string(max_length=1200)}),
        check=_numbers_check(question.facts, "text"),
        escalate=False,
    )


class ModelReplyWriter:
    """Writes a reply's words with the acknowledge, review and answer tasks.

    Args:
        models: the provider (or providers per task).
        effort: the default effort (``low`` drops the review); a turn's effort overrides it.
        budget: the reply's budget of calls, tokens, depth and time.
    """

    def __init__(
        self,
        models: TaskModels | Provider,
        *,
        effort: Effort | str = Effort.MEDIUM,
        budget: TurnBudget | None = None,
    ) -> None:
        self.models = models if isinstance(models, TaskModels) else TaskModels(models)
        self.effort = Effort(effort)
        self.budget = budget or TurnBudget(max_calls=24, max_depth=6, max_seconds=60.0)

    async def write(
        self, facts: ReplyFacts, questions: Sequence[AnswerFacts], effort: str | None
    ) -> ReplyWords:
        """Return the reviewed acknowledgement and the answers (``None`` where code's stand)."""
        level = Effort(effort) if effort else self.effort
        review = level is not Effort.LOW
        runner = TaskRunner(self.models, self.budget)
        trace: dict[str, Any] = {"effort": level.value, "review": review}
        answers: dict[str, str] = {}
        ack: list[str | None] = [None]
        said: list[tuple[Sentence, ...]] = [()]

        async def acknowledge() -> None:
            if facts.empty():
                trace["acknowledge"] = "nothing to acknowledge"
                return
            failed: tuple[str, ...] = ()
            rounds: list[JSONObject] = []
            trace["acknowledge"] = rounds
            for round_ in (1, 2):
                try:
                    answer = await runner.run(acknowledge_task(facts, failed=failed), depth=round_)
                except TaskFailed as exc:
                    rounds.append({"dropped": exc.error})
                    return
                text = _joined(answer)
                written = sentences_of(answer)
                if not review:
                    ack[0], said[0] = text, written
                    rounds.append({"text": text, "review": None})
                    return
                try:
                    verdict = await runner.run(review_task(facts, text), depth=round_ + 1)
                except TaskFailed as exc:
                    rounds.append({"text": text, "review": f"unreadable: {exc.error}"})
                    return
                failed = tuple(c for c, ok in verdict["checks"].items() if not ok)
                rounds.append({"text": text, "failed": list(failed)})
                if not failed:
                    ack[0], said[0] = text, written
                    return
            rounds.append({"dropped": "failed the review twice"})

        async def answer(question: AnswerFacts) -> None:
            try:
                got = await runner.run(answer_task(question, facts.locale), depth=1)
            except TaskFailed as exc:
                trace.setdefault("answers_dropped", {})[question.question_id] = exc.error
                return
            answers[question.question_id] = str(got["text"]).strip()

        try:
            async with concurrently() as group:
                group.start_soon(acknowledge)
                for question in questions:
                    group.start_soon(answer, question)
        except BudgetExceeded as exc:
            trace["error"] = f"{type(exc).__name__}: {exc}"
            ack[0], said[0] = None, ()
            answers.clear()
        return ReplyWords(
            acknowledgement=ack[0],
            sentences=said[0],
            answers=answers,
            calls=tuple(r.to_json() for r in runner.records),
            trace=trace,
        )
