"""Feltcast's service side: the aiohttp app, channels over websockets, OBS control, exports, CLI."""

__version__ = "0.2.0"
"""The one place the version is written: the wheel's metadata and ``feltcast --version``."""
