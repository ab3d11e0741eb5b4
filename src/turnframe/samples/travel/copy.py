"""The travel sample's words, in English and European Portuguese.

See docs/samples/travel.md "Localisation".

Every receipt, refusal sentence and code-written question of the sample comes from here
(docs/architecture.md "Claims": receipts are the domain's localised operational copy). A locale
starting with ``pt`` reads Portuguese (pt-PT); any other reads English. Templates interpolate server
data only: record names the user gave are data in a receipt, never instructions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache

__all__ = [
    "EN",
    "PT",
    "arg_label",
    "count",
    "fmt_date",
    "fmt_range",
    "has",
    "join",
    "kind_name",
    "lang",
    "obligation_words",
    "param",
    "status_name",
    "table",
    "text",
]

EN = "en"
PT = "pt-PT"

_MONTHS = {
    EN: (
        "January February March April May June July August September October November December"
    ).split(),
    PT: (
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro"
    ).split(),
}

_KINDS = {
    EN: {
        "hotel": "hotel",
        "baggage": "baggage",
        "insurance": "insurance",
        "seat": "seat",
        "meal": "meal",
    },
    PT: {
        "hotel": "hotel",
        "baggage": "bagagem",
        "insurance": "seguro",
        "seat": "lugar",
        "meal": "refeição",
    },
}

_STATUSES = {
    EN: {
        "planning": "planning",
        "confirmed": "confirmed",
        "completed": "completed",
        "cancelled": "cancelled",
        "active": "active",
        "deleted": "Deleted",
        "draft": "draft",
        "validated": "validated",
        "submitting": "submitting (queued for the airline)",
        "submitted": "submitted",
        "received_by_intermediary": "received by the intermediary",
        "received_by_airline": "received by the airline",
        "accepted": "accepted by the airline",
        "rejected": "rejected by the airline",
        "issued": "issued",
        "outcome_unknown": "outcome unknown (reconciliation pending)",
    },
    PT: {
        "planning": "em planeamento",
        "confirmed": "confirmada",
        "completed": "concluída",
        "cancelled": "cancelada",
        "active": "ativo",
        "deleted": "Eliminado",
        "draft": "rascunho",
        "validated": "validado",
        "submitting": "em envio (na fila para a companhia aérea)",
        "submitted": "enviado",
        "received_by_intermediary": "recebido pelo intermediário",
        "received_by_airline": "recebido pela companhia aérea",
        "accepted": "aceite pela companhia aérea",
        "rejected": "rejeitado pela companhia aérea",
        "issued": "emitido",
        "outcome_unknown": "resultado desconhecido (reconciliação pendente)",
    },
}

_ARGS = {
    EN: {
        "name": "trip name",
        "destination": "destination",
        "start": "start date",
        "end": "end date",
        "traveler": "traveler",
        "kind": "kind of extra",
        "details": "details",
        "payer": "payer",
        "extra": "extra",
        "hotel": "hotel",
        "nights": "number of nights",
        "full_name": "full name",
        "birth_date": "birth date",
        "email": "email address",
    },
    PT: {
        "name": "nome da viagem",
        "destination": "destino",
        "start": "data de início",
        "end": "data de fim",
        "traveler": "viajante",
        "kind": "tipo de extra",
        "details": "detalhes",
        "payer": "pagador",
        "extra": "extra",
        "hotel": "hotel",
        "nights": "número de noites",
        "full_name": "nome completo",
        "birth_date": "data de nascimento",
        "email": "endereço de email",
    },
}

_COUNTS = {
    EN: {
        "traveler": ("traveler", "travelers"),
        "passenger": ("passenger", "passengers"),
        "night": ("night", "nights"),
        "extra": ("extra", "extras"),
    },
    PT: {
        "traveler": ("viajante", "viajantes"),
        "passenger": ("passageiro", "passageiros"),
        "night": ("noite", "noites"),
        "extra": ("extra", "extras"),
    },
}

_OBLIGATIONS = {
    EN: {"dates": "dates", "travelers": "a traveler", "payer": "a payer for {extra}"},
    PT: {"dates": "datas", "travelers": "um viajante", "payer": "um pagador para {extra}"},
}

_TEXT: dict[str, dict[str, str]] = {
    EN: {
        # cards: proposed commands, as a Confirm or Review card shows them (ADR 0003)
        "card.trip.start": "Start trip {name}",
        "card.trip.rename": "Rename the trip to {name}",
        "card.trip.change_dates": "Change the dates to {start} – {end}",
        "card.trip.add_traveler": "Add {traveler} to the trip",
        "card.trip.add_extra": "Add {kind}",
        "card.trip.set_extra_payer": "Set the payer of {extra} to {payer}",
        "card.trip.remove_extra": "Remove {extra}",
        "card.trip.book_hotel": "Book a hotel: {hotel}, {nights}",
        "card.trip.confirm": "Confirm trip {trip}",
        "card.trip.cancel": "Cancel trip {trip}",
        "card.traveler.register": "Register traveler {full_name}",
        "card.traveler.update_email": "Change the email address of {name} to {email}",
        "card.traveler.delete": "Delete traveler {name}",
        "card.manifest.add_passenger": "Add passenger {traveler}",
        "card.manifest.remove_passenger": "Remove passenger {traveler}",
        "card.manifest.validate": "Validate the manifest with {passengers}",
        "card.manifest.submit": "Submit the manifest to airline {airline} with {passengers}",
        "card.passengers.named": "{count}: {names}",
        # selection cards, worded by the domain
        "select.trip": "Which trip did you mean?",
        "select.traveler": "Which traveler did you mean?",
        "select.manifest": "Which manifest did you mean?",
        # receipts: trip
        "trip.started": "Started trip {trip} ({dates}).",
        "trip.renamed": "Renamed trip {old} to {trip}.",
        "trip.dates_changed": "Changed the dates of trip {trip} to {dates}.",
        "trip.traveler_added": "Added a traveler to trip {trip}; it now has {travelers}.",
        "trip.extra_added": "Added {kind} ({extra}) to trip {trip}.",
        "trip.extra_added.company": "Added {kind} ({extra}) to trip {trip}, paid by the company.",
        "trip.extra_added.traveler": "Added {kind} ({extra}) to trip {trip}, paid by a traveler on the trip.",
        "trip.extra_payer_set.company": "Set the payer of {kind} ({extra}) on trip {trip} to the company.",
        "trip.extra_payer_set.traveler": "Set the payer of {kind} ({extra}) on trip {trip} to a traveler on the trip.",
        "trip.extra_removed": "Removed {kind} ({extra}) from trip {trip}.",
        "trip.hotel_booked": "Booked hotel {hotel} for {nights} on trip {trip} ({extra}).",
        "trip.confirmed": "Confirmed trip {trip}.",
        "trip.cancelled": "Cancelled trip {trip}.",
        "trip.completed": "Trip {trip} is completed.",
        # receipts: traveler
        "traveler.registered": "Registered traveler {name}.",
        "traveler.email_updated": "Updated the email of {name} to {email}.",
        "traveler.deleted": "Deleted traveler {name}; the record stays with status Deleted.",
        # receipts: manifest
        "manifest.passenger_added": "Added a passenger to manifest {manifest}; it lists {count}.",
        "manifest.passenger_removed": "Removed a passenger from manifest {manifest}; it lists {count}.",
        "manifest.back_to_draft": " The manifest is back to draft and must be validated again.",
        "manifest.validated": "Validated manifest {manifest} ({count}).",
        "manifest.submission_queued": "Queued manifest {manifest} for the airline; status: submitting. "
        "The airline has not confirmed anything yet.",
        "manifest.status_changed": "Manifest {manifest}: the status is now {status}.",
        "manifest.outcome_unknown": "Manifest {manifest}: the transmission timed out, so its outcome is unknown; "
        "reconciliation is pending.",
        # labels
        "label.trip": "{trip} · {dates} · {status}",
        "label.trip.destination": "{trip} ({destination}) · {dates} · {status}",
        "label.traveler": "{name} ({details})",
        "label.born": "born {year}",
        "label.manifest": "Manifest {airline} · {trip} · {status}",
        "label.manifest.no_trip": "Manifest {airline} · {status}",
        "label.absent.trip": "new trip",
        "label.absent.traveler": "new traveler",
        "label.absent.manifest": "new manifest",
        "dates.none": "no dates",
        "dates.from": "from {start}",
        "dates.until": "until {end}",
        "payer.company": "the company",
        "payer.traveler": "a traveler on the trip",
        "payer.none": "no payer yet",
        "and": "and",
        # refusals
        "refusal.missing_argument": "I need the {argument} to do that.",
        "refusal.invalid_value": "That is not a valid {argument}.",
        "refusal.end_before_start": "The end date can't be before the start date.",
        "refusal.date_in_past": "The trip's dates can't be in the past (today is {today}).",
        "refusal.second_hotel": "Trip {trip} already has a hotel ({extra}); a trip holds one hotel.",
        "refusal.second_hotel.planned": "Your message already asks for a hotel on trip {trip} "
        "({extra}); a trip holds one hotel.",
        "refusal.payer_not_traveler": "The payer must be a traveler on trip {trip} or the company.",
        "refusal.dates_locked": "Trip {trip} is {trip_status}; its dates can only change while it is planned.",
        "refusal.trip_closed": "Trip {trip} is {trip_status}; it can't change any more.",
        "refusal.obligations_open": "Trip {trip} can't be confirmed yet: it still needs {open}.",
        "refusal.unknown_extra": "Trip {trip} has no extra {extra}.",
        "refusal.invalid_kind": "An extra is a hotel, baggage, insurance, a seat or a meal.",
        "refusal.invalid_nights": "A hotel booking needs at least one night.",
        "refusal.already_started": "This trip already exists.",
        "refusal.not_finished": "Trip {trip} is {trip_status} and not over yet.",
        "refusal.not_created": "This record doesn't exist yet.",
        "refusal.already_registered": "This traveler is already registered.",
        "refusal.traveler_deleted": "{name} was deleted; the record can't change any more.",
        "refusal.invalid_email": "{email} is not an email address.",
        "refusal.birth_date_in_future": "A birth date can't be in the future.",
        "refusal.manifest_locked": "Manifest {manifest} is {status}; its passengers can't change any more.",
        "refusal.not_a_passenger": "That traveler is not on manifest {manifest}.",
        "refusal.no_passengers": "Manifest {manifest} has no passengers to validate.",
        "refusal.not_validated": "Manifest {manifest} is {status}; it must be validated before it is submitted.",
        "refusal.already_submitted": "Manifest {manifest} was already handed to the airline; its status is {status}.",
        "refusal.invalid_transition": "Manifest {manifest} can't move from {from_status} to {status}.",
        "refusal.no_such_extra": "Trip {trip} has no extra that matches what you named.",
        "label.extra": "{kind}: {details} ({extra})",
        "label.extra.plain": "{kind} ({extra})",
        "no_candidate.trip": "None of the trips you named can take this now: {operation}.",
        "no_candidate.traveler": "None of the travelers you named can take this now: {operation}.",
        "no_candidate.traveler.argument": "None of the travelers you named can be used for this "
        "any more: {operation}.",
        "no_candidate.manifest": "None of the manifests you named can take this now: {operation}.",
        # questions
        "ask.dates": "What are the trip's start and end dates?",
        "ask.travelers": "Who is travelling on this trip?",
        "ask.payer": "Who pays for extra {extra}: a traveler on the trip or the company?",
        "ask.obligation": "What is still needed for {obligation}?",
        "ask.arg.name": "What should the trip be called?",
        "ask.arg.destination": "Where is the trip going?",
        "ask.arg.start": "When does the trip start?",
        "ask.arg.end": "When does the trip end?",
        "ask.arg.traveler": "Which traveler?",
        "ask.arg.kind": "Which kind of extra: hotel, baggage, insurance, seat or meal?",
        "ask.arg.details": "Any details for this extra?",
        "ask.arg.payer": "Who pays: a traveler on the trip or the company?",
        "ask.arg.extra": "Which extra (for example, the hotel)?",
        "ask.arg.hotel": "Which hotel?",
        "ask.arg.nights": "For how many nights?",
        "ask.arg.full_name": "What is the traveler's full name?",
        "ask.arg.birth_date": "What is the traveler's birth date?",
        "ask.arg.email": "What is the traveler's email address?",
        "ask.arg.other": "What {argument} should I use?",
        # knowledge
        "topic.baggage_allowance": "baggage allowance",
        "topic.trip_summary": "trip summary",
        "topic.extra_status": "extras",
        "topic.manifest_status": "manifest status",
        "know.hotel": "{hotel}, {nights}, booked",
        "know.no_subject": "I have no record to answer that about.",
        "know.unknown_topic": "I have no information on that.",
        "know.absent": "{label}: this record doesn't exist yet.",
        "know.not_applicable": "{label}: I have no {topic} information for this record.",
        "know.baggage": "{airline}: cabin bag up to {cabin} kg, checked bag {checked}.",
        "know.baggage.checked": "up to {kg} kg included",
        "know.baggage.none": "not included (paid extra)",
        "know.baggage.unknown": "{label}: I have no baggage table for airline {airline}.",
        "know.baggage.table": "{label}: the airline isn't known yet; allowances by airline:",
        "know.trip_summary": "{label}: {status}, {dates}, {travelers}, {extras}.",
        "know.traveler_summary": "{label}: {status}.",
        "know.manifest_summary": "{label}: status {status}, {count}.",
        "know.extras.none": "{label}: no extras.",
        "know.extra": "{extra} {kind}{details}, payer: {payer}",
        "know.extras": "{label}: {extras}.",
        "know.manifest_status": "{label}: status {status}.",
    },
    PT: {
        "card.trip.start": "Criar a viagem {name}",
        "card.trip.rename": "Renomear a viagem para {name}",
        "card.trip.change_dates": "Alterar as datas para {start} – {end}",
        "card.trip.add_traveler": "Adicionar {traveler} à viagem",
        "card.trip.add_extra": "Adicionar {kind}",
        "card.trip.set_extra_payer": "Definir o pagador de {extra}: {payer}",
        "card.trip.remove_extra": "Remover {extra}",
        "card.trip.book_hotel": "Reservar hotel: {hotel}, {nights}",
        "card.trip.confirm": "Confirmar a viagem {trip}",
        "card.trip.cancel": "Cancelar a viagem {trip}",
        "card.traveler.register": "Registar o viajante {full_name}",
        "card.traveler.update_email": "Alterar o email de {name} para {email}",
        "card.traveler.delete": "Eliminar o viajante {name}",
        "card.manifest.add_passenger": "Adicionar o passageiro {traveler}",
        "card.manifest.remove_passenger": "Remover o passageiro {traveler}",
        "card.manifest.validate": "Validar o manifesto com {passengers}",
        "card.manifest.submit": "Submeter o manifesto à companhia aérea {airline} com {passengers}",
        "card.passengers.named": "{count}: {names}",
        "select.trip": "A que viagem se referia?",
        "select.traveler": "A que viajante se referia?",
        "select.manifest": "A que manifesto se referia?",
        "trip.started": "Viagem {trip} criada ({dates}).",
        "trip.renamed": "Viagem {old} renomeada para {trip}.",
        "trip.dates_changed": "Datas da viagem {trip} alteradas para {dates}.",
        "trip.traveler_added": "Viajante adicionado à viagem {trip}; tem agora {travelers}.",
        "trip.extra_added": "Extra adicionado à viagem {trip}: {kind} ({extra}).",
        "trip.extra_added.company": "Extra adicionado à viagem {trip}: {kind} ({extra}), pago pela empresa.",
        "trip.extra_added.traveler": "Extra adicionado à viagem {trip}: {kind} ({extra}), pago por um viajante da viagem.",
        "trip.extra_payer_set.company": "Pagador do extra {kind} ({extra}) da viagem {trip} definido: a empresa.",
        "trip.extra_payer_set.traveler": "Pagador do extra {kind} ({extra}) da viagem {trip} definido: "
        "um viajante da viagem.",
        "trip.extra_removed": "Extra removido da viagem {trip}: {kind} ({extra}).",
        "trip.hotel_booked": "Hotel {hotel} reservado por {nights} na viagem {trip} ({extra}).",
        "trip.confirmed": "Viagem {trip} confirmada.",
        "trip.cancelled": "Viagem {trip} cancelada.",
        "trip.completed": "Viagem {trip} concluída.",
        "traveler.registered": "Viajante {name} registado.",
        "traveler.email_updated": "Email de {name} atualizado para {email}.",
        "traveler.deleted": "Viajante {name} eliminado; o registo mantém-se com o estado Eliminado.",
        "manifest.passenger_added": "Passageiro adicionado ao manifesto {manifest}; tem agora {count}.",
        "manifest.passenger_removed": "Passageiro removido do manifesto {manifest}; tem agora {count}.",
        "manifest.back_to_draft": " O manifesto voltou a rascunho e tem de ser validado de novo.",
        "manifest.validated": "Manifesto {manifest} validado ({count}).",
        "manifest.submission_queued": "Manifesto {manifest} colocado na fila para a companhia aérea; "
        "estado: em envio. A companhia aérea ainda não confirmou nada.",
        "manifest.status_changed": "Manifesto {manifest}: o estado é agora {status}.",
        "manifest.outcome_unknown": "Manifesto {manifest}: a transmissão excedeu o tempo limite e o resultado é "
        "desconhecido; a reconciliação está pendente.",
        "label.trip": "{trip} · {dates} · {status}",
        "label.trip.destination": "{trip} ({destination}) · {dates} · {status}",
        "label.traveler": "{name} ({details})",
        "label.born": "n. {year}",
        "label.manifest": "Manifesto {airline} · {trip} · {status}",
        "label.manifest.no_trip": "Manifesto {airline} · {status}",
        "label.absent.trip": "viagem nova",
        "label.absent.traveler": "viajante novo",
        "label.absent.manifest": "manifesto novo",
        "dates.none": "sem datas",
        "dates.from": "a partir de {start}",
        "dates.until": "até {end}",
        "payer.company": "a empresa",
        "payer.traveler": "um viajante da viagem",
        "payer.none": "ainda sem pagador",
        "and": "e",
        "refusal.missing_argument": "Preciso do campo {argument} para fazer isso.",
        "refusal.invalid_value": "Isso não é um valor válido para {argument}.",
        "refusal.end_before_start": "A data de fim não pode ser anterior à data de início.",
        "refusal.date_in_past": "As datas da viagem não podem estar no passado (hoje é {today}).",
        "refusal.second_hotel": "A viagem {trip} já tem um hotel ({extra}); uma viagem tem um só hotel.",
        "refusal.second_hotel.planned": "A sua mensagem já pede um hotel para a viagem {trip} "
        "({extra}); uma viagem tem um só hotel.",
        "refusal.payer_not_traveler": "O pagador tem de ser um viajante da viagem {trip} ou a empresa.",
        "refusal.dates_locked": "A viagem {trip} está {trip_status}; as datas só mudam enquanto está em "
        "planeamento.",
        "refusal.trip_closed": "A viagem {trip} está {trip_status}; já não pode ser alterada.",
        "refusal.obligations_open": "A viagem {trip} ainda não pode ser confirmada: precisa de {open}.",
        "refusal.unknown_extra": "A viagem {trip} não tem o extra {extra}.",
        "refusal.invalid_kind": "Um extra é um hotel, bagagem, seguro, um lugar ou uma refeição.",
        "refusal.invalid_nights": "Uma reserva de hotel precisa de pelo menos uma noite.",
        "refusal.already_started": "Esta viagem já existe.",
        "refusal.not_finished": "A viagem {trip} está {trip_status} e ainda não terminou.",
        "refusal.not_created": "Este registo ainda não existe.",
        "refusal.already_registered": "Este viajante já está registado.",
        "refusal.traveler_deleted": "{name} foi eliminado; o registo já não pode ser alterado.",
        "refusal.invalid_email": "{email} não é um endereço de email.",
        "refusal.birth_date_in_future": "Uma data de nascimento não pode estar no futuro.",
        "refusal.manifest_locked": "O manifesto {manifest} está {status}; os passageiros já não podem mudar.",
        "refusal.not_a_passenger": "Esse viajante não está no manifesto {manifest}.",
        "refusal.no_passengers": "O manifesto {manifest} não tem passageiros para validar.",
        "refusal.not_validated": "O manifesto {manifest} está {status}; tem de ser validado antes de ser submetido.",
        "refusal.already_submitted": "O manifesto {manifest} já foi entregue à companhia aérea; o estado é {status}.",
        "refusal.invalid_transition": "O manifesto {manifest} não pode passar de {from_status} para {status}.",
        "refusal.no_such_extra": "A viagem {trip} não tem nenhum extra que corresponda ao que indicou.",
        "label.extra": "{kind}: {details} ({extra})",
        "label.extra.plain": "{kind} ({extra})",
        "no_candidate.trip": "Nenhuma das viagens que indicou pode receber isto agora: {operation}.",
        "no_candidate.traveler": "Nenhum dos viajantes que indicou pode receber isto agora: "
        "{operation}.",
        "no_candidate.traveler.argument": "Nenhum dos viajantes que indicou pode já ser usado "
        "para isto: {operation}.",
        "no_candidate.manifest": "Nenhum dos manifestos que indicou pode receber isto agora: "
        "{operation}.",
        "ask.dates": "Quais são as datas de início e de fim da viagem?",
        "ask.travelers": "Quem vai nesta viagem?",
        "ask.payer": "Quem paga o extra {extra}: um viajante da viagem ou a empresa?",
        "ask.obligation": "O que falta para {obligation}?",
        "ask.arg.name": "Como se deve chamar a viagem?",
        "ask.arg.destination": "Qual é o destino da viagem?",
        "ask.arg.start": "Quando começa a viagem?",
        "ask.arg.end": "Quando termina a viagem?",
        "ask.arg.traveler": "Que viajante?",
        "ask.arg.kind": "Que tipo de extra: hotel, bagagem, seguro, lugar ou refeição?",
        "ask.arg.details": "Há detalhes para este extra?",
        "ask.arg.payer": "Quem paga: um viajante da viagem ou a empresa?",
        "ask.arg.extra": "Que extra (por exemplo, o hotel)?",
        "ask.arg.hotel": "Que hotel?",
        "ask.arg.nights": "Por quantas noites?",
        "ask.arg.full_name": "Qual é o nome completo do viajante?",
        "ask.arg.birth_date": "Qual é a data de nascimento do viajante?",
        "ask.arg.email": "Qual é o endereço de email do viajante?",
        "ask.arg.other": "Que valor devo usar para {argument}?",
        "topic.baggage_allowance": "franquia de bagagem",
        "topic.trip_summary": "resumo da viagem",
        "topic.extra_status": "extras",
        "topic.manifest_status": "estado do manifesto",
        "know.hotel": "{hotel}, {nights}, reservado",
        "know.no_subject": "Não tenho nenhum registo sobre o qual responder.",
        "know.unknown_topic": "Não tenho informação sobre isso.",
        "know.absent": "{label}: este registo ainda não existe.",
        "know.not_applicable": "{label}: não tenho informação de {topic} para este registo.",
        "know.baggage": "{airline}: bagagem de cabine até {cabin} kg, bagagem de porão {checked}.",
        "know.baggage.checked": "até {kg} kg incluída",
        "know.baggage.none": "não incluída (paga à parte)",
        "know.baggage.unknown": "{label}: não tenho tabela de bagagem para a companhia aérea {airline}.",
        "know.baggage.table": "{label}: a companhia aérea ainda não é conhecida; franquias por companhia:",
        "know.trip_summary": "{label}: {status}, {dates}, {travelers}, {extras}.",
        "know.traveler_summary": "{label}: {status}.",
        "know.manifest_summary": "{label}: estado {status}, {count}.",
        "know.extras.none": "{label}: sem extras.",
        "know.extra": "{extra} {kind}{details}, pagador: {payer}",
        "know.extras": "{label}: {extras}.",
        "know.manifest_status": "{label}: estado {status}.",
    },
}


@lru_cache(maxsize=256)
def lang(locale: str) -> str:
    """Return the sample's language for ``locale``: ``"pt-PT"`` for ``pt*``, else ``"en"``.

    See docs/architecture.md "Claims".

    A pure function of the locale text, memoised (every label and sentence of a turn
    asks it).
    """
    return PT if locale.lower().startswith("pt") else EN


def text(locale: str, key: str, **params: object) -> str:
    """Return the template ``key`` in ``locale`` with ``params`` interpolated.

    See docs/architecture.md "Claims".

    Raises:
        KeyError: when ``key`` (or a placeholder it names) is unknown: a sample defect.
    """
    return _TEXT[lang(locale)][key].format(**params)


def table(keys: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Return the raw templates of ``keys`` (their name → a key here) in both languages.

    The form of the authoring kit's per-locale tables (``Workflow.receipts`` and
    ``Workflow.words``; docs/authoring.md#receipts).

    Raises:
        KeyError: when a key is not a template of the sample.
    """
    return {lang_: {name: _TEXT[lang_][key] for name, key in keys.items()} for lang_ in (EN, PT)}


def has(key: str) -> bool:
    """Return whether ``key`` is a template of the sample (both languages share keys).

    See docs/architecture.md "Claims".
    """
    return key in _TEXT[EN]


def kind_name(locale: str, kind: str) -> str:
    """Return the localised name of an extra's kind (unknown kinds as given; receipts).

    See docs/architecture.md "Claims".
    """
    return _KINDS[lang(locale)].get(kind, kind)


def status_name(locale: str, status: str) -> str:
    """Return the localised words of a status; distinct statuses never share words (I19)."""
    return _STATUSES[lang(locale)].get(status, status)


def arg_label(locale: str, name: str) -> str:
    """Return the localised label of an argument (unknown names as given).

    See docs/architecture.md "Understanding" labels.
    """
    return _ARGS[lang(locale)].get(name, name)


def count(locale: str, noun: str, n: int) -> str:
    """Return ``n`` with ``noun`` inflected: ``"2 travelers"``, ``"1 noite"``.

    See docs/architecture.md "Claims".
    """
    one, many = _COUNTS[lang(locale)][noun]
    return f"{n} {one if n == 1 else many}"


def join(locale: str, items: Sequence[str]) -> str:
    """Return ``items`` as one phrase: ``"a, b and c"`` (``"a, b e c"`` in Portuguese).

    See docs/architecture.md "Claims".
    """
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {text(locale, 'and')} {items[-1]}"


def fmt_date(locale: str, day: date) -> str:
    """Return ``day`` written out: ``"12 May 2026"`` or ``"12 de maio de 2026"``.

    See docs/architecture.md "Claims".
    """
    language = lang(locale)
    month = _MONTHS[language][day.month - 1]
    if language == PT:
        return f"{day.day} de {month} de {day.year}"
    return f"{day.day} {month} {day.year}"


def fmt_range(locale: str, start: date | None, end: date | None) -> str:
    """Return a trip's dates: ``"12–15 May 2026"``, ``"from …"``, ``"no dates"``.

    See docs/architecture.md "Claims".
    """
    if start is None and end is None:
        return text(locale, "dates.none")
    if end is None:
        assert start is not None
        return text(locale, "dates.from", start=fmt_date(locale, start))
    if start is None:
        return text(locale, "dates.until", end=fmt_date(locale, end))
    if (start.year, start.month) == (end.year, end.month):
        return f"{start.day}–{fmt_date(locale, end)}"
    return f"{fmt_date(locale, start)} – {fmt_date(locale, end)}"


def obligation_words(locale: str, obligation_id: str) -> str:
    """Return what a trip obligation id (``dates``, ``travelers``, ``payer:E1``) asks for.

    See docs/architecture.md "Workflows".
    """
    kind, _, extra = obligation_id.partition(":")
    template = _OBLIGATIONS[lang(locale)].get(kind)
    return obligation_id if template is None else template.format(extra=extra)


def param(locale: str, key: str, value: object) -> str:
    """Return a refusal parameter rendered for ``locale``, by the parameter's name.

    See docs/architecture.md "One turn" step 5.

    ``argument`` becomes its label, ``kind`` its kind name, ``status``/``from_status``/
    ``trip_status`` their status words, ``today`` a written date, ``open`` (a sequence of
    obligation ids) a joined phrase; anything else is ``str(value)``.
    """
    if key == "argument":
        return arg_label(locale, str(value))
    if key == "kind":
        return kind_name(locale, str(value))
    if key in ("status", "from_status", "trip_status"):
        return status_name(locale, str(value))
    if key == "today" and isinstance(value, date):
        return fmt_date(locale, value)
    if key == "open" and isinstance(value, tuple | list):
        return join(locale, [obligation_words(locale, str(v)) for v in value])
    return str(value)
