"""The ``terms`` workflow: one traveller's acceptance of one version of the published artifact."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from turnframe.core import (
    Command,
    CompileRequest,
    EventDraft,
    Execution,
    ExecutionContext,
    Op,
    Refused,
    RiskClass,
    Workflow,
    confirm,
)

from consent.artifact import Artifact
from consent.commands import Accept, Withdraw
from consent.copy import TERMS_RECEIPTS, WORDS
from consent.state import Acceptance


class TermsWorkflow(Workflow[Acceptance]):
    """An acceptance: given on a Confirm card, then withdrawn or expired, and always kept.

    Args:
        artifact: the version of the text the application publishes now; ``terms.accept``
            accepts exactly this one (docs/guides/consent.md "The acceptance workflow").
    """

    name = "terms"
    version = "terms/1"
    state_type = Acceptance
    nouns = {"en": "acceptance"}
    label_fields = ("artifact", "version", "status")
    search_fields = ("artifact", "version")
    terminal = ("withdrawn", "expired")
    table = (
        Op(
            Accept,
            "Accept the published terms.",
            creates_case=True,
            policy=confirm(RiskClass.IRREVERSIBLE),
        ),
        Op(Withdraw, "Withdraw the acceptance of the terms.", policy=confirm(RiskClass.REVERSIBLE)),
    )
    offers = {"new": ("terms.accept",), "accepted": ("terms.withdraw",)}
    receipts = TERMS_RECEIPTS
    words = WORDS
    extra_events = ("terms.expired",)
    payload_fields = {"terms.expired": ("status",)}
    external_statuses = ("expired",)
    system_triggers = ("expire",)

    def __init__(self, artifact: Artifact) -> None:
        self.artifact = artifact

    def build(self, request: CompileRequest[Acceptance]) -> Command:
        """Return the command with the current artifact's name, version and digest filled in."""
        command = super().build(request)
        if isinstance(command, Accept):
            art = self.artifact
            return replace(command, artifact=art.name, version=art.version, digest=art.digest)
        return command

    def check(self, state: Acceptance | None, command: Command, today: date) -> None:
        """Keep the lifecycle; an acceptance of a text no longer published is refused (a click too).

        Raises:
            Refused: ``artifact_changed`` when ``command`` carries another version or digest.
        """
        super().check(state, command, today)
        art = self.artifact
        if isinstance(command, Accept) and (command.version, command.digest) != (
            art.version,
            art.digest,
        ):
            raise Refused("artifact_changed", artifact=art.name, version=art.version)

    def execute(
        self, state: Acceptance | None, command: Command, ctx: ExecutionContext
    ) -> Execution[Acceptance]:
        """Record the acceptance for the actor, or its withdrawal; the record is never removed."""
        if isinstance(command, Accept):
            new = Acceptance(
                holder=ctx.actor.user,
                artifact=command.artifact,
                version=command.version,
                digest=command.digest,
                accepted_on=ctx.today,
                keep_until=ctx.today + timedelta(days=self.artifact.retention_days),
            )
            return self.emit(new, command)
        record = self.existing(state, command)
        if isinstance(command, Withdraw):
            return self.emit(replace(record, status="withdrawn", ended_on=ctx.today), command)
        return self.unchanged(record)

    def expire(self, state: Acceptance, today: date) -> Execution[Acceptance]:
        """End the retention of an accepted record whose ``keep_until`` has passed (a system trigger).

        Raises:
            ValueError: when the record is not accepted or its retention has not ended.
        """
        if state.status != "accepted" or today <= state.keep_until:
            raise ValueError(f"acceptance kept until {state.keep_until}; not expired on {today}")
        return self._expired(state, today)

    def external_update(
        self, state: Acceptance, status: str, *, reference: str = ""
    ) -> Execution[Acceptance]:
        """Apply the records-retention service's report that an acceptance's retention ended.

        Raises:
            ValueError: for a status other than ``expired`` or a record not accepted.
        """
        if status != "expired" or state.status != "accepted":
            raise ValueError(f"cannot move a {state.status} acceptance to {status!r}")
        return self._expired(state, state.keep_until)

    def _expired(self, state: Acceptance, on: date) -> Execution[Acceptance]:
        new = replace(state, status="expired", ended_on=on)
        # operation ``terms.expire``, which no act can name (it is in no table row)
        draft = EventDraft(
            type="terms.expired", data={"status": "expired"}, operation="terms.expire"
        )
        return Execution(state=new, events=(draft,))
