"""The runtime's own code-written sentences, in English and Portuguese (pt-PT).

Domain sentences come from the workflow; these are the framework's (card prompts,
generic refusals). Never interpolates user text.
"""

from __future__ import annotations

__all__ = ["TABLES", "narrate", "say", "understanding_notice"]

_EN: dict[str, str] = {
    "select.prompt": "Which record did you mean?",
    "confirm.prompt": "Please confirm on {label}: {operations}.",
    "review.prompt": "An agent must review before this goes ahead on {label}: {operations}.",
    "option.confirm": "Confirm",
    "option.decline": "Cancel",
    "option.approve": "Approve",
    "option.reject": "Reject",
    "target_not_found": "I couldn't tell which record you meant; please name it again.",
    "wrong_record": "That can't be done on that kind of record.",
    "not_offered": "That can't be done on {label} at this stage.",
    "unknown_operation": "I can't do that here.",
    "ungrounded": "I only act on what you asked for yourself in this conversation.",
    "do_not_submit": "Nothing was submitted: you asked me not to submit yet.",
    "standing_do_not_submit": "You asked me not to submit anything for now; say so when I may.",
    "constraint_lifted_for_one": (
        "You confirmed this submission on its card, so it goes ahead; "
        "your request not to submit still holds for everything else."
    ),
    "allow_submit": "Understood: submissions may go ahead again.",
    "hypothetical": "That was a question about what would happen; nothing was changed.",
    "cancelled": "As you asked, that change was not made.",
    "nothing_to_do": "Nothing was changed.",
    "already_so": "That is already the case; nothing changed.",
    "invalid_value": "I couldn't read the value you gave for {argument}.",
    "ambiguous_date": "For {argument}, did you mean {options}?",
    "declined": "Cancelled: nothing was changed.",
    "needs_click": "Please use the button on the card to confirm; I can't confirm that from text.",
    "unknown_card": "That choice is no longer available.",
    "already_resolved": "That card was already answered; nothing was done again.",
    "conflicting_answers": "You gave different answers to the same card; please choose on it.",
    "card_busy": "Another card on that record was answered in this message; please answer this one again.",
    "stale_no_reissue": "That card is out of date because the record changed.",
    "stale_touched": (
        "This message also asks to change that record, so nothing on that card was done."
    ),
    "stale_claimed": (
        "That click was sent for a different version of the record than its card showed, "
        "so nothing was done."
    ),
    "already_stale": "That card was already closed without being carried out; nothing was done.",
    "card_changed": "What that card would do has changed since it was shown, so nothing was done.",
    "not_authorized": "Only a user with the {role} role can resolve this card.",
    "reviewer_excluded": "You can't review this yourself; another reviewer must resolve this card.",
    "review_rejected": "The review rejected this; nothing was submitted.",
    "conflict": "The record changed while I was working on it; nothing was applied.",
    "card_failed": "I couldn't prepare the choice just now; please ask again.",
    "card_replaced": "The earlier card on {label} was replaced by a new one.",
    "unreadable": "Part of your message couldn't be read; please rephrase it.",
    "unreadable_message": "Your message couldn't be read; please rephrase it.",
    "nothing_found": "I found nothing to do in your message, so nothing was changed.",
    "generic_receipt": "Done: {event} on {record}.",
    "domain_words_failed": (
        "The change above was saved, but this application's own words for it failed to "
        "render; the receipt shows what was recorded."
    ),
    "model_unreachable": (
        "The language model could not be reached ({error}), so your message was not read "
        "and nothing was changed; please try again later."
    ),
    "provider_error.connection_refused": "connection refused",
    "provider_error.dns": "its host name could not be resolved",
    "provider_error.tls": "the secure connection failed",
    "provider_error.unreachable": "no connection could be made",
    "provider_error.authentication": "its credentials were refused",
    "provider_error.quota": "its quota is used up",
    "provider_error.model_not_found": "the model was not found",
    "provider_error.timeout": "it did not answer in time",
    "provider_error.rate_limited": "it is limiting requests",
    "provider_error.unavailable": "it is unavailable",
    "provider_error.context_overflow": "the request was too long for it",
    "provider_error.bad_request": "it rejected the request",
    "provider_error.stream": "its answer broke off",
    "provider_error.dropped": "the connection dropped",
    "provider_error.provider": "it failed",
    "step.provider": "The language model could not be reached.",
    "no_knowledge": "I have no information on that.",
    "awaiting_review": "Waiting for an agent's review.",
    "record_not_found": (
        "I couldn't find that record; once it is registered I'll finish this request."
    ),
    "expired": "An earlier request waited too long for its record and was dropped: {operation}.",
    "card_withdrawn": "The earlier card for that request was withdrawn; it can no longer be used.",
    "already_withdrawn": (
        "That card was withdrawn when you changed or cancelled its request; nothing was done."
    ),
    "already_declined": "That card was already declined; nothing was done.",
    "card_superseded": "That card was replaced by a newer one; nothing was done.",
    "link.already_committed": (
        "That earlier request was already carried out, so nothing was cancelled or undone."
    ),
    "link.no_longer_pending": (
        "That earlier request is no longer pending, so there was nothing to cancel or change."
    ),
    "choice.prompt": "Which one did you mean?",
    "no_fitting_record": "None of the records you named can take that change now.",
    "record_closed": "{label} is closed and can't be used for that any more.",
    "part_not_found": "I couldn't find the part of the record you named.",
    "step.segment": "Reading your message: {n} part(s).",
    "step.coverage": "Checking that nothing you said was missed.",
    "step.route": "Working out what each part asks for.",
    "step.locate": "Finding the record you mean.",
    "step.extract": "Reading the values you gave.",
    "step.check": "Checking the request against the record's rules.",
    "step.verify": "Checking my reading against your words.",
    "step.cross_check": "Double-checking the whole reading.",
    "step.budget": "Stopping here: reading this message took too long.",
    "step.other": "Reading your message.",
    "step.unreadable": "I couldn't read this step of your message.",
    "unanswerable": "I can't answer that question here.",
    "not_on_offer": "Part of your message asks for something I can't do for you here, so it was not done.",
}

_PT: dict[str, str] = {
    "select.prompt": "A que registo se referia?",
    "confirm.prompt": "Confirme em {label}: {operations}.",
    "review.prompt": "Um agente tem de rever antes de avançar em {label}: {operations}.",
    "option.confirm": "Confirmar",
    "option.decline": "Cancelar",
    "option.approve": "Aprovar",
    "option.reject": "Rejeitar",
    "target_not_found": "Não percebi a que registo se referia; indique-o novamente.",
    "wrong_record": "Isso não se pode fazer nesse tipo de registo.",
    "not_offered": "Isso não se pode fazer em {label} nesta fase.",
    "unknown_operation": "Não posso fazer isso aqui.",
    "ungrounded": "Só ajo sobre o que o próprio utilizador pediu nesta conversa.",
    "do_not_submit": "Nada foi submetido: pediu-me que ainda não submetesse.",
    "standing_do_not_submit": "Pediu-me que não submetesse nada por agora; diga quando puder.",
    "constraint_lifted_for_one": (
        "Confirmou esta submissão no cartão, por isso avança; "
        "o pedido de não submeter mantém-se para tudo o resto."
    ),
    "allow_submit": "Entendido: as submissões podem voltar a avançar.",
    "hypothetical": "Era uma pergunta sobre o que aconteceria; nada foi alterado.",
    "cancelled": "Como pediu, essa alteração não foi feita.",
    "nothing_to_do": "Nada foi alterado.",
    "already_so": "Já está assim; nada mudou.",
    "invalid_value": "Não consegui ler o valor indicado para {argument}.",
    "ambiguous_date": "Para {argument}, quis dizer {options}?",
    "declined": "Cancelado: nada foi alterado.",
    "needs_click": "Use o botão do cartão para confirmar; não posso confirmar a partir de texto.",
    "unknown_card": "Essa opção já não está disponível.",
    "already_resolved": "Esse cartão já foi respondido; nada foi feito de novo.",
    "conflicting_answers": "Deu respostas diferentes ao mesmo cartão; escolha no cartão, por favor.",
    "card_busy": "Outro cartão sobre esse registo foi respondido nesta mensagem; responda de novo a este.",
    "stale_no_reissue": "Esse cartão está desatualizado porque o registo mudou.",
    "stale_touched": (
        "Esta mensagem também pede uma alteração a esse registo, por isso nada desse "
        "cartão foi feito."
    ),
    "stale_claimed": (
        "Esse clique foi enviado para uma versão do registo diferente da que o cartão "
        "mostrava, por isso nada foi feito."
    ),
    "already_stale": "Esse cartão já tinha sido fechado sem ser executado; nada foi feito.",
    "card_changed": "O que esse cartão faria mudou desde que foi mostrado, por isso nada foi feito.",
    "not_authorized": "Só um utilizador com o papel {role} pode resolver este cartão.",
    "reviewer_excluded": "Não pode rever isto sozinho; outro revisor tem de resolver este cartão.",
    "review_rejected": "A revisão rejeitou isto; nada foi submetido.",
    "conflict": "O registo mudou enquanto eu trabalhava nele; nada foi aplicado.",
    "card_failed": "Não consegui preparar a escolha agora; volte a pedir.",
    "card_replaced": "O cartão anterior em {label} foi substituído por um novo.",
    "unreadable": "Parte da mensagem não pôde ser lida; reformule-a, por favor.",
    "unreadable_message": "A sua mensagem não pôde ser lida; reformule-a, por favor.",
    "nothing_found": "Não encontrei nada a fazer na sua mensagem, por isso nada foi alterado.",
    "generic_receipt": "Feito: {event} em {record}.",
    "domain_words_failed": (
        "A alteração acima foi guardada, mas as palavras desta aplicação para ela falharam; "
        "o recibo mostra o que ficou registado."
    ),
    "model_unreachable": (
        "Não foi possível contactar o modelo de linguagem ({error}), por isso a sua mensagem "
        "não foi lida e nada foi alterado; tente novamente mais tarde."
    ),
    "provider_error.connection_refused": "ligação recusada",
    "provider_error.dns": "não foi possível resolver o nome do servidor",
    "provider_error.tls": "a ligação segura falhou",
    "provider_error.unreachable": "não foi possível estabelecer ligação",
    "provider_error.authentication": "as credenciais foram recusadas",
    "provider_error.quota": "a quota está esgotada",
    "provider_error.model_not_found": "o modelo não foi encontrado",
    "provider_error.timeout": "não respondeu a tempo",
    "provider_error.rate_limited": "está a limitar os pedidos",
    "provider_error.unavailable": "está indisponível",
    "provider_error.context_overflow": "o pedido era demasiado longo",
    "provider_error.bad_request": "rejeitou o pedido",
    "provider_error.stream": "a resposta foi interrompida",
    "provider_error.dropped": "a ligação caiu",
    "provider_error.provider": "falhou",
    "step.provider": "Não foi possível contactar o modelo de linguagem.",
    "no_knowledge": "Não tenho informação sobre isso.",
    "awaiting_review": "À espera da revisão de um agente.",
    "record_not_found": (
        "Não encontrei esse registo; quando estiver registado, concluo este pedido."
    ),
    "expired": "Um pedido anterior esperou demasiado pelo seu registo e foi descartado: {operation}.",
    "card_withdrawn": "O cartão anterior desse pedido foi retirado; já não pode ser usado.",
    "already_withdrawn": (
        "Esse cartão foi retirado quando alterou ou cancelou o pedido; nada foi feito."
    ),
    "already_declined": "Esse cartão já tinha sido recusado; nada foi feito.",
    "card_superseded": "Esse cartão foi substituído por um mais recente; nada foi feito.",
    "link.already_committed": (
        "Esse pedido anterior já tinha sido executado, por isso nada foi cancelado nem desfeito."
    ),
    "link.no_longer_pending": (
        "Esse pedido anterior já não está pendente, por isso não havia nada a cancelar ou alterar."
    ),
    "choice.prompt": "A qual se referia?",
    "no_fitting_record": "Nenhum dos registos que indicou pode receber essa alteração agora.",
    "record_closed": "{label} está encerrado e já não pode ser usado para isso.",
    "part_not_found": "Não encontrei a parte do registo que indicou.",
    "step.segment": "A ler a sua mensagem: {n} parte(s).",
    "step.coverage": "A confirmar que nada do que disse ficou de fora.",
    "step.route": "A perceber o que pede cada parte.",
    "step.locate": "A encontrar o registo a que se refere.",
    "step.extract": "A ler os valores que indicou.",
    "step.check": "A verificar o pedido contra as regras do registo.",
    "step.verify": "A comparar a minha leitura com as suas palavras.",
    "step.cross_check": "A rever a leitura toda.",
    "step.budget": "Paro aqui: ler esta mensagem demorou demasiado.",
    "step.other": "A ler a sua mensagem.",
    "step.unreadable": "Não consegui ler este passo da sua mensagem.",
    "unanswerable": "Não consigo responder a essa pergunta aqui.",
    "not_on_offer": "Parte da mensagem pede algo que não posso fazer por si aqui, por isso não foi feito.",
}

TABLES: dict[str, dict[str, str]] = {"en": _EN, "pt-PT": _PT}
"""Every runtime sentence by locale; each locale holds every key with the same placeholders
(``tests/property/test_prop_locales.py`` walks them; docs/adr/0013-cards-show-what-they-do.md)."""


def say(key: str, locale: str, **params: str) -> str:
    """Return the runtime sentence ``key`` in ``locale`` (pt* → Portuguese, else English).

    Raises:
        KeyError: for an unknown key (a programming error).
    """
    table = _PT if locale.lower().startswith("pt") else _EN
    return table[key].format(**params)


def narrate(step: str, detail: str, locale: str, count: int | None = None) -> str:
    """Return an understanding step said in the user's language (``NarrationConfig.steps``).

    Code-written and domain-free: it never repeats the user's words nor names a record.
    Counts come from the step's typed result (``count``: the units read), never from its
    detail text; a step no reading passed (detail ``unreadable``) is said as unreadable
    (docs/adr/0018-decoder-enforceable-schemas.md).
    """
    key = f"step.{step}"
    table = _PT if locale.lower().startswith("pt") else _EN
    if detail == "unreadable":
        return table["step.unreadable"]
    if key not in table:
        return table["step.other"]
    if step == "segment":
        if count is None:
            return table["step.other"]
        return table[key].format(n=str(count))
    return table[key]


def understanding_notice(code: str, locale: str) -> str:
    """Return the sentence for an understanding notice ``code`` in ``locale``.

    ``model_unreachable:<kind>``: the language model could not be reached, with the
    error class (``providers.errors.error_kind``); ``unreadable_message``: nothing of the
    message was read; ``unanswerable``: a question no topic answers (I11);
    ``not_on_offer``: a request read as one that no operation on offer to this user does
    (I2: the user is told it was not done, never asked to rephrase); any other code: part
    of it could not be read
    (docs/adr/0017-no-claim-in-model-words.md).
    """
    table = _PT if locale.lower().startswith("pt") else _EN
    base, _, kind = code.partition(":")
    if base == "model_unreachable":
        error = table.get(f"provider_error.{kind}", table["provider_error.provider"])
        return table["model_unreachable"].format(error=error)
    if base in ("unreadable_message", "unanswerable", "not_on_offer"):
        return table[base]
    return table["unreadable"]
