"""Read-only answers on an explicit basis.

See docs/samples/travel.md "Questions", docs/architecture.md "Claims", ADR 0001 rule 5.

Topics: ``baggage_allowance``, ``trip_summary``, ``extra_status`` and ``manifest_status``,
in English and pt-PT. An answer has one line per subject (several candidate records are
allowed), each prefixed with the subject's candidate label, and states only what the
subject's persisted state says.

**Baggage basis.** Allowances come from the static table in ``airlines``. A manifest names
its airline, so a manifest subject gets that airline's line. A trip or traveler does not
(a trip's airline is only known through its manifest, which is another case), so such a
subject gets a line saying the airline is not known yet, and the answer then lists the
whole table once. With no subject at all, the answer is the table.

``manifest_status`` gives the exact status (never collapsed, I19).
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.core import JSONObject, Question, Subject
from turnframe.samples.travel import copy
from turnframe.samples.travel.airlines import AIRLINES, Airline
from turnframe.samples.travel.manifest import ManifestWorkflow
from turnframe.samples.travel.manifest_model import ManifestState
from turnframe.samples.travel.traveler import TravelerState, TravelerWorkflow
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.samples.travel.trip_model import Extra, TripState

__all__ = ["TOPICS", "TravelKnowledge"]

TOPICS = ("baggage_allowance", "trip_summary", "extra_status", "manifest_status")
"""The knowledge topics the sample answers."""

_State = TripState | TravelerState | ManifestState


def _airline_line(locale: str, airline: Airline) -> str:
    checked = (
        copy.text(locale, "know.baggage.none")
        if airline.checked_kg is None
        else copy.text(locale, "know.baggage.checked", kg=airline.checked_kg)
    )
    return copy.text(
        locale,
        "know.baggage",
        airline=f"{airline.name} ({airline.code})",
        cabin=airline.cabin_kg,
        checked=checked,
    )


def _payer(locale: str, extra: Extra) -> str:
    if extra.payer is None:
        return copy.text(locale, "payer.none")
    return copy.text(locale, "payer.company" if extra.payer == "company" else "payer.traveler")


def _extra(locale: str, extra: Extra) -> str:
    if extra.nights is not None:
        details = (
            " ("
            + copy.text(
                locale,
                "know.hotel",
                hotel=extra.details,
                nights=copy.count(locale, "night", extra.nights),
            )
            + ")"
        )
    else:
        details = f" ({extra.details})" if extra.details else ""
    return copy.text(
        locale,
        "know.extra",
        extra=extra.id,
        kind=copy.kind_name(locale, extra.kind),
        details=details,
        payer=_payer(locale, extra),
    )


class TravelKnowledge:
    """The sample's ``KnowledgeSource``: the four topics, per subject.

    See docs/architecture.md "Claims", ADR 0001 rule 5.

    Subjects carry JSON state; each is loaded with its workflow's ``load_state``. Pure
    apart from being async by protocol; reads nothing but its arguments and the table.
    """

    topics: tuple[str, ...] = TOPICS
    """The topics questions may name (understanding offers exactly these)."""

    topic_notes: tuple[tuple[str, str], ...] = (
        ("baggage_allowance", "how much cabin and checked baggage an airline allows"),
        ("trip_summary", "a trip's dates, travelers and extras as they stand"),
        ("extra_status", "the extras on a trip (insurance, meals, seats, hotels) and who pays"),
        ("manifest_status", "the exact status of a passenger manifest sent to an airline"),
    )
    """What each topic answers, shown to understanding beside the topic's name."""

    def __init__(self) -> None:
        self._workflows = {
            w.name: w for w in (TripWorkflow(), TravelerWorkflow(), ManifestWorkflow())
        }

    def _load(self, workflow: str, data: JSONObject) -> _State | None:
        definition = self._workflows.get(workflow)
        return None if definition is None else definition.load_state(data)

    async def answer(self, question: Question, subjects: Sequence[Subject], locale: str) -> str:
        """Return the answer's words: one line per subject, in ``locale`` (en or pt-PT).

        See docs/architecture.md "Claims".

        Args:
            question: the question; its ``topic`` is one of :data:`TOPICS`.
            subjects: the records asked about (zero, one or several).
            locale: the reply's locale.

        Returns:
            Newline-separated lines; an "I have no information" line for an unknown topic.

        Raises:
            ValueError: when a subject's state is not a state of its workflow.
        """
        topic = question.topic
        if topic not in TOPICS:
            return copy.text(locale, "know.unknown_topic")
        if not subjects:
            if topic == "baggage_allowance":
                return "\n".join(_airline_line(locale, a) for a in AIRLINES.values())
            return copy.text(locale, "know.no_subject")
        lines: list[str] = []
        needs_table = False
        for subject in subjects:
            if subject.state is None:
                lines.append(copy.text(locale, "know.absent", label=subject.label))
                continue
            state = self._load(subject.case.workflow, subject.state)
            if topic == "baggage_allowance" and not isinstance(state, ManifestState):
                needs_table = True
            lines.append(self._line(topic, subject.label, state, locale))
        if needs_table:
            lines.extend(_airline_line(locale, a) for a in AIRLINES.values())
        return "\n".join(lines)

    def _line(self, topic: str, label: str, state: _State | None, locale: str) -> str:
        if topic == "baggage_allowance":
            if isinstance(state, ManifestState):
                airline = AIRLINES.get(state.airline)
                if airline is None:
                    return copy.text(
                        locale, "know.baggage.unknown", label=label, airline=state.airline
                    )
                return f"{label} — {_airline_line(locale, airline)}"
            return copy.text(locale, "know.baggage.table", label=label)
        if topic == "trip_summary":
            return self._summary(label, state, locale)
        if topic == "extra_status" and isinstance(state, TripState):
            if not state.extras:
                return copy.text(locale, "know.extras.none", label=label)
            return copy.text(
                locale,
                "know.extras",
                label=label,
                extras="; ".join(_extra(locale, e) for e in state.extras),
            )
        if topic == "manifest_status" and isinstance(state, ManifestState):
            return copy.text(
                locale,
                "know.manifest_status",
                label=label,
                status=copy.status_name(locale, state.status),
            )
        return copy.text(
            locale, "know.not_applicable", label=label, topic=copy.text(locale, f"topic.{topic}")
        )

    def _summary(self, label: str, state: _State | None, locale: str) -> str:
        if isinstance(state, TripState):
            extras = copy.count(locale, "extra", len(state.extras))
            if state.extras:
                extras += " (" + "; ".join(_extra(locale, e) for e in state.extras) + ")"
            return copy.text(
                locale,
                "know.trip_summary",
                label=label,
                status=copy.status_name(locale, state.status),
                dates=copy.fmt_range(locale, state.start, state.end),
                travelers=copy.count(locale, "traveler", len(state.travelers)),
                extras=extras,
            )
        if isinstance(state, TravelerState):
            return copy.text(
                locale,
                "know.traveler_summary",
                label=label,
                status=copy.status_name(locale, state.status),
            )
        if isinstance(state, ManifestState):
            return copy.text(
                locale,
                "know.manifest_summary",
                label=label,
                status=copy.status_name(locale, state.status),
                count=copy.count(locale, "passenger", len(state.passengers)),
            )
        return copy.text(
            locale,
            "know.not_applicable",
            label=label,
            topic=copy.text(locale, "topic.trip_summary"),
        )
