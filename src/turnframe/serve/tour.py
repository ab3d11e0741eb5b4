"""A served tour: each message of a scenario file read with its scripted understanding.

``turnframe serve --model tour`` (and ``turnframe demo --web``) read messages from the
application's tour file (:attr:`turnframe.runtime.Application.tour`; the travel sample's
is ``turnframe/samples/travel/tour.yaml``): a message the file lists (case-insensitively,
spaces collapsed, a final stop aside) is understood as its ``understanding:`` says, record keys made the
turn's handles, the way the scenario runner does (docs/scenario-format.md); any other
message is refused (the server runs it as a turn answered "couldn't be read"). No model is
called. The tour's messages are the web chat's suggestions (docs/serving.md "Tours").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turnframe.core import (
    CaseRef,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    Understanding,
)
from turnframe.core.acts import EvidenceSource
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.runtime import Application
from turnframe.runtime.parts import handle
from turnframe.testing.scenario import prepare_scenario, seeder_for
from turnframe.testing.scenario.model import TargetModel, UnderstandingModel
from turnframe.understand import Brief, ScriptedUnderstanding

__all__ = ["TRAVEL_TOUR", "TourReader", "TourUnderstanding", "normal", "tour_path", "tour_reader"]

TRAVEL_TOUR = Path(__file__).resolve().parent.parent / "samples" / "travel" / "tour.yaml"
"""The travel sample's web tour: the five steps ``turnframe demo`` prints, as six messages."""


def normal(text: str) -> str:
    """Return ``text`` as messages are matched: case-folded, spaces collapsed, no final stop."""
    return " ".join(text.casefold().split()).rstrip(" .!?…")


def tour_path(app: Application) -> Path | None:
    """Return ``app``'s tour file: ``Application.tour``, the travel sample's web tour, or ``None``."""
    if app.tour is not None:
        return Path(app.tour)
    if app.name == "travel":
        return TRAVEL_TOUR
    return None


class TourUnderstanding(ScriptedUnderstanding):
    """One tour message's scripted understanding; it says it is reading (a ``step`` event).

    The step is named ``scripted`` (narrated as "Reading your message."): no model reads
    the message, its understanding comes from the tour file.
    """

    async def understand(self, brief: Brief) -> Any:
        """Narrate the reading, then return the scripted proposal."""
        if brief.on_step is not None:
            brief.on_step("scripted", "the tour's script", None)
        return await super().understand(brief)


@fast_init
@dataclass(frozen=True, slots=True)
class TourReader:
    """Reads the tour's messages (a :data:`~turnframe.serve.service.Reader`).

    Attributes:
        says: the tour's messages, in order (the suggestions).
        scripts: ``normal(message) → its understanding``.
        refs: record key → the case the server seeded it as.
    """

    says: tuple[str, ...]
    scripts: Mapping[str, UnderstandingModel]
    refs: Mapping[str, CaseRef]

    def __call__(self, text: str) -> tuple[Any, Any] | str:
        """Return ``(understander, None)`` for a tour message, else the refusal notice."""
        spec = self.scripts.get(normal(text))
        if spec is None:
            listed = " | ".join(self.says)
            return f"Not in the tour; send one of: {listed} (or click a card)."
        return TourUnderstanding([self._builder(spec)]), None

    def _handle(self, brief: Brief, key: str) -> str:
        case = self.refs.get(key)
        return handle(brief.turn_id, case) if case is not None else key

    def _target(self, brief: Brief, target: TargetModel | None) -> ProposedTarget | None:
        if target is None:
            return None
        return ProposedTarget(
            handles=tuple(self._handle(brief, k) for k in target.handles),
            mention=target.mention,
            find=target.find,
            new=target.new,
        )

    def _builder(self, spec: UnderstandingModel) -> Any:
        def build(brief: Brief) -> Understanding:
            return Understanding(
                acts=tuple(
                    SemanticAct(
                        id=a.id,
                        operation=a.operation,
                        target=self._target(brief, a.target) or ProposedTarget(),
                        args={
                            k: self._handle(brief, v) if v in self.refs else v
                            for k, v in a.args.items()
                        },
                        evidence=dict(a.evidence),
                        evidence_source=EvidenceSource(a.evidence_source),
                        hypothetical=a.hypothetical,
                    )
                    for a in spec.acts
                ),
                questions=tuple(
                    Question(
                        id=q.id, topic=q.topic, target=self._target(brief, q.target), basis=q.basis
                    )
                    for q in spec.questions
                ),
                constraints=tuple(
                    Constraint(id=c.id, kind=ConstraintKind(c.kind), scope=ConstraintScope(c.scope))
                    for c in spec.constraints
                ),
                links=tuple(
                    Link(act=x.act, corrects=x.corrects, cancels=x.cancels) for x in spec.links
                ),
            )

        return build


def _refs(app: Application, records: list[dict[str, Any]]) -> dict[str, CaseRef]:
    """Return the case each record key was seeded as (as ``turnframe chat``/``serve`` seed)."""
    if app.name == "travel":
        from turnframe.samples.travel import DEMO_RECORDS, seed_all

        return {key: case for key, case, _state in seed_all(DEMO_RECORDS)}
    seeder = seeder_for(app)
    refs: dict[str, CaseRef] = {}
    for record in seeder.seed_order(records):
        key = str(record.get("key", ""))
        workflow, _state = seeder.seed_state(record, refs)
        case_id = record.get("id")
        refs[key] = CaseRef(workflow, str(case_id) if case_id is not None else key.lower())
    return refs


def tour_reader(app: Application, path: Path | None = None) -> TourReader:
    """Return the reader of ``app``'s tour (``path``, default :func:`tour_path`).

    Raises:
        UsageError: the application has no tour, or a text turn of it has no scripted
            ``understanding`` or one that names a card (only clicks answer cards here).
        ScenarioFileError: the file is invalid (its path and field named).
    """
    where = path or tour_path(app)
    if where is None:
        raise UsageError(
            f"--model tour: the application {app.name!r} has no tour (set Application.tour "
            "to a scenario file, docs/scenario-format.md)"
        )
    model, _app = prepare_scenario(where, app=app)
    says: list[str] = []
    scripts: dict[str, UnderstandingModel] = {}
    for number, turn in enumerate(model.turns, start=1):
        if not turn.text:
            continue
        spec = turn.understanding
        if not isinstance(spec, UnderstandingModel):
            raise UsageError(
                f"{where}: turn {number} has no scripted understanding; a served tour reads "
                "each message from its understanding:"
            )
        if spec.card_answers or any(
            (x.corrects or "").count(":") or (x.cancels or "").count(":") for x in spec.links
        ):
            raise UsageError(
                f"{where}: turn {number} names a card in its understanding; a served tour "
                "answers cards by clicks only"
            )
        if normal(turn.text) not in scripts:
            says.append(turn.text.strip())
            scripts[normal(turn.text)] = spec
    return TourReader(says=tuple(says), scripts=scripts, refs=_refs(app, list(model.records)))
