"""Property: any ``after`` text is either a position a store can seek or a typed refusal.

A cursor is opaque text a caller hands back; a forged one (too long for the stores'
64-bit position column, or past ``int()``'s digit limit) must be refused with
:class:`~turnframe.store.search.BadPageRequest` before any store reads
(docs/architecture.md "Stores").
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from turnframe.store.search import MAX_POSITION, BadPageRequest, check_page

_CURSORS = st.one_of(
    st.text(),
    st.text(alphabet="0123456789", min_size=1, max_size=6000),
    st.integers(min_value=0, max_value=2**70).map(str),
)


@given(after=_CURSORS)
def test_any_cursor_is_a_seekable_position_or_bad_page_request(after: str) -> None:
    """``check_page`` answers a position in ``0..MAX_POSITION`` or raises BadPageRequest."""
    try:
        start = check_page(1, after)
    except BadPageRequest as refused:
        assert "after" in str(refused)
        assert len(str(refused)) < 200  # a forged cursor is not echoed whole
    else:
        assert 0 <= start <= MAX_POSITION
        assert str(start) == after.lstrip("0") or (start == 0 and set(after) == {"0"})
