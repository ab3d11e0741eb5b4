"""The turn pipeline (docs/architecture.md "One turn"): what an application runs.

The adopter API is :class:`Runtime` with an :class:`Application`; the determinism ports
(:class:`Clock`, :class:`IdSource`) and the default store-backed executor and directory.
``turnframe.runtime.reduce`` holds the pure whole-turn reducer.
"""

from turnframe.runtime.amounts import NotANumber, format_amount, read_amount, read_number
from turnframe.runtime.app import (
    Application,
    BriefLimits,
    DirectoryFactory,
    ExecutorFactory,
    NarrationConfig,
    RecordSeeder,
)
from turnframe.runtime.callbacks import (
    CallbackRejected,
    SignedCallback,
    sign_callback,
    verify_callback,
)
from turnframe.runtime.claims import guard_claims
from turnframe.runtime.errors import (
    CommandRejected,
    StateDoesNotLoad,
    TurnIdReused,
    TurnInterrupted,
    UnknownTurn,
)
from turnframe.runtime.executor import (
    StoredCaseDirectory,
    StoredStateExecutor,
    apply_commands,
    journal_commit,
)
from turnframe.runtime.loading import APPS_GROUP, application_names, load_application
from turnframe.runtime.metrics import AMBIGUOUS_TARGET, InMemoryMetrics, Metrics
from turnframe.runtime.orchestrator import Runtime
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.ports import (
    Clock,
    FixedClock,
    IdSource,
    RandomIds,
    SequentialIds,
    SystemClock,
)
from turnframe.runtime.relay import Delivery, DeliveryKind, EffectHandler, OutboxRelay, RelayReport
from turnframe.runtime.turn import PreparedTurn, TurnResult

__all__ = [
    "AMBIGUOUS_TARGET",
    "APPS_GROUP",
    "DirectoryFactory",
    "ExecutorFactory",
    "RecordSeeder",
    "application_names",
    "format_amount",
    "NotANumber",
    "read_amount",
    "read_number",
    "load_application",
    "Application",
    "BriefLimits",
    "CallbackRejected",
    "Delivery",
    "DeliveryKind",
    "EffectHandler",
    "OutboxRelay",
    "RelayReport",
    "SignedCallback",
    "Clock",
    "CommandRejected",
    "StateDoesNotLoad",
    "FixedClock",
    "IdSource",
    "InMemoryMetrics",
    "Metrics",
    "NarrationConfig",
    "PreparedTurn",
    "RandomIds",
    "Runtime",
    "SequentialIds",
    "StoredCaseDirectory",
    "StoredStateExecutor",
    "apply_commands",
    "journal_commit",
    "SystemClock",
    "TurnIdReused",
    "TurnInterrupted",
    "TurnResult",
    "UnknownTurn",
    "guard_claims",
    "sign_callback",
    "verify_callback",
    "origin_satisfies",
]
