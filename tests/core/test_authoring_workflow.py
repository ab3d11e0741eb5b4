"""The authoring kit's Workflow base: every default member, through a small note workflow."""

from __future__ import annotations

from datetime import date

import pytest
from authoring_fixture import Archive, Note, NoteWorkflow, Paint, Publish, Write

from turnframe.core import (
    Actor,
    ArgumentKind,
    CaseRef,
    Command,
    Compiled,
    CompileRequest,
    ConfirmationRequirement,
    DomainEvent,
    ExecutionContext,
    Op,
    Refusal,
    RiskClass,
    SemanticAct,
    UsageError,
    WorkflowRegistry,
    confirm,
)

TODAY = date(2026, 5, 4)
CASE = CaseRef("note", "n1")
ACTOR = Actor(account="a", user="u")
EDITOR = Actor(account="a", user="e", roles=frozenset({"editor"}))
CTX = ExecutionContext(case=CASE, actor=ACTOR, today=TODAY, turn_id="t1")


def request(wf: NoteWorkflow, key: str, state: Note | None, values: dict, prior=(), locale="en"):
    op = next(o for o in wf.operations() if o.key == key)
    return CompileRequest(
        act=SemanticAct(id="a1", operation=key),
        operation=op,
        case=CASE,
        state=state,
        view=wf.project(state, TODAY),
        values=values,
        prior=tuple(prior),
        actor=ACTOR,
        today=TODAY,
        locale=locale,
    )


def test_specs_come_from_the_commands_and_the_registry_accepts_the_workflow() -> None:
    wf = NoteWorkflow()
    write, paint, publish, archive = wf.operations()
    assert (write.key, write.workflow, write.creates_case) == ("note.write", "note", True)
    title, body = write.arguments
    assert (title.name, title.kind, title.required, title.names_record) == (
        "title",
        ArgumentKind.TEXT,
        True,
        True,
    )
    assert (body.required, body.label_in("pt-PT")) == (False, "texto")
    assert paint.arguments[0].kind is ArgumentKind.CHOICE
    assert paint.arguments[0].choices == ("red", "blue")
    assert publish.arguments == () and archive.policy.needs_confirmation
    assert wf.registration_problems(("en", "pt-PT")) == []
    registry = WorkflowRegistry([wf])
    assert registry.workflow("note").operation("note.archive") is not None


def test_compile_builds_replays_checks_and_detects_no_change() -> None:
    wf = NoteWorkflow()
    made = wf.compile(request(wf, "note.write", None, {"title": " Groceries "}))
    assert made == Compiled(commands=(Write(title="Groceries"),))
    # The turn's earlier write is replayed: paint on the note written just before.
    painted = wf.compile(
        request(wf, "note.paint", None, {"colour": "red"}, prior=[Write(title="G")])
    )
    assert painted == Compiled(commands=(Paint(colour="red"),))
    note = Note(title="G")
    assert wf.compile(request(wf, "note.paint", note, {"colour": "blue"})) == Compiled()
    missing = wf.compile(request(wf, "note.write", None, {}, locale="pt-PT"))
    assert isinstance(missing, Refusal) and missing.code == "missing_argument"
    assert "título" in missing.sentence
    wrong = wf.compile(request(wf, "note.paint", note, {"colour": "green"}))
    assert isinstance(wrong, Refusal) and wrong.code == "invalid_value"
    again = wf.compile(request(wf, "note.write", note, {"title": "G"}))
    assert isinstance(again, Refusal) and again.code == "already_exists"


def test_validate_is_the_same_check_with_domain_words() -> None:
    wf = NoteWorkflow()
    published = Note(title="Plan", status="published")
    refusal = wf.validate(published, Paint(colour="red"), TODAY, "pt-PT")
    assert refusal == Refusal(
        code="red_published", sentence="Uma nota publicada não pode ficar vermelha (Plan)."
    )
    assert wf.validate(Note(title="Plan"), Paint(colour="red"), TODAY) is None
    archived = Note(title="Plan", status="archived")
    gone = wf.validate(archived, Paint(colour="red"), TODAY)
    assert isinstance(gone, Refusal) and gone.code == "not_on_offer" and "Plan" in gone.sentence
    absent = wf.validate(None, Paint(colour="red"), TODAY)
    assert isinstance(absent, Refusal) and absent.code == "not_created"


def test_offers_policy_and_view_come_from_the_tables() -> None:
    wf = NoteWorkflow()
    draft = wf.project(Note(title="x"), TODAY)
    assert wf.offered(draft, ACTOR) == ("note.paint", "note.archive")
    assert wf.offered(draft, EDITOR) == ("note.paint", "note.publish", "note.archive")
    assert wf.project(None, TODAY).exists is False
    assert wf.project(None, TODAY).phase == "new"
    archived = wf.project(Note(title="x", status="archived"), TODAY)
    assert archived.outcome is not None and wf.terminal_phases() == ("archived",)
    policy = wf.policy(Note(title="x"), Archive())
    assert policy.risk is RiskClass.DESTRUCTIVE
    assert policy.confirmation is ConfirmationRequirement.CONFIRM
    assert wf.policy(None, Write(title="x")).risk is RiskClass.LOW


def test_a_reviewed_operation_excludes_the_reviewers_the_workflow_names() -> None:
    """Four eyes in the kit: ``confirm(review_role=…, excluded_reviewers=…)`` and the
    ``excluded_reviewers`` hook add up; blanks are ignored; unreviewed rows are untouched."""

    class ReviewedNotes(NoteWorkflow):
        table = (
            *NoteWorkflow.table[:3],
            Op(
                Archive,
                "Archive the note.",
                summaries={"pt-PT": "Arquivar a nota."},
                policy=confirm(
                    RiskClass.DESTRUCTIVE, review_role="editor", excluded_reviewers=("root",)
                ),
            ),
        )

        def excluded_reviewers(self, state: Note, command: Command) -> tuple[str, ...]:
            return (state.body, "")

    wf = ReviewedNotes()
    assert wf.policy(Note(title="x", body="u7"), Archive()).excluded_reviewers == ("root", "u7")
    assert wf.policy(Note(title="x"), Archive()).excluded_reviewers == ("root",)
    assert wf.policy(None, Archive()).excluded_reviewers == ("root",)
    assert wf.policy(Note(title="x", body="u7"), Paint(colour="red")).excluded_reviewers == ()
    assert NoteWorkflow().policy(Note(title="x", body="u7"), Archive()).excluded_reviewers == ()
    WorkflowRegistry().register(wf)


def test_receipts_labels_search_and_questions() -> None:
    wf = NoteWorkflow()
    run = wf.execute(Note(title="Plan"), Paint(colour="red"), CTX)
    (draft,) = run.events
    event = DomainEvent(
        id="e1", case=CASE, revision=2, type=draft.type, data=draft.data, operation=draft.operation
    )
    assert wf.render_receipt(event, run.state, "en") == "Painted Plan · red red."
    assert wf.render_receipt(event, run.state, "pt-PT") == "Plan · red pintada de red."
    ping = DomainEvent(id="e2", case=CASE, revision=3, type="note.ping", data={}, operation="x")
    assert wf.render_receipt(ping, run.state, "en") is None
    odd = DomainEvent(id="e3", case=CASE, revision=3, type="note.odd", data={}, operation="x")
    with pytest.raises(UsageError, match="no receipt template for event 'note.odd'"):
        wf.render_receipt(odd, run.state, "en")
    assert draft.type == "note.painted" and draft.data == {"colour": "red"}
    assert wf.candidate_label(CASE, run.state, "en") == "Plan · red"
    assert wf.candidate_label(CASE, None, "pt-PT") == "registo novo (note)"
    assert wf.search_text(run.state) == "Plan"
    assert wf.load_state(wf.dump_state(run.state)) == run.state
    op = wf.operations()[0]
    assert wf.ask_argument(op, op.arguments[0], "pt-PT") == "Que valor devo usar para título?"
    assert wf.select_prompt(op, None, "en") == "Which note did you mean?"
    assert wf.execute(Note(title="P"), Publish(), CTX).events[0].type == "note.published"
    with pytest.raises(UsageError, match="declares events"):
        wf.emit(Note(title="P"), Publish())


def test_registration_problems_name_workflow_member_and_fix() -> None:
    from dataclasses import replace as dc_replace

    from turnframe.core import ArgumentSpec, Op, Workflow

    class Broken(Workflow[Note]):
        name = "note"
        version = "note/1"
        state_type = Note
        locales = ("en", "pt-PT")
        label_fields = ("nope",)
        table = (Op(Write, "Write a note."), Op(Paint, "Paint.", summaries={"pt-PT": "Pintar."}))
        offers = {"draft": ("note.paint", "note.fly")}
        receipts = {"en": {"note.written": "Wrote {title"}}

        def operations(self):  # a hand-written spec that drifted from the command
            write, paint = super().operations()
            wrong = ArgumentSpec(name="colour", kind=ArgumentKind.TEXT, required=True)
            return (write, dc_replace(paint, arguments=(wrong, ArgumentSpec(name="shade"))))

    problems = Broken().registration_problems(("en", "pt-PT", "fr"))
    text = "\n".join(problems)
    for expected in (
        "workflow 'note', execute: not defined; fix: define execute",
        "label_fields: 'nope' is no field of the state",
        "offers['draft']: offers 'note.fly', which has no command and policy",
        "operations[note.paint].arguments: argument 'shade' exists only in the spec",
        "operations[note.paint].arguments[colour]: spec says text/required=True, the field choice",
        "receipts['en']['note.written']: bad template",
        "receipts['en']: no template for event 'note.painted'",
        "receipts['pt-PT']: no template for event 'note.written'",
        "table[note.write].summaries: no summary in 'pt-PT'",
        "locales: the application serves 'fr'",
    ):
        assert expected in text, (expected, problems)
    assert all(p.startswith("workflow 'note', ") and "; fix: " in p for p in problems)
