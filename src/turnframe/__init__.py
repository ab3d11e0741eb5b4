"""Turnframe: the model proposes meaning; deterministic code decides effects; committed events decide claims.

The root package only carries the version. Import the facades you need:
``turnframe.core`` (pure vocabulary), ``turnframe.runtime`` (the turn pipeline),
``turnframe.store`` (persistence), ``turnframe.testing`` (test kit).
"""

__all__ = ["__version__"]

__version__ = "0.1.0.dev0"
