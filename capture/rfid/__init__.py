"""RFID capture: the native reader protocol, transports, reader coordinators, the antenna map,
presence tracking and deck registration.

Data flows ``bytes -> protocol.Message -> presence.PresenceTracker -> CaptureEvent``; one
:class:`~capture.rfid.reader.ReaderCoordinator` per reader owns that reader's I/O.
"""
