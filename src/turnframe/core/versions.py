"""Which version of a workflow is live for a turn: routing rules, canary shares, rollback.

See docs/guides/canary-and-rollback.md. A :class:`~turnframe.core.workflow.WorkflowRegistry`
may hold several versions of one workflow (``trip`` 1 and 2). A :class:`VersionRouting`
says which is live for each turn: each workflow's *stable* version, and per workflow at
most one :class:`Rollout` that sends a share of conversations (by a stable hash of the
account and conversation id, so a conversation always gets the same version) and any
named accounts to a *candidate* version. Rolling back is replacing the rule (share 0, or
no rollout): no case is touched, since a case stores only its state and the version that
last wrote it (:attr:`turnframe.store.CaseRow.workflow_version`).

Everything here is pure and synchronous.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import DomainError, RegistryError

__all__ = ["CaseVersionMismatch", "Rollout", "VersionRouting", "bucket", "read_state"]

_SPAN = float(1 << 64)


def bucket(workflow: str, account: str, conversation_id: str) -> float:
    """Return the conversation's place in ``[0, 1)`` for ``workflow``'s rollouts.

    The first 8 bytes of the SHA-256 of ``workflow``, ``account`` and ``conversation_id``
    (NUL-separated), read as an unsigned integer over 2**64: a pure function of the
    three, so a conversation is sticky (it lands in the same place on every turn, on
    every worker), and uniform, so a share ``s`` routes about ``s`` of the conversations.
    The workflow is hashed in, so two workflows' canaries pick independent conversations.
    """
    text = f"{workflow}\0{account}\0{conversation_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") / _SPAN


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Rollout:
    """Send part of the traffic of one workflow to a candidate version.

    Attributes:
        workflow: the workflow's name (``"trip"``).
        candidate: the version the chosen turns run (``"2"``).
        share: the fraction of conversations routed to it, in ``[0, 1]`` (0: none,
            a rollback; 1: all).
        accounts: accounts routed to the candidate whatever their conversation's place
            (a pilot customer, an internal account).

    Raises:
        RegistryError: a share outside ``[0, 1]`` (or not a number), an empty name.
    """

    workflow: str
    candidate: str
    share: float = 0.0
    accounts: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not self.workflow or not self.candidate:
            raise RegistryError("a Rollout names a workflow and a candidate version")
        if isinstance(self.share, bool) or not isinstance(self.share, int | float):
            raise RegistryError(f"Rollout.share must be a number in [0, 1], got {self.share!r}")
        if not 0.0 <= float(self.share) <= 1.0:
            raise RegistryError(f"Rollout.share must be in [0, 1], got {self.share!r}")
        if isinstance(self.accounts, str):
            raise RegistryError("Rollout.accounts is a set of account ids, not one str")
        object.__setattr__(self, "accounts", frozenset(self.accounts))

    def routes(self, account: str, conversation_id: str) -> bool:
        """Return whether this rollout sends ``account``'s ``conversation_id`` to the candidate."""
        if account in self.accounts:
            return True
        return self.share > 0 and bucket(self.workflow, account, conversation_id) < self.share


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class VersionRouting:
    """A deployment's rule for which workflow version each turn runs.

    Attributes:
        stable: workflow name → its stable version; a workflow not named here runs the
            version registered first.
        rollouts: at most one :class:`Rollout` per workflow.

    Raises:
        RegistryError: two rollouts for one workflow.
    """

    stable: Mapping[str, str] = field(default_factory=dict)
    rollouts: tuple[Rollout, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "stable", dict(self.stable))
        object.__setattr__(self, "rollouts", tuple(self.rollouts))
        names = [r.workflow for r in self.rollouts]
        if len(names) != len(set(names)):
            raise RegistryError(f"VersionRouting has two rollouts for one workflow: {names}")

    def choose(
        self, defaults: Mapping[str, str], account: str, conversation_id: str
    ) -> dict[str, str]:
        """Return workflow name → the version live for this turn.

        Args:
            defaults: each registered workflow's default version (first registered).
            account: the turn's account.
            conversation_id: the turn's conversation.
        """
        chosen = {name: self.stable.get(name, version) for name, version in defaults.items()}
        for rollout in self.rollouts:
            if rollout.workflow in chosen and rollout.routes(account, conversation_id):
                chosen[rollout.workflow] = rollout.candidate
        return chosen

    def problems(self, versions: Mapping[str, tuple[str, ...]]) -> list[str]:
        """Return a sentence per version this rule names that ``versions`` does not hold."""
        out = []
        for name, version in self.stable.items():
            if version not in versions.get(name, ()):
                out.append(f"stable version {version!r} of workflow {name!r} is not registered")
        for rollout in self.rollouts:
            if rollout.candidate not in versions.get(rollout.workflow, ()):
                out.append(
                    f"candidate version {rollout.candidate!r} of workflow "
                    f"{rollout.workflow!r} is not registered"
                )
        return out


class CaseVersionMismatch(DomainError):
    """A case's stored state does not load under the version live for this turn.

    The case was last written by another version (``written_by``) and the live version's
    ``load_state`` refuses its state: the turn stops here rather than mis-read it, and
    the case is left exactly as stored (docs/guides/canary-and-rollback.md "What a case
    remembers"). Fix: route the conversation to ``written_by`` again, or make the live
    version read that shape.

    Attributes:
        workflow: the workflow's name.
        written_by: the version that last committed to the case.
        live: the version the turn runs.
        case: the case, as ``"workflow/case_id"``.
    """

    def __init__(
        self, workflow: str, case: str, written_by: str, live: str, cause: BaseException
    ) -> None:
        super().__init__(workflow, "load_state", cause)
        self.written_by = written_by
        self.live = live
        self.case = case
        self.args = (
            f"case {case!r} was written by {workflow!r} version {written_by!r}, and its state "
            f"does not load under the live version {live!r} ({type(cause).__name__}: {cause}); "
            f"nothing was changed: route this conversation to version {written_by!r} again "
            "or make the live version read that state",
        )


def read_state(erased: Any, case: str, state: Any, written_by: str | None) -> Any:
    """Return ``state`` typed by ``erased`` (an ``ErasedWorkflow``), naming a version mismatch.

    Args:
        erased: the live version of the case's workflow.
        case: the case as ``"workflow/case_id"`` (for the error).
        state: the stored JSON state, or ``None`` (not created yet).
        written_by: the version that last wrote the case (``None``: not recorded).

    Raises:
        CaseVersionMismatch: the state does not load and another version wrote it.
        DomainError: the state does not load and no other version wrote it (as before).
    """
    try:
        return erased.typed(state)
    except DomainError as exc:
        if written_by is None or written_by == erased.version:
            raise
        raise CaseVersionMismatch(
            erased.name, case, written_by, erased.version, exc.__cause__ or exc
        ) from exc
