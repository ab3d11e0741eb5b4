"""The scenario file schema (docs/scenario-format.md), validated with pydantic.

Every key is optional unless the format says required, and an unknown key is an error:
each model forbids extra fields, so a typo is reported with its YAML path. A value the
format enumerates (a result status, a block or card kind) is checked here too, so a
misspelt one makes the file invalid instead of failing a turn. The JSON Schema shipped
beside this module (``scenario.schema.json``) is generated from these models
(:func:`turnframe.testing.scenario.schema.scenario_schema`); a test keeps them equal.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from turnframe.core.results import ResultStatus

__all__ = [
    "BLOCK_KINDS",
    "RESULT_PATTERN",
    "ActModel",
    "ActorModel",
    "CardAnswerModel",
    "ClickModel",
    "CommandExpect",
    "ConstraintModel",
    "CrashModel",
    "ExpectModel",
    "ExternalModel",
    "InteractionExpect",
    "OutboxExpect",
    "LinkModel",
    "QuestionModel",
    "ScenarioModel",
    "TargetModel",
    "TurnModel",
    "UnderstandingModel",
]


RESULT_PATTERN = r"^(" + "|".join(s.value for s in ResultStatus) + r")(:[A-Za-z0-9_.:-]+)?$"
"""An expected result: a status of :class:`~turnframe.core.results.ResultStatus`,
optionally followed by ``:code`` (``rejected:not_offered``, ``needs_clarification:missing:kind``)."""

BLOCK_KINDS = ("answer", "transition", "receipt", "notice", "interaction", "artifact")
"""The reply block kinds ``expect.blocks`` may list (:mod:`turnframe.core.reply`)."""

ResultValue = Annotated[str, Field(pattern=RESULT_PATTERN)]
BlockKind = Literal["answer", "transition", "receipt", "notice", "interaction", "artifact"]
CardKind = Literal["select_target", "confirm", "review", "choice"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ActorModel(_Strict):
    """``actor:`` who acts (account, user, roles)."""

    account: str
    user: str
    roles: list[str] = Field(default_factory=list)


class TargetModel(_Strict):
    """``target:`` record keys as handles, words to find, or a new record."""

    handles: list[str] = Field(default_factory=list)
    mention: str | None = None
    find: str | None = None
    new: bool = False


def _words(value: Any) -> str:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bool) or value is None:
        raise ValueError("an argument value must be the user's words")
    return str(value)


Words = Annotated[
    dict[str, str],
    WithJsonSchema(
        {
            "type": "object",
            "additionalProperties": {"type": ["string", "number"]},
            "description": "argument name -> the user's words (a number or date is read as its text)",
        }
    ),
]


class ActModel(_Strict):
    """One scripted act."""

    id: str
    operation: str | None = None
    target: TargetModel = Field(default_factory=TargetModel)
    args: Words = Field(default_factory=dict)
    evidence: dict[str, str] = Field(default_factory=dict)
    evidence_source: Literal["user", "record", "attachment"] = "user"
    hypothetical: bool = False

    @field_validator("args", mode="before")
    @classmethod
    def _args_are_words(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): _words(v) for k, v in value.items()}
        return value


class QuestionModel(_Strict):
    """One scripted question."""

    id: str
    topic: str
    target: TargetModel | None = None
    basis: str = "current_state"


class CardAnswerModel(_Strict):
    """An inferred answer to a card: ``interaction`` is ``last``, ``#n`` or an id."""

    id: str
    interaction: str
    option: str


class ConstraintModel(_Strict):
    """A scripted constraint."""

    id: str
    kind: Literal["do_not_submit", "allow_submit"]
    scope: Literal["turn", "standing"] = "turn"


class LinkModel(_Strict):
    """A correction or cancellation link.

    ``corrects``/``cancels`` name an act of the same turn (``a1``), an act pending on a
    card of an earlier turn (``card:<card>:<act id>``, ``<card>`` as for clicks) or a
    carried waiting act (``<turn id>:<act id>``), ADR 0012.
    """

    act: str
    corrects: str | None = None
    cancels: str | None = None


class UnderstandingModel(_Strict):
    """``understanding:`` what a model would have proposed."""

    acts: list[ActModel] = Field(default_factory=list)
    questions: list[QuestionModel] = Field(default_factory=list)
    card_answers: list[CardAnswerModel] = Field(default_factory=list)
    constraints: list[ConstraintModel] = Field(default_factory=list)
    links: list[LinkModel] = Field(default_factory=list)


class ClickModel(_Strict):
    """``click:`` a structured card response.

    ``value`` is the free value a card that asks for one receives
    (:attr:`turnframe.core.turn.InteractionResponse.free_value`); omitted, none is sent.
    """

    interaction: str = "last"
    option: str
    value: str | None = None
    expected_revision: int | None = None
    as_: ActorModel | None = Field(default=None, alias="as")


class CommandExpect(_Strict):
    """An expected committed command: operation and, when given, its record key.

    A key left out is not checked (``{operation: trip.rename}`` matches that operation on
    any case); ``model_fields_set`` tells an omitted key from one written as null.
    """

    operation: str
    case: str | None = None


class InteractionExpect(_Strict):
    """An expected created card: kind, and when given, case key (or null) and options.

    ``case: null`` checks that the card is on no case; ``case`` left out is not checked;
    ``options`` lists option record keys or option ids, in order.
    """

    kind: CardKind
    case: str | None = None
    options: list[str] | None = None


class OutboxExpect(_Strict):
    """An expected outbox row: record key, topic and status, each checked only when given."""

    case: str | None = None
    topic: str | None = None
    status: str | None = None


class ExpectModel(_Strict):
    """``expect:`` what the turn must show."""

    results: dict[str, ResultValue] | None = None
    commands: list[CommandExpect] | None = None
    interactions_created: list[InteractionExpect] | None = None
    blocks: list[BlockKind] | None = None
    reply_mentions: list[str] | None = None
    reply_must_not_mention: list[str] | None = None
    reply_must_not_claim: list[str] | None = None
    model_calls: int | None = None
    state: dict[str, dict[str, Any]] | None = None
    outbox: list[OutboxExpect] | None = None
    error: str | None = None  # the typed error the turn raises (its class name), if any


class CrashModel(_Strict):
    """``crash:`` the next store call at a boundary fails; the runner recovers the turn."""

    at: str


class ExternalModel(_Strict):
    """``external:`` an external system's report on a case: a ``status``, or a timeout.

    The case's workflow takes it through its ``external_update`` hook
    (docs/scenario-format.md "External updates"); exactly one of ``status`` and
    ``timeout: true`` is given.
    """

    case: str
    status: str | None = None
    timeout: bool = False

    @model_validator(mode="after")
    def _one_of(self) -> ExternalModel:
        if (self.status is None) == (not self.timeout):
            raise ValueError("give exactly one of `status` and `timeout: true`")
        return self


class TurnModel(_Strict):
    """One entry of ``turns:``."""

    text: str | None = None
    understanding: UnderstandingModel | Literal["model"] | None = None
    model_answers: dict[str, Any] | None = None
    reply_answers: dict[str, Any] | None = None
    effort: Literal["low", "medium", "high"] | None = None
    click: ClickModel | None = None
    crash: CrashModel | None = None
    external: ExternalModel | None = None
    advance_days: int | None = None
    locale: str | None = None
    as_: ActorModel | None = Field(default=None, alias="as")
    turn_id: str | None = None  # the id the client sends (default: the runtime mints one)
    in_view: list[str] | None = None  # this turn's records in view (default: the file's)
    expect: ExpectModel | None = None


class ScenarioModel(_Strict):
    """A whole scenario file.

    ``sample`` names the application (an installed ``turnframe.apps`` name such as
    ``travel``, or ``module:attribute``); a file without it runs with the application
    ``turnframe scenario run --app`` gives.
    """

    name: str
    sample: str | None = None
    today: date
    actor: ActorModel
    description: str | None = None
    locale: str = "en"
    records: list[dict[str, Any]] = Field(default_factory=list)
    in_view: list[str] | None = None
    turns: list[TurnModel]
