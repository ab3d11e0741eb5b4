"""The state explorer: every reachable state of a workflow, checked (docs/explorer.md).

The properties are those of docs/architecture.md "Workflows" and docs/invariants.md I3.

``explore(app)`` walks each workflow of an application breadth first from the absent
state (and seeded records) through the workflow's own pure code, and reports each
broken property of docs/invariants.md I3 as a typed finding with the shortest path to
it; ``assert_explores(app)`` is the one-line pytest helper. ``turnframe explore --app
SPEC`` is the command line.
"""

from turnframe.testing.explore.assertion import assert_explores
from turnframe.testing.explore.explorer import (
    EXPLORE_TODAY,
    ExploreReport,
    WorkflowReport,
    explore,
    explore_workflow,
    replay_path,
)
from turnframe.testing.explore.findings import (
    BlockingWithoutUserStep,
    CaseEndsByDisappearing,
    DeadEnd,
    DomainRaised,
    Finding,
    NotOnePhase,
    ObligationIdsNotUnique,
    ObligationIdUnstable,
    OutcomeOutsideTerminal,
    Path,
    ProjectionNotPure,
    Step,
    TerminalMovesOn,
    TerminalWithoutOutcome,
    TransitionRemovesCase,
    format_path,
)
from turnframe.testing.explore.search import (
    DEFAULT_DEPTH,
    DEFAULT_STATES,
    MAX_DEPTH,
    MAX_STATES,
    Limits,
)
from turnframe.testing.explore.seeds import Seed, read_records

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_STATES",
    "MAX_DEPTH",
    "MAX_STATES",
    "EXPLORE_TODAY",
    "BlockingWithoutUserStep",
    "CaseEndsByDisappearing",
    "DeadEnd",
    "DomainRaised",
    "ExploreReport",
    "Finding",
    "Limits",
    "NotOnePhase",
    "ObligationIdUnstable",
    "ObligationIdsNotUnique",
    "OutcomeOutsideTerminal",
    "Path",
    "ProjectionNotPure",
    "Seed",
    "Step",
    "TerminalMovesOn",
    "TerminalWithoutOutcome",
    "TransitionRemovesCase",
    "WorkflowReport",
    "assert_explores",
    "explore",
    "explore_workflow",
    "format_path",
    "read_records",
    "replay_path",
]
