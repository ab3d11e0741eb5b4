"""The gate: a booking is applied only for a traveller holding an acceptance of the current terms.

The acceptance is another record (workflow ``terms``), so reading it is I/O and lives in
the executor port (``Application.executor``, docs/adr/0025-adopter-executors.md), not in
the booking's pure code. See docs/guides/consent.md "Gating other work".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from turnframe.core import CaseRef, CommandEnvelope, LoadedCase, Transition, WorkflowRegistry
from turnframe.runtime import CommandRejected, StoredStateExecutor
from turnframe.store import TurnStore

from consent.artifact import Artifact
from consent.copy import GATE

GATED = frozenset({"booking.book"})
"""The operations that need the acceptance of the current artifact."""


def terms_key(artifact: Artifact) -> str:
    """Return ``version:digest``, what a booking records of the acceptance it relied on."""
    return f"{artifact.version}:{artifact.digest}"


class ConsentGate:
    """The store-backed executor, refusing a gated operation until the acceptance exists.

    Args:
        registry: the workflows.
        store: the store.
        artifact: the artifact published now; only an ``accepted`` acceptance of its
            version and digest, by the command's own user, opens the gate.
        today: the turn's today (``for_turn`` sets it).
    """

    def __init__(
        self,
        registry: WorkflowRegistry,
        store: TurnStore,
        artifact: Artifact,
        today: date | None = None,
    ) -> None:
        self._registry, self._store, self.artifact = registry, store, artifact
        self._inner = StoredStateExecutor(registry, store, today or date.min)

    def for_turn(self, *, today: date, turn_id: str, locale: str) -> ConsentGate:
        """Return the gate for one turn (validation reads its today, refusals its locale)."""
        gate = ConsentGate(self._registry, self._store, self.artifact, today)
        gate._inner.turn_id, gate._inner.locale = turn_id, locale
        return gate

    async def load(self, case: CaseRef) -> LoadedCase:
        """Return the stored state and revision, as the default executor does."""
        return await self._inner.load(case)

    async def accepted(self, account: str, user: str) -> CaseRef | None:
        """Return ``user``'s acceptance of the current artifact that is ``accepted`` now, if any."""
        key = (self.artifact.version, self.artifact.digest)
        for row in await self._store.list_cases(account):
            state = row.state
            if (
                row.case.workflow == "terms"
                and state.get("holder") == user
                and state.get("status") == "accepted"
                and (state.get("version"), state.get("digest")) == key
            ):
                return row.case
        return None

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        """Apply ``commands`` with the workflows' code; a gated one needs the acceptance.

        A gated booking's state and event record ``terms``: the accepted ``version:digest``.

        Raises:
            CommandRejected: ``consent_required``, worded with the current artifact's name
                and version, when the command's user holds no such acceptance.
        """
        gated = [e for e in commands if e.operation in GATED]
        for envelope in gated:
            if await self.accepted(envelope.actor.account, envelope.actor.user) is None:
                art = self.artifact
                raise CommandRejected(
                    "consent_required", GATE.format(artifact=art.name, version=art.version)
                )
        transition = await self._inner.apply(loaded, commands)
        if not gated:
            return transition
        key = terms_key(self.artifact)
        events = tuple(
            replace(e, data={**e.data, "terms": key}) if e.operation in GATED else e
            for e in transition.events
        )
        return replace(transition, state={**transition.state, "terms": key}, events=events)
