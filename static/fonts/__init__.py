"""Inter (LICENSE-Inter.txt): the pages' and exports' type, and the card art's
(:mod:`capture.camera.cardart`). A wheel installs this folder as ``overlay.static.fonts`` and
again as ``capture.camera.fonts``, so that capture needs nothing from the service."""
