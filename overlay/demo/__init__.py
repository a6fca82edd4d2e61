"""``feltcast demo``: a simulated final table, live in the browser within a minute.

The whole product runs for real; only the table and the people are simulated:

- a data directory (a fresh temporary one unless ``--data`` is given) with the database, the
  tokens and a registered, active deck of simulated RFID tags;
- a tournament (``[tournament]``): the Feltcast Demo Main Event, nine entrants (the final table
  is the money), a 100,000 EUR prize pool paid by the default table of R23, and a structure of
  three-minute levels with a one-minute break after level 3 (R21), the clock started by the
  operator at the start;
- a nine-handed final table with plausible names, stacks (450,000 chips in play), identities
  (full and display names, countries with their bundled flags) and portraits drawn here (the
  initials on a coloured disc), uploaded through the photo API like any photo;
- the reader simulator (:mod:`capture.simulator`) on a real pseudo-terminal, configured as an
  ordinary serial reader: the service reads it through the same code as a real one;
- a dealer that lays the cards on the antennas with realistic timing (hole cards clockwise,
  a burn card before each street, folded hands to the muck, the table cleared after the hand),
  so that hole and board cards come from capture;
- an automatic operator that plays plausible poker (opens, 3-bets, calls, folds, c-bets, now
  and then an all-in, showdowns) by sending the operator's commands through the real HTTP API
  with the operator token, exactly as the console does; now and then it calls the clock (R12)
  on a player who thinks too long, and it deals no hand during a break;
- a 30 s security delay on the ``delayed`` channel (``--delay``).

It prints the URLs of every page and runs until Ctrl-C (``--hands N`` stops after N hands).
``--speed`` scales every pause (the presence debounce of the readers is real time and is never
scaled); the tournament clock keeps the table's pace: at ``--speed F`` the operator takes away,
before each hand, the time the table saved (``adjust_clock``), so a level lasts about 3/F
minutes. When one player has all the chips the tournament is over: the demo stops dealing and
the pages stay up until Ctrl-C.

The room: :mod:`.show` (the table, players, tournament and options: the configuration, the
deck, the portraits), :mod:`.operator` (the dealer and the automatic operator, on the HTTP
API), :mod:`.run` (the service, the addresses printed, Ctrl-C).
"""
