"""Feltcast's engine: cards, hand evaluation, equity, the hand state machine and the event log.

The engine is pure: it does no I/O, reads no clock (time is passed in) and imports nothing
from ``capture`` or ``overlay``.
"""
