"""consent: bookings gated on the traveller's acceptance of the current terms (see README.md).

``application`` is what ``turnframe ... --app consent`` serves.
"""

from consent.app import application

__all__ = ["application"]
