"""Every sentence the app says: receipts by event type, cards, refusals."""

TERMS_RECEIPTS = {
    "en": {
        "terms.accepted": "Recorded your acceptance of {artifact} version {version}, kept until {keep_until}.",
        "terms.withdrawn": "Recorded that you withdrew your acceptance of {artifact} version {version}.",
        "terms.expired": "The acceptance of {artifact} version {version} reached the end of its retention.",
    }
}

BOOKING_RECEIPTS = {
    "en": {
        "booking.booked": "Booked the trip to {destination}.",
        "booking.cancelled": "Cancelled the trip to {destination}.",
    }
}

WORDS = {
    "en": {
        "card.terms.accept": "Accept {artifact} version {version} (SHA-256 {digest})",
        "card.terms.withdraw": "Withdraw your acceptance of {label}",
        "refusal.artifact_changed": "These terms are no longer the published ones: {artifact} is now at version {version}.",
    }
}

GATE = "Booking needs your acceptance of {artifact} version {version} first: say that you accept the terms to see them."
"""The refusal of a gated operation (code ``consent_required``), over the current artifact."""
