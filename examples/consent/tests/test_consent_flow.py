"""The acceptance gates the booking: scripted turns through the real runtime (docs/guides/consent.md)."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from consent.app import application
from consent.artifact import TERMS_2026_05, TERMS_2026_09, Artifact
from consent.gate import terms_key
from consent.terms import TermsWorkflow
from consent_bench import ACTOR, TODAY, Bench, words


def test_the_workflows_register_without_problems() -> None:
    app = application()
    for name in app.registry.names():
        assert app.registry.workflow(name).definition.registration_problems(app.locales) == []


def test_booking_is_refused_until_the_confirm_card_is_clicked() -> None:
    async def main() -> None:
        bench = Bench()
        refused = await bench.book("Porto")
        assert refused.results["a1"].status.value == "rejected"
        assert refused.results["a1"].code == "consent_required" and refused.commands == ()
        assert "acceptance of Terms of travel version 2026-05 first" in words(refused)
        assert await bench.store.list_cases(ACTOR.account) == []

        asked = await bench.say("I accept the terms", "terms.accept")
        assert asked.results["a1"].status.value == "awaiting_confirmation" and asked.commands == ()
        (card,) = asked.interactions_created
        assert card.spec.kind.value == "confirm"
        (proposed,) = card.spec.commands
        assert proposed.arguments == {
            "artifact": "Terms of travel",
            "version": "2026-05",
            "digest": TERMS_2026_05.digest,
        }
        assert f"version 2026-05 (SHA-256 {TERMS_2026_05.digest})" in words(asked)

        done = await bench.click(card.id, "confirm", 0)
        ((operation, acceptance),) = done.commands
        assert operation == "terms.accept"
        assert "kept until 2028-05-03" in words(done)
        assert await bench.state(acceptance) == {
            "holder": "ana",
            "artifact": "Terms of travel",
            "version": "2026-05",
            "digest": TERMS_2026_05.digest,
            "accepted_on": "2026-05-04",
            "keep_until": "2028-05-03",
            "status": "accepted",
            "ended_on": None,
        }
        (accepted,) = await bench.store.case_events(acceptance)
        assert accepted.type == "terms.accepted" and accepted.data["digest"] == TERMS_2026_05.digest

        booked = await bench.book("Porto")
        ((operation, booking),) = booked.commands
        assert operation == "booking.book" and "Booked the trip to Porto." in words(booked)
        (event,) = await bench.store.case_events(booking)
        assert event.data["terms"] == terms_key(TERMS_2026_05)
        assert (await bench.state(booking))["terms"] == terms_key(TERMS_2026_05)

    anyio.run(main)


def test_declining_the_card_records_nothing_and_the_gate_stays_shut() -> None:
    async def main() -> None:
        bench = Bench()
        asked = await bench.say("I accept the terms", "terms.accept")
        (card,) = asked.interactions_created
        declined = await bench.click(card.id, "decline", 0)
        assert declined.commands == ()
        refused = await bench.book("Porto")
        assert refused.results["a1"].code == "consent_required"

    anyio.run(main)


def test_a_new_artifact_version_gates_again_and_the_old_acceptance_is_kept() -> None:
    async def main() -> None:
        first = Bench()
        old = await first.accept()
        await first.book("Porto")

        later = Bench(TERMS_2026_09, after=first)  # the same records, new terms published
        refused = await later.book("Lisbon")
        assert refused.results["a1"].code == "consent_required" and refused.commands == ()
        assert "Terms of travel version 2026-09" in words(refused)
        assert (await later.state(old))["status"] == "accepted"  # kept, for its own version

        new = await later.accept()
        assert new != old and (await later.state(new))["version"] == "2026-09"
        booked = await later.book("Lisbon")
        ((_, booking),) = booked.commands
        assert (await later.state(booking))["terms"] == terms_key(TERMS_2026_09)

    anyio.run(main)


def test_a_card_shown_before_a_new_version_is_refused_when_clicked_after() -> None:
    """A click compiling another version than the card showed commits nothing (ADR 0014 rule 10).

    The card is closed as ``card_changed`` and a fresh card shows the version now published.
    """

    async def main() -> None:
        first = Bench()
        asked = await first.say("I accept the terms", "terms.accept")
        (card,) = asked.interactions_created
        later = Bench(TERMS_2026_09, after=first)
        clicked = await later.click(card.id, "confirm", 0)
        assert clicked.commands == ()
        assert clicked.results["click"].code == "card_changed"
        assert "has changed since it was shown" in words(clicked)
        assert "the record changed" not in words(clicked)
        (fresh,) = clicked.interactions_created
        (proposed,) = fresh.spec.commands
        assert proposed.arguments["version"] == "2026-09"
        assert proposed.arguments["digest"] == TERMS_2026_09.digest
        assert "version 2026-09" in words(clicked)
        assert await later.store.list_cases(ACTOR.account) == []

        again = await later.click(card.id, "confirm", 0)  # the old card stays refused
        assert again.commands == () and "has changed since it was shown" in words(again)
        done = await later.click(fresh.id, "confirm", 0)
        ((_, acceptance),) = done.commands
        assert (await later.state(acceptance))["version"] == "2026-09"

    anyio.run(main)


def test_retention_expiry_is_an_explicit_status_and_the_record_stays() -> None:
    async def main() -> None:
        bench = Bench()
        acceptance = await bench.accept()
        definition = TermsWorkflow(TERMS_2026_05)
        end = TODAY + timedelta(days=TERMS_2026_05.retention_days + 1)
        await bench.runtime.external_update(
            ACTOR.account,
            acceptance,
            source="retention",
            reference="retention-run-1",
            transition=lambda state: definition.expire(state, end),
        )
        state = await bench.state(acceptance)
        assert state["status"] == "expired" and state["ended_on"] == end.isoformat()
        assert state["version"] == "2026-05" and state["digest"] == TERMS_2026_05.digest
        types = [e.type for e in await bench.store.case_events(acceptance)]
        assert types == ["terms.accepted", "terms.expired"]

        refused = await bench.book("Porto")
        assert refused.results["a1"].code == "consent_required"
        again = await bench.accept()  # accepting again makes a new record
        assert again != acceptance

    anyio.run(main)


def test_expiry_before_the_end_of_retention_is_refused() -> None:
    definition = TermsWorkflow(TERMS_2026_05)
    app = application()
    state = app.registry.workflow("terms").typed(
        {
            "holder": "ana",
            "artifact": "Terms of travel",
            "version": "2026-05",
            "digest": TERMS_2026_05.digest,
            "accepted_on": "2026-05-04",
            "keep_until": "2028-05-03",
        }
    )
    with pytest.raises(ValueError, match="not expired"):
        definition.expire(state, TODAY)
    assert definition.expire(state, TODAY.replace(year=2028, month=5, day=4)).state.status == (
        "expired"
    )
    with pytest.raises(ValueError):
        definition.external_update(state, "accepted")


def test_withdrawing_shuts_the_gate() -> None:
    async def main() -> None:
        bench = Bench()
        acceptance = await bench.accept()
        asked = await bench.say("I withdraw my acceptance", "terms.withdraw", (acceptance,))
        (card,) = asked.interactions_created
        assert card.spec.kind.value == "confirm"
        done = await bench.click(card.id, "confirm", 1)
        assert done.commands == (("terms.withdraw", acceptance),)
        assert (await bench.state(acceptance))["status"] == "withdrawn"
        refused = await bench.book("Porto")
        assert refused.results["a1"].code == "consent_required"

    anyio.run(main)


def test_another_users_acceptance_does_not_open_the_gate() -> None:
    async def main() -> None:
        from turnframe.core import Actor, TurnInput

        bench = Bench()
        await bench.accept()
        other = Actor(account=ACTOR.account, user="rui", roles=frozenset())
        bench.script.push(lambda brief: _book(brief, "Faro"))
        refused = await bench.runtime.run_turn(other, "c2", TurnInput(text="Book Faro"))
        assert refused.results["a1"].code == "consent_required"

    anyio.run(main)


def _book(brief: object, destination: str) -> object:
    from turnframe.core import ProposedTarget, SemanticAct, Understanding

    act = SemanticAct(
        id="a1",
        operation="booking.book",
        target=ProposedTarget(new=True),
        args={"destination": destination},
    )
    return Understanding(acts=(act,))


def test_an_artifact_needs_a_text_and_a_positive_retention() -> None:
    with pytest.raises(ValueError):
        Artifact(name="Terms", version="1", text=" ", retention_days=30)
    with pytest.raises(ValueError):
        Artifact(name="Terms", version="1", text="x", retention_days=0)


def test_a_text_changed_under_the_same_version_label_gates_again() -> None:
    async def main() -> None:
        first = Bench()
        await first.accept()
        edited = Artifact(
            name=TERMS_2026_05.name,
            version=TERMS_2026_05.version,
            text=TERMS_2026_05.text + " Pets travel free.",
            retention_days=TERMS_2026_05.retention_days,
        )
        assert edited.digest != TERMS_2026_05.digest
        later = Bench(edited, after=first)
        refused = await later.book("Porto")
        assert refused.results["a1"].code == "consent_required" and refused.commands == ()

    anyio.run(main)


def test_a_typed_yes_does_not_accept_only_the_click_does() -> None:
    async def main() -> None:
        from turnframe.core import CardAnswer, TurnInput, Understanding

        bench = Bench()
        asked = await bench.say("I accept the terms", "terms.accept")
        (card,) = asked.interactions_created
        answer = CardAnswer(id="ca1", interaction=card.id, option="confirm")
        bench.script.push(lambda brief: Understanding(card_answers=(answer,)))
        typed = await bench.runtime.run_turn(ACTOR, "c1", TurnInput(text="yes"))
        assert typed.results["ca1"].code == "needs_click" and typed.commands == ()
        assert await bench.store.list_cases(ACTOR.account) == []
        clicked = await bench.click(card.id, "confirm", 0)
        assert clicked.commands[0][0] == "terms.accept"

    anyio.run(main)
