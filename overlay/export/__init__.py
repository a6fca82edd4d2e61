"""Exports for editors of a filmed final table, all derived from the event log.

* :mod:`overlay.export.hands`: the log read back hand by hand (:class:`HandRecord`,
  :func:`read_hands`, :func:`parse_hand_range`);
* :mod:`overlay.export.phh`, :mod:`overlay.export.pokerstars`, :mod:`overlay.export.ohh`:
  one hand as PHH, PokerStars text or Open Hand History JSON;
* :mod:`overlay.export.video`: the overlay graphics burned into footage;
* :mod:`overlay.export.log_head`: the log's chain head that every exported file carries.
"""

from __future__ import annotations
