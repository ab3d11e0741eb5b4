"""The hostile model as a judge: any message text, never a crash (docs/evals.md "Judges and checklists").

``turnframe eval run --judge hostile`` is a model spec like any other. The judge's
request carries the user's message as plain words, not the numbered ``n:word`` tokens
of the understanding tasks; the hostile provider used to split every word on ``:``
and crashed (``IndexError``) on the first word without one, taking the run with it.
"""

from __future__ import annotations

import json

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.eval.judge import DEFAULT_CHECKS, ReplyView, judge_reply, judge_task
from turnframe.providers import Message, ModelRequest
from turnframe.tasks import schema as s
from turnframe.testing.hostile import HostileProvider

CHECKS = {c: DEFAULT_CHECKS[c] for c in ("claims_only_committed", "no_untouched_record")}

words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
messages = st.lists(words, max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(message=messages, task=st.sampled_from(["judge", "acknowledge", "answer", "extract"]))
def test_the_hostile_provider_answers_any_message_text_with_a_schema_valid_answer(
    message: str, task: str
) -> None:
    schema = judge_task(ReplyView(message=message, locale="en"), CHECKS).schema
    request = ModelRequest(
        task=task,
        messages=(
            Message(role="system", content="grade"),
            Message(role="user", content=json.dumps({"message": message, "checklist": CHECKS})),
        ),
        schema=schema,
    )
    for seed in range(3):
        response = anyio.run(HostileProvider(seed).complete, request)
        assert s.validate(schema, json.loads(response.text)) == []


@settings(max_examples=40, deadline=None)
@given(message=messages, seed=st.integers(0, 50))
def test_a_hostile_judge_gives_votes_never_an_exception(message: str, seed: int) -> None:
    view = ReplyView(
        message=message or "Add insurance",
        locale="en",
        reply=({"kind": "receipt", "text": "Added insurance to trip Porto."},),
        committed=("Added insurance to trip Porto.",),
    )
    result = anyio.run(judge_reply, HostileProvider(seed), view, CHECKS, 3)
    assert len(result.votes) == 3
    assert all(v.valid for v in result.votes)
    assert set(result.verdicts()) == set(CHECKS)


def test_the_plain_words_of_the_judge_request_reach_no_index_split() -> None:
    # The smallest reproduction of the crash: one word without a colon.
    view = ReplyView(message="Pay the report", locale="en")
    result = anyio.run(judge_reply, HostileProvider(7), view, CHECKS, 1)
    assert result.votes[0].valid
