"""Conformance: a case row keeps the workflow version that last wrote it.

Part of :class:`turnframe.store.conformance.StoreConformance`
(docs/guides/canary-and-rollback.md "What a case remembers").
"""

from __future__ import annotations

import pytest

from turnframe.store._conformance_base import ConformanceBase
from turnframe.store.base import TurnStore
from turnframe.store.errors import RevisionConflict

__all__ = ["VersionTests"]


class VersionTests(ConformanceBase):
    """The store keeps ``CommitRequest.workflow_version`` on the case row, per commit."""

    def test_a_case_keeps_the_version_of_its_last_commit(self) -> None:
        """Create under one version, update under another, then with none: each is kept."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1", workflow_version="trip/1"))
            row = await store.load_case(case)
            assert row is not None and row.workflow_version == "trip/1"
            await store.commit(
                self.request("k2", expected=1, state={"rev": 2}, workflow_version="trip/2")
            )
            row = await store.load_case(case)
            assert row is not None and (row.revision, row.workflow_version) == (2, "trip/2")
            listed = [r for r in await store.list_cases(self.account) if r.case == case]
            assert [r.workflow_version for r in listed] == ["trip/2"]
            page = await store.list_cases_page(self.account, cases=[case])
            assert [r.workflow_version for r in page.rows] == ["trip/2"]
            page = await store.list_cases_page(self.account, recent=True)
            assert [r.workflow_version for r in page.rows if r.case == case] == ["trip/2"]
            await store.commit(self.request("k3", expected=2, state={"rev": 3}))
            row = await store.load_case(case)
            assert row is not None and (row.revision, row.workflow_version) == (3, None)

        self.run(body)

    def test_a_refused_commit_leaves_the_version_as_it_was(self) -> None:
        """A stale commit under another version changes neither the state nor the version."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1", workflow_version="trip/1"))
            with pytest.raises(RevisionConflict):
                await store.commit(self.request("k2", expected=5, workflow_version="trip/2"))
            row = await store.load_case(case)
            assert row is not None and (row.revision, row.workflow_version) == (1, "trip/1")

        self.run(body)
