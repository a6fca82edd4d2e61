"""Camera capture: read playing cards with OpenCV from board and hole-card cameras.

The pipeline, one module per step:

- :mod:`.source`: :class:`~.source.CameraConfig` (a camera, its regions of interest and what
  zone each one watches) and :class:`~.source.FrameSource` (frames from a device index, a
  video file or an RTSP/HTTP URL through ``cv2.VideoCapture``);
- :mod:`.geometry`: card outlines, their corners in the printed card's order, rectification;
- :mod:`.deck`: :class:`~.deck.CameraDeck`, the index-corner templates of one physical deck,
  learned from one clear image per card (calibration), saved to a file or the deck registry;
- :mod:`.recognizer`: :class:`~.recognizer.Recognizer`, cards and their codes in one image,
  each with a score; below the threshold the code is ``None`` (a wrong card on air is worse
  than none);
- :mod:`.tracker`: :class:`~.tracker.CardTracker`, per-frame detections in, the same capture
  events as RFID out (:mod:`engine.capture_events`), after K consistent frames.

``cv2`` and ``numpy`` are imported by the submodules, not here.
"""
