"""Video export (issue 9): the overlay's graphics burned into footage of the final table.

* :mod:`.timeline`: the table log folded into the view model frame by frame (the engine's
  own :class:`engine.view.TableViewReducer`, full information, no delay);
* :mod:`.render` / :mod:`.draw`: the browser overlay's look, drawn once per picture;
* :mod:`.encode`: reading footage, writing H.264 (ffmpeg) or mp4 (OpenCV), PNG and ProRes 4444;
* :mod:`.clips`: each hand's time codes (CSV, chapters, EDL);
* :mod:`.replay`: a PHH hand history as a timed log, for animated replays;
* :mod:`.export`: the exports themselves (``feltcast export video``).
"""

from __future__ import annotations
