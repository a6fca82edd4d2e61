"""The table's devices in the service: RFID readers (:mod:`.capture_bridge`), cameras
(:mod:`.camera_bridge`, :mod:`.camera_config`), deck registration (:mod:`.deck_desk`) and OBS
Studio (:mod:`.obs`). ``overlay.app.device_report`` gathers their entries for the operator
view (``capture``, ``decks``, ``obs``) and their :class:`overlay.alerts.Alert` s for its
``alerts``. A common device protocol with its own change signal is not there yet (issue 16,
step 4)."""
