"""helpdesk: a Turnframe app with one workflow, ``ticket`` (see README.md).

``application`` is what ``turnframe ... --app helpdesk`` serves.
"""

from helpdesk.app import application

__all__ = ["application"]
