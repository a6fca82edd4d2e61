"""A tournament over several tables: the tournament director's service (``feltcast festival
serve``) and what each table's service asks of it (``docs/festival.md``).

The director's service keeps the festival (:class:`engine.festival.Festival`: the seat
draw, balancing, breaking, hand-for-hand, the final table) as a log of its own in the
festival's PostgreSQL (schema ``festival``, one writer: the lease of :mod:`overlay.store`),
and answers one question, asked by a table's service before it deals: *this table finished
its hand with these stacks; may it deal the next, and who sits where?* The answer seats the
players the festival moved, or refuses with the rule (R24: hand-for-hand, the table waits for
the others). Each question carries an id, so a retry after a crash gets the first answer.
"""
