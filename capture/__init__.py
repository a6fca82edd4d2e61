"""Feltcast's capture side: RFID readers, cameras and the reader simulator.

Capture turns hardware into capture events ("card Ah seen at seat 3"); it knows nothing about
betting. It depends on ``engine`` (cards, events), never on ``overlay``.
"""
