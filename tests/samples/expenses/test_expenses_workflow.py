"""The expense report workflow's pure parts: checks, external statuses, words, seeding.

The property test generates sequences of external reports and checks that a payment's
status only moves forward, never leaves a terminal status and that every accepted move
is one event naming where it came from (docs/invariants.md I19).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    Amount,
    CaseRef,
    Compiled,
    CompileRequest,
    ExecutionContext,
    Refusal,
    SemanticAct,
    WorkflowRegistry,
)
from turnframe.samples.expenses import (
    EXTERNAL_STATUSES,
    AddLine,
    ExpenseReportWorkflow,
    ExpenseSeeder,
    PayReport,
    ReportState,
    TransitionRefused,
    expenses_application,
)
from turnframe.samples.expenses import copy as words
from turnframe.samples.expenses.model import Line, dump_report, load_report, money

TODAY = date(2026, 5, 1)
WF = ExpenseReportWorkflow()
CASE = CaseRef("expense_report", "r1")
DRAFT = ReportState(
    title="Lisbon offsite",
    submitter="u1",
    lines=(Line(id="L1", description="Hotel Avenida", amount=Decimal("120.00")),),
    next_line=2,
)


def compile_act(op: str, state: ReportState | None, values: dict[str, Any], **kw: Any) -> Any:
    operation = next(o for o in WF.operations() if o.key == op)
    return WF.compile(
        CompileRequest(
            act=SemanticAct(id="a1", operation=op),
            operation=operation,
            case=CASE,
            state=state,
            view=WF.project(state, TODAY),
            values=values,
            prior=kw.get("prior", ()),
            actor=Actor(account="acme", user="u1"),
            today=TODAY,
            locale=kw.get("locale", "en"),
        )
    )


def test_the_application_registers_in_both_locales_and_its_policies_hold() -> None:
    app = expenses_application()
    assert app.name == "expenses" and app.locales == ("en", "pt-PT")
    assert app.seeder is not None
    policy = app.registry.workflow("expense_report").policy(
        DRAFT, AddLine(description="x", amount=Decimal("1.00"), currency="EUR")
    )
    assert policy.needs_confirmation
    submit = app.registry.operation("expense_report.submit")
    assert submit is not None and submit.policy.review_role == "manager"
    WorkflowRegistry([ExpenseReportWorkflow()])  # registers on its own too


def test_every_sentence_exists_in_every_locale_and_an_unknown_locale_is_a_problem() -> None:
    assert words.missing("pt-PT") == () and words.missing("en") == ()
    assert WF.registration_problems(("en", "pt-PT")) == []
    (problem,) = WF.registration_problems(("fr",))
    assert "'fr'" in problem and "copy.py" in problem
    assert WF.glossary("pt-PT") and WF.glossary("en").keys() != WF.glossary("pt-PT").keys()


def test_amounts_are_exact_and_written_in_the_locale() -> None:
    assert money("12.5") == Decimal("12.50")
    with pytest.raises(ValueError):
        money("1.005")
    with pytest.raises(ValueError):
        money("NaN")
    assert words.money_text("en", Decimal("1234.5"), "EUR") == "EUR 1,234.50"
    assert words.money_text("pt-PT", Decimal("1234.5"), "EUR") == "1234,50 EUR"
    assert words.money_text("pt-PT", Decimal("12345"), "EUR") == "12\u00a0345,00 EUR"


def test_lines_are_refused_in_another_currency_below_zero_or_with_fractions_of_a_cent() -> None:
    other = compile_act(
        "expense_report.add_line",
        DRAFT,
        {"description": "Taxi", "amount": Amount(value=Decimal("5"), currency="USD")},
    )
    assert isinstance(other, Refusal) and other.code == "other_currency"
    zero = compile_act(
        "expense_report.add_line",
        DRAFT,
        {"description": "Taxi", "amount": Amount(value=Decimal("0"))},
    )
    assert isinstance(zero, Refusal) and zero.code == "amount_not_positive"
    cents = compile_act(
        "expense_report.add_line",
        DRAFT,
        {"description": "Taxi", "amount": Amount(value=Decimal("1.001"))},
    )
    assert isinstance(cents, Refusal) and cents.code == "amount_precision"
    ok = compile_act(
        "expense_report.add_line",
        DRAFT,
        {"description": "Taxi", "amount": Amount(value=Decimal("5"))},
    )
    assert ok == Compiled(
        commands=(AddLine(description="Taxi", amount=Decimal("5.00"), currency="EUR"),)
    )


def test_a_prior_command_in_the_turn_is_seen_and_submitting_an_empty_report_is_refused() -> None:
    empty = ReportState(title="Empty", submitter="u1")
    refused = compile_act("expense_report.submit", empty, {}, locale="pt-PT")
    assert isinstance(refused, Refusal) and refused.code == "no_lines"
    assert refused.sentence == "O relatório de despesas Empty não tem linhas para submeter."
    add = AddLine(description="Taxi", amount=Decimal("5.00"), currency="EUR")
    planned = compile_act("expense_report.submit", empty, {}, prior=(add,))
    assert isinstance(planned, Compiled) and len(planned.commands) == 1


def test_lines_are_found_by_id_or_by_the_words_of_their_description() -> None:
    state = ReportState(
        title="Trip",
        submitter="u1",
        lines=(
            Line(id="L1", description="Taxi to airport", amount=Decimal("30.00")),
            Line(id="L2", description="Taxi to hotel", amount=Decimal("20.00")),
        ),
        next_line=3,
    )
    op = next(o for o in WF.operations() if o.key == "expense_report.remove_line")
    arg = op.arguments[0]
    both = WF.find_parts(state, op, arg, "the taxi", "en")
    assert isinstance(both, tuple) and [c.id for c in both] == ["L1", "L2"]
    best = WF.find_parts(state, op, arg, "the taxi to the hotel", "en")
    assert isinstance(best, tuple) and [c.id for c in best] == ["L2"]
    one = WF.find_parts(state, op, arg, "L2", "en")
    assert isinstance(one, tuple) and [c.id for c in one] == ["L2"]
    assert isinstance(WF.find_parts(state, op, arg, "dinner", "pt-PT"), Refusal)


def test_payment_commits_an_outbox_draft_naming_payee_amount_and_currency() -> None:
    approved = ReportState(**{**_fields(DRAFT), "status": "approved", "approved_by": "m1"})
    ctx = ExecutionContext(
        case=CASE, actor=Actor(account="acme", user="f1"), today=TODAY, turn_id="t1"
    )
    done = WF.execute(approved, PayReport(total=Decimal("120.00"), currency="EUR"), ctx)
    assert done.state.status == "payment_pending"
    (draft,) = done.outbox
    assert draft.topic == "payments.submit_payment"
    assert draft.payload == {
        "report": "expense_report/r1",
        "title": "Lisbon offsite",
        "payee": "u1",
        "amount": "120.00",
        "currency": "EUR",
    }
    receipt = WF.render_receipt(_committed(done.events[0]), done.state, "en")
    assert receipt is not None and "has not confirmed anything yet" in receipt


def _fields(state: ReportState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in ReportState.__dataclass_fields__}


def _committed(draft: Any) -> Any:
    from turnframe.core import DomainEvent

    return DomainEvent(
        id="e1", case=CASE, revision=2, type=draft.type, data=draft.data, operation=draft.operation
    )


_RANK = {
    "payment_pending": 0,
    "payment_submitted": 1,
    "payment_processing": 2,
    "paid": 3,
    "payment_failed": 3,
}


@given(st.lists(st.sampled_from((*EXTERNAL_STATUSES, "approved", "bogus")), max_size=12))
def test_external_statuses_only_move_forward_and_never_leave_a_terminal_one(
    reports: list[str],
) -> None:
    state = ReportState(**{**_fields(DRAFT), "status": "payment_pending"})
    for status in reports:
        before = state.status
        try:
            done = WF.external_update(state, status, reference="ref")
        except TransitionRefused as refused:
            assert refused.refusal.code == "invalid_transition"
            assert (
                before in ("paid", "payment_failed")
                or status not in EXTERNAL_STATUSES
                or status == before
                or (
                    status != "outcome_unknown"
                    and before != "outcome_unknown"
                    and _RANK[status] <= _RANK[before]
                )
            )
            continue
        state = done.state
        (event,) = done.events
        assert event.data["from"] == before and event.data["status"] == status
        assert before not in ("paid", "payment_failed")
        if before != "outcome_unknown" and status != "outcome_unknown":
            assert _RANK[status] > _RANK[before]
        view = WF.project(state, TODAY)
        assert (view.outcome is not None) == (state.status in ("paid", "payment_failed"))
        assert load_report(dump_report(state)) == state


def test_the_seeder_states_records_shortly_and_names_bad_fields() -> None:
    seeder = ExpenseSeeder()
    record = {
        "key": "R1",
        "workflow": "expense_report",
        "title": "Trip",
        "submitter": "u1",
        "lines": [{"description": "Taxi", "amount": 12.5}],
    }
    (ordered,) = seeder.seed_order([record])
    workflow, state = seeder.seed_state(ordered, {})
    assert workflow == "expense_report"
    assert load_report(state).lines == (Line(id="L1", description="Taxi", amount=Decimal("12.50")),)
    for bad, needle in (
        ({**record, "colour": "red"}, "colour"),
        ({**record, "lines": [{"description": "Taxi", "amount": "1.001"}]}, "lines[0].amount"),
        ({**record, "lines": [{"description": "Taxi", "amount": "-3"}]}, "above zero"),
        ({**record, "currency": "XYZ"}, "currency"),
        ({**record, "status": "done"}, "status"),
        ({**record, "title": ""}, "title"),
    ):
        with pytest.raises(ValueError, match="record R1") as err:
            seeder.seed_state(bad, {})
        assert needle in str(err.value)
    with pytest.raises(ValueError, match="twice"):
        seeder.seed_order([record, record])
    with pytest.raises(ValueError, match="workflow"):
        seeder.seed_order([{**record, "workflow": "trip"}])


def test_the_application_is_found_by_spec_and_declared_as_an_entry_point() -> None:
    import tomllib
    from pathlib import Path

    from turnframe.runtime import load_application

    app = load_application("turnframe.samples.expenses:expenses_application")
    assert app.name == "expenses"
    pyproject = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    apps = pyproject["project"]["entry-points"]["turnframe.apps"]
    assert apps["expenses"] == "turnframe.samples.expenses:expenses_application"
    contracts = {c["id"]: c for c in pyproject["tool"]["importlinter"]["contracts"]}
    assert contracts["expenses-public-api"]["source_modules"] == ["turnframe.samples.expenses"]
