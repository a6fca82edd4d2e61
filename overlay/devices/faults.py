"""Capture faults in words for the operator's alerts, without a card: alerts are public
events (they reach every channel at once), so a message never names a card.

>>> without_cards("reader said As Kd twice")
'reader said ** ** twice'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.capture_events import CaptureFault, FaultKind

__all__ = ["safe_detail", "without_cards"]

_GENERIC: Mapping[FaultKind, str] = {
    FaultKind.DUPLICATE_CARD: "two tags read as the same card{where}: suspected misdeal (R13); "
                              "confirm with Misdeal",
    FaultKind.CROSSTALK: "one tag is read on two antennas at once{where}; move the antennas "
                         "apart or the card away",
    FaultKind.TOO_MANY_CARDS: "too many cards{where}: suspected misdeal (R13); confirm with "
                              "Misdeal",
    FaultKind.CARD_AT_EMPTY_SEAT: "a card{where}, where nobody sits: suspected misdeal (R13)",
}


_CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][shdc](?![A-Za-z0-9])")


def without_cards(text: str) -> str:
    """A message with card codes blanked (alerts are public events)."""
    return _CARD_CODE.sub("**", text)


def safe_detail(fault: CaptureFault) -> str:
    """The fault's message without any card (it goes into a public event)."""
    if not fault.cards or not any(card.code in fault.detail for card in fault.cards):
        return without_cards(fault.detail)
    zones = [str(zone) for zone in fault.zones]
    where = f" ({' and '.join(zones)})" if zones else ""
    template = _GENERIC.get(fault.kind, "{kind}{where}")
    return template.format(where=where, kind=str(fault.kind).replace("_", " "))
