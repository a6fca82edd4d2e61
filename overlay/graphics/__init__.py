"""The look of the on-air pages: themes, logo and sponsors (``docs/graphics.md``).

* :mod:`overlay.graphics.themes`: a theme folder read and checked into a :class:`Theme`.
* :mod:`overlay.graphics.desk`: what is on air now (the chosen theme, logo and sponsors), the
  producer's changes from the console, and the pages told of each change without a reload.
* :mod:`overlay.graphics.web`: the HTTP side (``/api/graphics``, ``/graphics/...``).
"""
