"""The sample's static airline table: names and baggage allowances.

See docs/samples/travel.md "Questions".

Illustrative figures for the demo, not any airline's current policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from turnframe.core import fast_init

__all__ = ["AIRLINES", "Airline"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Airline:
    """One airline of the table (docs/samples/travel.md "Questions").

    Attributes:
        code: the IATA code, e.g. ``"TP"``.
        name: the airline's name.
        cabin_kg: the cabin bag allowance, in kilograms.
        checked_kg: the included checked bag, in kilograms; ``None`` when none is included.
    """

    code: str
    name: str
    cabin_kg: int
    checked_kg: int | None


AIRLINES: dict[str, Airline] = {
    a.code: a
    for a in (
        Airline(code="TP", name="TAP Air Portugal", cabin_kg=8, checked_kg=23),
        Airline(code="LH", name="Lufthansa", cabin_kg=8, checked_kg=23),
        Airline(code="BA", name="British Airways", cabin_kg=23, checked_kg=23),
        Airline(code="FR", name="Ryanair", cabin_kg=10, checked_kg=None),
        Airline(code="U2", name="easyJet", cabin_kg=15, checked_kg=None),
    )
}
"""IATA code → :class:`Airline`, in a stable order."""
