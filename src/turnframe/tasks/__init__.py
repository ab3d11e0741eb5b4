"""Small verified model tasks: strict schemas, checks, repairs, resends, votes, budgets, records.

A task answers one narrow question under a schema built for the turn (docs/architecture.md
"Understanding"). Code checks every answer against the full schema and the task's own check before
anything else sees it; a failing answer goes back once with the exact error.
"""

from turnframe.tasks.budget import BudgetMeter, TurnBudget
from turnframe.tasks.errors import BudgetExceeded, TaskFailed
from turnframe.tasks.record import CallRecord
from turnframe.tasks.run import TaskModels, TaskRunner, concurrently, read_answer
from turnframe.tasks.schema import validate
from turnframe.tasks.task import Check, Task

__all__ = [
    "BudgetExceeded",
    "BudgetMeter",
    "CallRecord",
    "Check",
    "Task",
    "TaskFailed",
    "TaskModels",
    "TaskRunner",
    "TurnBudget",
    "concurrently",
    "read_answer",
    "validate",
]
