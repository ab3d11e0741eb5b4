"""What a new chat database starts with: the application's own records (docs/chat.md "Records").

A chat on a database that holds no record for the chat's account is seeded once: the
travel sample with its demo records, any other application from the ``records:`` of its
tour (:attr:`turnframe.runtime.Application.tour`, a scenario file read with the scenario
runner's loader and seeded with the application's seeder, as ``turnframe scenario run``
does). ``--no-seed`` starts empty. The returned line says which, on the first screen.
"""

from __future__ import annotations

from pathlib import Path

from turnframe.core.ids import Actor
from turnframe.runtime import Application, Runtime
from turnframe.store import TurnStore
from turnframe.testing.scenario import prepare_scenario, seed_records, seeder_for

__all__ = ["seed_chat"]


async def seed_chat(
    app: Application, runtime: Runtime, store: TurnStore, actor: Actor, *, seed: bool
) -> str:
    """Seed a new chat database from ``app``'s own records; return the line that says so.

    Args:
        app: the application.
        runtime: its runtime over ``store``.
        store: the chat's database.
        actor: who chats (records without an ``account`` are theirs).
        seed: ``False`` for ``--no-seed`` (nothing is written).

    Returns:
        One line for the first screen: what was seeded, or why nothing was.

    Raises:
        ScenarioFileError: the tour file is invalid (its path and field named).
    """
    existing = await store.list_cases(actor.account)
    if existing:
        return f"Records: {len(existing)} already in this database (/records lists them)."
    if not seed:
        return "Records: none (--no-seed); this database starts empty."
    if app.name == "travel":
        from turnframe.samples.travel import DEMO_RECORDS, seed_all

        seeded = list(seed_all(DEMO_RECORDS))
        for _key, case, state in seeded:
            await runtime.seed(actor.account, case.workflow, state, case_id=case.case_id)
        return f"Records: seeded {len(seeded)} demo records (/records lists them)."
    if app.tour is None:
        return (
            f"Records: none; {app.name!r} has no tour to seed from "
            "(set Application.tour to a scenario file whose records: a chat starts with)."
        )
    if not Path(app.tour).is_file():
        return f"Records: none; the tour file {app.tour} does not exist."
    model, _app = prepare_scenario(app.tour, app=app)
    refs = await seed_records(
        runtime, seeder_for(app), model.records, account=actor.account, file=str(app.tour)
    )
    keys = ", ".join(refs) or "none"
    return (
        f"Records: seeded {len(refs)} from the tour {app.tour} ({keys}); "
        "/records lists them, --no-seed starts empty."
    )
