"""Feltcast's service side: the aiohttp app, channels over websockets, OBS control, exports, CLI."""
