"""Property: an operation name the model made up never reaches a span or a metric label.

An act's ``operation`` is model output; one the application does not register is refused
(``unknown_operation``) and its name is model text, which may echo the user's words
(docs/telemetry.md "What is never recorded"). Only registered names are recorded.
"""

from __future__ import annotations

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from telemetry_kit import recording, travel
from test_prop_no_user_text import WORDS as NAMES
from test_prop_no_user_text import _strings

from turnframe.core.acts import Understanding
from turnframe.core.turn import TurnInput
from turnframe.understand import Brief


@settings(max_examples=20, deadline=None)
@given(workflow=NAMES, operation=NAMES, known=st.booleans())
def test_a_made_up_operation_name_is_never_recorded(
    workflow: str, operation: str, known: bool
) -> None:
    made_up = f"zq{workflow}.{operation}"
    misspelt = f"trip.zq{operation}"
    recorded = recording()

    async def run() -> None:
        app = await travel(recorded.telemetry)

        def build(brief: Brief) -> Understanding:
            acts = [app.act(brief, "a1", misspelt, "T1", kind="seat")]
            acts.append(app.act(brief, "a2", made_up, "T1"))
            if known:
                acts.append(app.act(brief, "a3", "trip.add_extra", "T1", kind="seat"))
            return Understanding(acts=tuple(acts))

        app.script.push(build)
        await app.runtime.run_turn(app.actor, "conv", TurnInput(text="hi"), turn_id="t-1")

    anyio.run(run)
    said: list[str] = []
    turns = [s for s in recorded.spans() if s.name == "turnframe.turn"]
    assert len(turns) == 1
    for span in recorded.spans():
        said.append(span.name)
        for key, value in (span.attributes or {}).items():
            said += [key, *_strings(value)]
    for name, points in recorded.metrics().items():
        said.append(name)
        for labels, _ in points:
            said += [*labels, *map(str, labels.values())]
    for text in said:
        assert made_up not in text and misspelt not in text, text
    recorded_ops = turns[0].attributes["turnframe.operations"]  # type: ignore[index]
    assert list(recorded_ops) == (["trip.add_extra"] if known else [])
