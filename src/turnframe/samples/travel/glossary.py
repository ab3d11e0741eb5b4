"""The travel sample's glossary: what its own words mean, in English and Portuguese.

Each workflow returns its part from its ``glossary(locale)`` hook
(:class:`~turnframe.core.workflow.WorkflowDefinition`); the runtime puts the entries of
the workflows on offer into the brief (docs/adr/0020-what-a-brief-shows.md). Every entry
is server-authored copy: no record's data, no user text.
"""

from __future__ import annotations

from turnframe.samples.travel import copy

__all__ = ["glossary_of"]

_TRIP = {
    copy.EN: {
        "extra": "something added to a trip: a hotel, baggage, insurance, a seat or a meal",
        "cover": "travel insurance, an extra of kind insurance",
        "luggage": "baggage, an extra of kind baggage (checked bags, hand luggage)",
        "accommodation": "a hotel stay, booked with trip.book_hotel (one hotel per trip)",
        "payer": "who pays for an extra: a traveler on the trip, or the company",
        "the company": "the agency's client company as the payer of an extra, not a traveler",
    },
    copy.PT: {
        "extra": "algo acrescentado a uma viagem: hotel, bagagem, seguro, lugar ou refeição",
        "seguro de viagem": "seguro, um extra do tipo insurance",
        "mala": "bagagem, um extra do tipo baggage (malas de porão, bagagem de mão)",
        "alojamento": "uma estadia em hotel, reservada com trip.book_hotel (um hotel por viagem)",
        "quem paga": "o pagador de um extra: um viajante da viagem ou a empresa",
        "a empresa": "a empresa cliente da agência como pagadora de um extra, não um viajante",
    },
}

_TRAVELER = {
    copy.EN: {
        "traveler": "a person the agency books trips for, known by full name and email",
        "passenger": "a traveler listed on an airline manifest",
    },
    copy.PT: {
        "viajante": "uma pessoa para quem a agência reserva viagens (nome completo e email)",
        "passageiro": "um viajante que consta de um manifesto para a companhia aérea",
    },
}

_MANIFEST = {
    copy.EN: {
        "manifest": "the list of passengers of a trip sent to one airline",
        "passenger list": "a manifest",
        "send to the airline": "submit the manifest (manifest.submit), after validating it",
    },
    copy.PT: {
        "manifesto": "a lista de passageiros de uma viagem enviada a uma companhia aérea",
        "lista de passageiros": "um manifesto",
        "enviar à companhia": "submeter o manifesto (manifest.submit), depois de o validar",
    },
}

_GLOSSARIES = {"trip": _TRIP, "traveler": _TRAVELER, "manifest": _MANIFEST}


def glossary_of(workflow: str, locale: str) -> dict[str, str]:
    """Return ``workflow``'s glossary (term → meaning) in ``locale``.

    A locale the sample does not write (``"pt"`` reads as pt-PT, anything else as
    English) gets the English entries; an unknown workflow gets none.
    """
    entries = _GLOSSARIES.get(workflow)
    if entries is None:
        return {}
    if locale.lower().startswith("pt"):
        return dict(entries[copy.PT])
    return dict(entries[copy.EN])
