"""Property: a booking commits exactly when its user holds an accepted acceptance of the current text.

Random runs of accept (Confirm card and click), withdraw (Confirm card and click), expire
(the retention trigger, through ``Runtime.external_update``), publish (a redeployment with
the other version of the text, over the same store) and book, through the real runtime of
``examples/consent`` (docs/guides/consent.md "Gating other work"). A model kept beside the
run says which records are accepted for which version; after every step the store must
agree with it, and no record ever disappears (docs/guides/consent.md "Retention").
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [
    str(ROOT / "examples" / "consent" / "src"),
    str(ROOT / "examples" / "consent" / "tests"),
]

from consent.artifact import TERMS_2026_05, TERMS_2026_09  # noqa: E402
from consent.terms import TermsWorkflow  # noqa: E402
from consent_bench import ACTOR, TODAY, Bench  # noqa: E402

STEPS = st.lists(st.sampled_from(["accept", "withdraw", "expire", "publish", "book"]), max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_a_booking_commits_exactly_when_the_current_text_is_accepted(steps: list[str]) -> None:
    async def main() -> None:
        artifact = TERMS_2026_05
        bench = Bench(artifact)
        records: dict[object, list[str]] = {}  # case -> [version, status]
        end = TODAY + timedelta(days=artifact.retention_days + 1)
        for step in steps:
            accepted_now = [
                case
                for case, (version, status) in records.items()
                if status == "accepted" and version == artifact.version
            ]
            if step == "accept":
                case = await bench.accept()
                records[case] = [artifact.version, "accepted"]
            elif step == "withdraw" and accepted_now:
                case = accepted_now[-1]
                asked = await bench.say("Withdraw it", "terms.withdraw", (case,))
                (card,) = asked.interactions_created
                done = await bench.click(card.id, "confirm", 1)
                assert done.commands == (("terms.withdraw", case),)
                records[case][1] = "withdrawn"
            elif step == "expire":
                live = [c for c, (_, s) in records.items() if s == "accepted"]
                if live:
                    definition = TermsWorkflow(artifact)
                    await bench.runtime.external_update(
                        ACTOR.account,
                        live[0],
                        source="retention",
                        reference=f"run-{len(records)}-{steps.count('expire')}",
                        transition=lambda state, d=definition: d.expire(state, end),
                    )
                    records[live[0]][1] = "expired"
            elif step == "publish":
                artifact = TERMS_2026_09 if artifact is TERMS_2026_05 else TERMS_2026_05
                bench = Bench(artifact, after=bench)
            elif step == "book":
                booked = await bench.say("Book Porto", "booking.book", destination="Porto")
                if accepted_now:
                    assert booked.results["a1"].status.value == "committed", booked.results
                else:
                    assert booked.results["a1"].code == "consent_required"
                    assert booked.commands == ()
            for case, (version, status) in records.items():
                stored = await bench.state(case)  # never removed
                assert (stored["version"], stored["status"]) == (version, status)

    anyio.run(main)
