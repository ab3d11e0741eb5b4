"""Every sentence the expenses sample writes, in English and European Portuguese.

Receipts, card wording, labels, questions, refusals and the glossary are server-authored
copy: they interpolate server data only, never a user's words (docs/invariants.md I15;
docs/adr/0013-cards-show-what-they-do.md). :func:`text` fails loudly on a missing key,
and :data:`LOCALES` lists the locales every key exists in (a test checks it).
"""

from __future__ import annotations

from decimal import Decimal

__all__ = [
    "EN",
    "LOCALES",
    "PT",
    "glossary",
    "has",
    "lines_count",
    "money_text",
    "number_text",
    "status_name",
    "template",
    "text",
]

EN = "en"
PT = "pt-PT"
LOCALES: tuple[str, ...] = (EN, PT)
"""The locales of the sample (``Application.locales``)."""

_EN: dict[str, str] = {
    # receipts (from committed events only)
    "created": "Opened expense report {report} in {currency}.",
    "line_added": "Added line {line} to {report}: {description}, {amount}. Total: {total}.",
    "line_removed": "Removed line {line} ({description}, {amount}) from {report}. Total: {total}.",
    "approved": "Expense report {report} was approved by {approver}: {total}.",
    "payment_pending": (
        "Payment of {total} for {report} is queued for the payments service (status: "
        "payment pending). The payments service has not confirmed anything yet."
    ),
    "status_changed": "Payment of {total} for {report}: status {status}.",
    "outcome_unknown": (
        "Payment of {total} for {report}: the transmission timed out, its outcome is "
        "unknown (reconciliation pending). Do not assume it was paid."
    ),
    # cards
    "card.add_line": "Add {description}, {amount}, to {report}",
    "card.submit": "Submit {report} ({lines}, total {total}) for a manager's approval",
    "card.pay": "Pay {total} for {report} through the payments service",
    "card.remove_line": "Remove line {line} from {report}",
    "card.create": "Open expense report {title} in {currency}",
    # labels
    "label": "{title} · {lines}, {total} · {status}",
    "label.absent": "a new expense report",
    "lines.one": "1 line",
    "lines.other": "{n} lines",
    "select": "Which expense report did you mean?",
    "select.line": "Which line did you mean?",
    # questions
    "ask.description": "What was the expense for?",
    "ask.amount": "How much was it?",
    "ask.title": "What should the expense report be called?",
    "ask.line": "Which line item?",
    "ask.other": "What is the {argument}?",
    "ask.obligation": "What is still needed for {obligation}?",
    "no_candidate": "None of those expense reports can {summary} now.",
    # refusals
    "refusal.report_locked": "Expense report {report} is {status}; its lines can no longer change.",
    "refusal.no_lines": "Expense report {report} has no lines to submit.",
    "refusal.not_draft": "Expense report {report} is {status}; only a draft can be submitted.",
    "refusal.not_approved": "Expense report {report} is {status}; only an approved report is paid.",
    "refusal.amount_not_positive": "An expense line needs an amount above zero.",
    "refusal.amount_precision": "An amount has at most two decimals (cents).",
    "refusal.missing_argument": "The {argument} is missing.",
    "refusal.other_currency": (
        "Expense report {report} is kept in {currency}; a line in {given} cannot be added."
    ),
    "refusal.no_such_line": "Expense report {report} has no line like that.",
    "refusal.not_created": "That expense report does not exist yet.",
    "refusal.invalid_transition": (
        "Expense report {report} cannot move from {from_status} to {status}."
    ),
    # status names
    "status.draft": "draft",
    "status.approved": "approved",
    "status.payment_pending": "payment pending",
    "status.payment_submitted": "submitted to the payments service",
    "status.payment_processing": "being processed by the payments service",
    "status.paid": "paid",
    "status.payment_failed": "payment failed",
    "status.outcome_unknown": "outcome unknown (reconciliation pending)",
}

_PT: dict[str, str] = {
    "created": "Aberto o relatório de despesas {report} em {currency}.",
    "line_added": "Acrescentada a linha {line} a {report}: {description}, {amount}. Total: {total}.",
    "line_removed": "Retirada a linha {line} ({description}, {amount}) de {report}. Total: {total}.",
    "approved": "O relatório de despesas {report} foi aprovado por {approver}: {total}.",
    "payment_pending": (
        "O pagamento de {total} de {report} está em fila para o serviço de pagamentos "
        "(estado: pagamento pendente). O serviço de pagamentos ainda não confirmou nada."
    ),
    "status_changed": "Pagamento de {total} de {report}: estado {status}.",
    "outcome_unknown": (
        "Pagamento de {total} de {report}: a transmissão excedeu o tempo, o resultado é "
        "desconhecido (reconciliação pendente). Não assuma que foi pago."
    ),
    "card.add_line": "Acrescentar {description}, {amount}, a {report}",
    "card.submit": "Submeter {report} ({lines}, total {total}) à aprovação de um gestor",
    "card.pay": "Pagar {total} de {report} pelo serviço de pagamentos",
    "card.remove_line": "Retirar a linha {line} de {report}",
    "card.create": "Abrir o relatório de despesas {title} em {currency}",
    "label": "{title} · {lines}, {total} · {status}",
    "label.absent": "um novo relatório de despesas",
    "lines.one": "1 linha",
    "lines.other": "{n} linhas",
    "select": "Que relatório de despesas quis dizer?",
    "select.line": "Que linha quis dizer?",
    "ask.description": "Em que foi a despesa?",
    "ask.amount": "Qual foi o montante?",
    "ask.title": "Como se deve chamar o relatório de despesas?",
    "ask.line": "Que linha?",
    "ask.other": "Qual é o valor de {argument}?",
    "ask.obligation": "O que falta para {obligation}?",
    "no_candidate": "Nenhum desses relatórios de despesas permite {summary} agora.",
    "refusal.report_locked": (
        "O relatório de despesas {report} está {status}; as linhas já não podem mudar."
    ),
    "refusal.no_lines": "O relatório de despesas {report} não tem linhas para submeter.",
    "refusal.not_draft": (
        "O relatório de despesas {report} está {status}; só um rascunho pode ser submetido."
    ),
    "refusal.not_approved": (
        "O relatório de despesas {report} está {status}; só um relatório aprovado é pago."
    ),
    "refusal.amount_not_positive": "Uma linha de despesa precisa de um montante acima de zero.",
    "refusal.amount_precision": "Um montante tem no máximo duas casas decimais (cêntimos).",
    "refusal.missing_argument": "Falta o valor de {argument}.",
    "refusal.other_currency": (
        "O relatório de despesas {report} é em {currency}; não pode ter uma linha em {given}."
    ),
    "refusal.no_such_line": "O relatório de despesas {report} não tem nenhuma linha assim.",
    "refusal.not_created": "Esse relatório de despesas ainda não existe.",
    "refusal.invalid_transition": (
        "O relatório de despesas {report} não pode passar de {from_status} a {status}."
    ),
    "status.draft": "em rascunho",
    "status.approved": "aprovado",
    "status.payment_pending": "pagamento pendente",
    "status.payment_submitted": "entregue ao serviço de pagamentos",
    "status.payment_processing": "em processamento no serviço de pagamentos",
    "status.paid": "pago",
    "status.payment_failed": "pagamento falhado",
    "status.outcome_unknown": "resultado desconhecido (reconciliação pendente)",
}

_GLOSSARY = {
    EN: {
        "expense report": "a list of expenses an employee claims back, in one currency",
        "line": "one expense on a report: what it was for and its amount",
        "approval": "a manager's review of a submitted report; the submitter cannot approve",
        "payment": "the approved total sent to the payments service; its status comes back",
    },
    PT: {
        "relatório de despesas": "lista de despesas que um colaborador pede de volta, numa moeda",
        "linha": "uma despesa de um relatório: em que foi e o seu montante",
        "aprovação": "a revisão de um relatório submetido por um gestor; quem o submete não o aprova",
        "pagamento": "o total aprovado enviado ao serviço de pagamentos; o estado volta de lá",
    },
}


def _table(locale: str) -> dict[str, str]:
    return _PT if locale[:2] == "pt" else _EN


def missing(locale: str) -> tuple[str, ...]:
    """Return the copy keys English has and ``locale``'s table lacks.

    Every key for a locale the sample has no table for; ``()`` when ``locale`` is complete.
    """
    if locale[:2] == "en":
        return ()
    table = _PT if locale in (PT, "pt") else {}
    return tuple(key for key in _EN if key not in table)


def template(locale: str, key: str) -> str:
    """Return the raw sentence ``key`` in ``locale`` (en for an unknown one), unfilled.

    Raises:
        KeyError: for an unknown key.
    """
    return _table(locale)[key]


def has(key: str) -> bool:
    """Return whether ``key`` is a copy key (it then exists in every locale of :data:`LOCALES`)."""
    return key in _EN


def text(locale: str, key: str, **params: object) -> str:
    """Return the sentence ``key`` in ``locale`` (en for an unknown one) with ``params``.

    Raises:
        KeyError: for an unknown key or a parameter the sentence needs and lacks.
    """
    return _table(locale)[key].format(**params)


def status_name(locale: str, status: str) -> str:
    """Return the words for a report ``status`` in ``locale`` (the exact status, I19)."""
    key = f"status.{status}"
    return text(locale, key) if has(key) else status


def lines_count(locale: str, count: int) -> str:
    """Return ``"1 line"`` / ``"3 linhas"``."""
    return text(locale, "lines.one" if count == 1 else "lines.other", n=count)


def number_text(locale: str, value: Decimal) -> str:
    """Return a two-decimal number as the locale writes it: ``1,234.50`` / ``1234,50``.

    pt-PT groups thousands with a no-break space only from five integer digits (CLDR's
    minimum grouping), so ``1234,50`` but ``12 345,00`` (the space a no-break one).
    """
    whole, _, cents = f"{value:.2f}".partition(".")
    sign = "-" if whole.startswith("-") else ""
    digits = whole.lstrip("-")
    if locale[:2] == "pt":
        grouped = f"{int(digits):,}".replace(",", "\u00a0") if len(digits) >= 5 else digits
        return f"{sign}{grouped},{cents}"
    return f"{sign}{int(digits):,}.{cents}"


def money_text(locale: str, value: Decimal, currency: str) -> str:
    """Return an amount as the locale writes it: ``EUR 1,234.50`` / ``1234,50 EUR``."""
    number = number_text(locale, value)
    return f"{number} {currency}" if locale[:2] == "pt" else f"{currency} {number}"


def glossary(locale: str) -> dict[str, str]:
    """Return what the domain's words mean in ``locale`` (the workflow's ``glossary`` hook)."""
    return dict(_GLOSSARY[PT] if locale[:2] == "pt" else _GLOSSARY[EN])
