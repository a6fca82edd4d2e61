"""The table's devices in the service: RFID readers (:mod:`.capture_bridge`), cameras
(:mod:`.camera_bridge`, :mod:`.camera_config`), deck registration (:mod:`.deck_desk`) and OBS
Studio (:mod:`.obs`). Each reports through the same shape: entries for the operator view's
``capture`` list or ``obs`` object, :class:`overlay.alerts.Alert` s for its ``alerts``, and a
change that makes the service report its devices again (``overlay/app.py``,
``device_report``)."""
