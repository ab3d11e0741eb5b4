"""The state explorer reaches every state of both workflows and finds nothing wrong."""

from __future__ import annotations

from turnframe.testing.explore import assert_explores

from consent.app import application
from consent.artifact import TERMS_2026_09


def test_the_consent_app_explores() -> None:
    assert_explores(application())


def test_the_consent_app_explores_under_a_later_artifact() -> None:
    assert_explores(application(TERMS_2026_09))
