"""The whole-turn reducer: a pure function from a turn to an execution plan (I10).

See docs/architecture.md "Reduction".

Nothing here performs I/O (import-linter contract ``reducer-is-pure``). Precedence:

1. A cancellation supersedes the act it cancels; a correction supersedes the act it
   corrects only when understanding linked them — never guessed from a repeated operation.
   A link may name a pending act of an earlier turn (``<card id>:<act id>`` on a card on
   screen, or a carried waiting act's id): it is superseded and its card withdrawn; a
   link to an act no longer pending gets ``no_change`` with a code (ADR 0012).
2. "Do not submit" blocks every submission of the turn; a standing one (ADR 0002) blocks until
   lifted in words or by clicking the confirmation card of a matching command.
3. A hypothetical act never becomes an action; an ungrounded one is rejected (ADR 0005).
4. An ambiguous target blocks only the acts that depend on it (ADR 0001 rule 5).
5. Text acts are reduced before a click on the same case (ADR 0003): if they commit, the card is
   stale and a fresh one is issued.
6. A structured click binds more strongly than an inferred card answer; inferred text may
   decline a card but never confirm a high-risk one (ADR 0006) nor answer a card of another kind.
7. Every act, question and card answer gets exactly one result (I11); commands are grouped
   by case and atomicity scope (I14); several confirmations on one case share a card (ADR 0004).

The rules live by family, each a module of functions over one shared
:class:`~turnframe.runtime.reduce.state.Reduction`; only :func:`reduce_turn` composes them,
in the order above (import-linter contract ``reducer-families-layered``):

- ``links``: cancellations, corrections and links to earlier turns (rule 1);
- ``constraints``: "do not submit" and its lifting (rule 2);
- ``acts``: one act's checks, compile and policy (rule 3), over ``targets``: Exact
  targets, record and part arguments, values (rule 4);
- ``clicks``: clicks and card answers (rules 5, 6); ``waiting``: acts waiting for a
  record (ADR 0007);
- ``cards``: the cards the turn plans (ADR 0003, ADR 0004); ``results``: one result per item and the
  batches (rule 7); ``state``: the shared reduction state.
"""

from __future__ import annotations

from turnframe.core.results import ResultStatus
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.copy import understanding_notice
from turnframe.runtime.plan import Plan, ReductionInput
from turnframe.runtime.reduce.acts import reduce_act
from turnframe.runtime.reduce.cards import card_prompt, plan_confirm_cards
from turnframe.runtime.reduce.clicks import reduce_card_answer, reduce_click
from turnframe.runtime.reduce.constraints import constraint_notices, read_constraints
from turnframe.runtime.reduce.links import read_links, reissue_remaining, supersede_earlier
from turnframe.runtime.reduce.results import batches, record
from turnframe.runtime.reduce.state import Reduction
from turnframe.runtime.reduce.waiting import carry, complete_waiting, registrations

__all__ = ["card_prompt", "reduce_turn"]


def reduce_turn(inp: ReductionInput, registry: WorkflowRegistry) -> Plan:
    """Reduce a whole turn into a plan; performs no I/O and executes nothing (I10).

    Args:
        inp: the turn's proposal, resolutions, snapshots, click and cards on screen.
        registry: the workflows (their pure compile, policy and label functions).

    Returns:
        A :class:`Plan` in which every act, question and card answer has exactly one
        result (I11) and only Exact targets were compiled (I8).
    """
    r = Reduction(inp=inp, registry=registry, constraints=read_constraints(inp))
    u = inp.understanding
    superseded = read_links(r)
    supersede_earlier(r)
    acts, registers = registrations(r)
    for item in acts:
        act = item.act
        if act.id in superseded:
            code = superseded[act.id]
            record(r, act.id, ResultStatus.SUPERSEDED, code=code, operation=act.operation)
            continue
        reduce_act(r, item, origin=None, card=None)
    for again in reissue_remaining(r):
        # A withdrawn card's other acts are compiled again for their fresh card.
        reduce_act(r, again, origin=None, card=None, reissue=True)
    carried = complete_waiting(r, registers)
    if inp.click is not None:
        reduce_click(r, inp.click)
    for answer in u.card_answers:
        reduce_card_answer(r, answer.id, answer.interaction, answer.option)
    for question in u.questions:
        record(r, question.id, ResultStatus.ANSWERED)
    constraint_notices(r)
    for code in u.notices:
        r.notices.append((code, understanding_notice(code, inp.locale), None))
    plan_confirm_cards(r)
    waiting = carry(r, carried)
    return Plan(
        results=tuple(r.results.values()),
        batches=batches(r),
        cards=tuple(r.cards),
        closes=tuple(r.closes),
        standing_do_not_submit=r.constraints.standing,
        notices=tuple(r.notices),
        ambiguous=r.ambiguous,
        replayed_click=r.replayed,
        replayed_status=r.replayed_status,
        waiting=waiting,
        executed=tuple(r.executed),
    )
