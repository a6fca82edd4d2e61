"""A real, throwaway Redis server for tests (:mod:`overlay.demo.servers`, which ``feltcast
demo --festival`` starts too): skipped locally, a failure under CI, when redis-server is not
installed."""

from __future__ import annotations

from overlay.demo import servers
from overlay.demo.servers import redis_installed
from tests.system_packages import missing_system_package

__all__ = ["RedisServer", "redis_installed"]


class RedisServer(servers.RedisServer):
    """``with RedisServer() as redis: redis.url`` -> a ``redis://`` URL."""

    def __init__(self) -> None:
        if not redis_installed():
            missing_system_package("redis-server is not installed (Debian package "
                                   "redis-server)")
        super().__init__()
