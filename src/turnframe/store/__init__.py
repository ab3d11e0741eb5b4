"""Persistence: the :class:`TurnStore` protocol, its records, errors and bundled stores.

The facade re-exports the protocol and records (:mod:`turnframe.store.base`), the error
types (:mod:`turnframe.store.errors`), :class:`InMemoryStore` and boundary fault
injection (guide §11, §14). Two modules are imported by their full path only:
:mod:`turnframe.store.sqlite` (the embedded default store) and
:mod:`turnframe.store.conformance` (the pytest suite every store must pass).
"""

from turnframe.store.base import (
    BOUNDARIES,
    CaseRow,
    CommitRefusal,
    CommitRequest,
    CommitResult,
    InteractionCas,
    JournalEntry,
    PlanCommit,
    PlanOutcome,
    TurnRecord,
    TurnReply,
    TurnStore,
)
from turnframe.store.errors import (
    CommitOutcomeUnknown,
    IdempotencyKeyReused,
    InjectedFault,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
    StoreUnavailable,
    TurnIdTaken,
)
from turnframe.store.faults import FaultInjectingStore, FaultPlan
from turnframe.store.memory import InMemoryStore

__all__ = [
    "BOUNDARIES",
    "CaseRow",
    "CommitOutcomeUnknown",
    "CommitRefusal",
    "CommitRequest",
    "CommitResult",
    "FaultInjectingStore",
    "FaultPlan",
    "IdempotencyKeyReused",
    "InMemoryStore",
    "InjectedFault",
    "InteractionAlreadyResolved",
    "InteractionCas",
    "JournalEntry",
    "PlanCommit",
    "PlanOutcome",
    "RevisionConflict",
    "StoreError",
    "StoreUnavailable",
    "TurnIdTaken",
    "TurnRecord",
    "TurnReply",
    "TurnStore",
]
