"""The page views of a configured table: one production view reducer per channel.

:func:`view_reducers` builds, for each channel, the :class:`engine.view.TableViewReducer` the
pages' view comes from (``docs/view-model.md``), with the configuration's table name, number of
seats, blind structure (R21) and tournament settings, and one equity cache shared by the
table's channels (the secure, operator and delayed channels ask for the same equities). What
the service's hubs draw, ``feltcast log show --view`` prints and the leak test
(``tests/overlay/test_leak.py``) checks is therefore one and the same view.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.channels import ChannelSpec
from engine.view import EquityCache, TableViewReducer, reducer_for
from overlay.config import Config

__all__ = ["EQUITY_CACHE_SIZE", "view_reducers"]

EQUITY_CACHE_SIZE = 1024
"""Equity results kept per table (least recently used dropped first)."""


def view_reducers(config: Config, specs: Iterable[ChannelSpec],
                  ) -> dict[str, TableViewReducer]:
    """The view reducer of each channel in ``specs``, by name (the channel named
    ``operator`` gets the operator object, see :func:`engine.view.reducer_for`)."""
    equities = EquityCache(EQUITY_CACHE_SIZE)
    return {spec.name: reducer_for(spec, table_name=config.table.name,
                                   seats=config.table.seats, structure=config.structure,
                                   equity_cache=equities, tournament=config.tournament_settings)
            for spec in specs}
