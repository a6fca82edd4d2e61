"""Tests of capture/: the RFID protocol, presence tracking, readers, decks, simulator."""
