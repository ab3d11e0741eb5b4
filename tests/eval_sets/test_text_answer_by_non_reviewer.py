"""A Review card answered in words by someone who may not resolve it is told so (I17).

docs/eval-sets.md (case ``expenses#xc08``): the submitter who wrote "Approve it" was told
"Please use the button on the card to confirm", although their click on that button is
refused (``not_authorized``; scenarios/expenses/05_submitter_cannot_self_approve.yaml).
A text answer now gets the refusal the click would get, in every option (approve or
reject), before the rule that text never approves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.cli import main

SCENARIO = """\
name: a text answer to a Review card by {who}
sample: expenses
today: 2026-05-01
actor: {actor}
records:
  - {{key: R1, workflow: expense_report, title: Lisbon offsite, submitter: u1, lines: [{{description: Hotel, amount: "120.00"}}]}}
turns:
  - text: "Submit the Lisbon offsite report."
    as: {submitter}
    understanding:
      acts: [{{id: a1, operation: expense_report.submit, target: {{handles: [R1]}}}}]
  - click: {{interaction: last, option: confirm}}
    as: {submitter}
  - text: "{words}"
    understanding:
      card_answers: [{{id: ca1, interaction: last, option: {option}}}]
    expect:
      results: {{ca1: {result}}}
      commands: []
      reply_mentions: ["{sentence}"]
"""

EMPLOYEE = "{account: acme, user: u1, roles: [employee]}"
MANAGER_SUBMITTER = "{account: acme, user: u1, roles: [employee, manager]}"
OTHER_MANAGER = "{account: acme, user: m1, roles: [manager]}"


@pytest.mark.parametrize(
    ("who", "actor", "submitter", "option", "result", "sentence"),
    [
        ("the submitter", EMPLOYEE, EMPLOYEE, "approve", "rejected:not_authorized", "Only a user"),
        ("the submitter", EMPLOYEE, EMPLOYEE, "reject", "rejected:not_authorized", "Only a user"),
        (
            "a manager on their own report",
            MANAGER_SUBMITTER,
            MANAGER_SUBMITTER,
            "approve",
            "rejected:reviewer_excluded",
            "another reviewer must resolve",
        ),
        (
            "another manager",
            OTHER_MANAGER,
            EMPLOYEE,
            "approve",
            "rejected:needs_click",
            "Please use the button",
        ),
    ],
)
def test_a_text_answer_gets_the_refusal_its_click_would_get(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    who: str,
    actor: str,
    submitter: str,
    option: str,
    result: str,
    sentence: str,
) -> None:
    path = tmp_path / "review.yaml"
    path.write_text(
        SCENARIO.format(
            who=who,
            actor=actor,
            submitter=submitter,
            words="Approve it" if option == "approve" else "Reject it",
            option=option,
            result=result,
            sentence=sentence,
        ),
        encoding="utf-8",
    )
    code = main(["scenario", "run", str(path)])
    assert code == 0, capsys.readouterr()
