"""The connected and the refused pages the console lists (overlay/pages.py)."""

from __future__ import annotations

from overlay.pages import REFUSED_KEPT, REFUSED_SHOWN_S, PageRegistry


def test_a_refused_page_is_listed_for_a_minute_after_its_last_attempt() -> None:
    pages = PageRegistry("v1")
    pages.refused("overlay", "secure", "that token does not open the secure channel",
                  "10.0.0.7", 1000.0)
    pages.refused("overlay", "secure", "that token does not open the secure channel",
                  "10.0.0.7", 1005.0)  # its retry: one entry, kept from its last attempt
    listed = pages.refused_summary(1005.0 + REFUSED_SHOWN_S - 1)
    assert listed == [{"page": "overlay", "channel": "secure", "peer": "10.0.0.7",
                       "reason": "that token does not open the secure channel"}]
    assert pages.refused_summary(1005.0 + REFUSED_SHOWN_S + 1) == []  # closed, or fixed


def test_refused_pages_are_bounded_and_named_safely() -> None:
    pages = PageRegistry("v1")
    for n in range(REFUSED_KEPT + 5):
        pages.refused("<script>", f"channel-{n}", "x" * 500, None, 1000.0 + n)
    listed = pages.refused_summary(1000.0 + REFUSED_KEPT + 5)
    assert len(listed) == REFUSED_KEPT
    assert listed[0]["channel"] == f"channel-{REFUSED_KEPT + 4}"  # the latest first
    assert {p["page"] for p in listed} == {"unknown"} and {p["peer"] for p in listed} == {
        "unknown"}
    assert max(len(p["reason"]) for p in listed) == 200
