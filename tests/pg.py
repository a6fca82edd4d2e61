"""A real, throwaway PostgreSQL server for tests (:mod:`overlay.demo.servers`, which
``feltcast demo --festival`` starts too)."""

from __future__ import annotations

from overlay.demo.servers import PostgresServer, ThrowawayServer, find_binary, free_port

__all__ = ["PostgresServer", "ThrowawayServer", "find_binary", "free_port"]
