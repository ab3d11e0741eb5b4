"""Persistence: the :class:`TurnStore` protocol, its records, errors and bundled stores.

The facade re-exports the protocol and records (:mod:`turnframe.store.base`), the error
types (:mod:`turnframe.store.errors`), :class:`InMemoryStore`, boundary fault
injection (docs/architecture.md "Stores", "Failures") and the paged listing's records
(:mod:`turnframe.store.search`). Two modules are imported by their full path only:
:mod:`turnframe.store.sqlite` (the embedded default store) and :mod:`turnframe.store.conformance`
(the pytest suite every store must pass).
"""

from turnframe.store.base import (
    BOUNDARIES,
    CaseRow,
    CommitRefusal,
    CommitRequest,
    CommitResult,
    InteractionCas,
    JournalEntry,
    JSONText,
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
from turnframe.store.search import BadPageRequest, CasePage

__all__ = [
    "BOUNDARIES",
    "BadPageRequest",
    "CasePage",
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
    "JSONText",
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
