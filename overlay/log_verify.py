"""``feltcast log verify``: is this the log as the service wrote it?

The chain (:func:`overlay.store.entry_hash`) is recomputed from the first entry: the first entry
whose stored hash does not follow from the entries before it is named (changed, or an entry
before it removed or moved); a gap in the sequence numbers names the entry removed. Every signed
checkpoint (``log_signature``) must carry a valid Ed25519 signature by the trusted key over the
chain's hash at its entry; a checkpoint beyond the last entry shows that entries were cut off the
end. The trusted key is ``--public-key``, else the data directory's ``log-signing.key``, else
the key of the first checkpoint (trust on first use, said so). ``--head SEQ:HASH`` (what an
export printed) checks that the log still holds that head, and ``--export FILE`` the head that
an exported file carries (:mod:`overlay.export.log_head`): the log holds it when the chain
recomputed from the first entry comes to that hash at that entry, even if the log has grown
since.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from overlay.log_signing import signature_valid
from overlay.store import GENESIS, entry_hash

_CHUNK = 5000


@dataclass(frozen=True, slots=True)
class Verdict:
    """What ``log verify`` found."""

    entries: int
    head: str
    checkpoints: int
    key: str
    key_source: str
    problem: str = ""
    """Empty when the log is intact; else the first problem, naming the entry."""
    head_problem: str = ""
    """With an expected head: empty when the log holds it; else why not, naming the first
    entry that differs (``entry 57 differs``) or the one missing."""

    @property
    def ok(self) -> bool:
        return not self.problem and not self.head_problem


def verify_log(engine: Engine, *, trusted_key: str = "", key_source: str = "",
               expect: tuple[int, str] | None = None) -> Verdict:
    """Walk the chain and the checkpoints of the log in ``engine``'s database."""
    with engine.connect() as conn:
        signatures = conn.execute(sa.text(
            "SELECT seq, hash, key, signature FROM log_signature ORDER BY seq")).all()
    if not trusted_key and signatures:
        trusted_key, key_source = signatures[0][2], "the first checkpoint's (trust on first use)"
    wanted = {int(seq) for seq, *_ in signatures}
    if expect is not None:
        wanted.add(expect[0])
    heads: dict[int, str] = {}
    previous, expected_seq, count = GENESIS, 1, 0
    problem = ""
    broken = ""  # the first entry the chain does not reach as stored, in the head's words
    after = 0
    while not problem:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT seq, time, secrecy, source, kind, payload, hash FROM table_event "
                "WHERE seq > :after ORDER BY seq LIMIT :limit"),
                {"after": after, "limit": _CHUNK}).all()
        if not rows:
            break
        for seq, time, secrecy, source, kind, payload, stored in rows:
            if seq != expected_seq:
                problem = (f"entry {expected_seq} is missing: the log goes from entry "
                           f"{expected_seq - 1} to {seq} (removed)")
                broken = f"entry {expected_seq} is missing"
                break
            computed = entry_hash(previous, seq, time, secrecy, source, kind, payload)
            if computed != stored:
                problem = (f"entry {seq} was changed, or an entry before it was removed or "
                           f"moved: its hash does not follow from the log before it")
                broken = f"entry {seq} differs"
                break
            if seq in wanted:
                heads[seq] = stored
            previous, expected_seq, count = stored, seq + 1, count + 1
        after = rows[-1][0]
    last = expected_seq - 1
    for seq, head, key, signature in signatures if not problem else ():
        if seq > last:
            problem = (f"entries after {last} were removed: a signed checkpoint covers "
                       f"entry {seq}")
        elif key != trusted_key:
            problem = f"the checkpoint at entry {seq} is signed by another key ({key[:16]}…)"
        elif heads.get(seq) != head or not signature_valid(key, head, signature):
            problem = (f"the signed checkpoint at entry {seq} does not match the log: the "
                       f"entries up to it were rewritten")
        if problem:
            break
    head_problem = "" if expect is None else _head_problem(expect, heads, last, broken)
    return Verdict(count, previous, len(signatures), trusted_key, key_source, problem,
                   head_problem)


def _head_problem(expect: tuple[int, str], heads: dict[int, str], last: int,
                  broken: str) -> str:
    """Why the log does not hold the head ``expect`` (``""``: it does). ``heads`` holds the
    chain's hash at the entries wanted, up to ``last``, the last entry that follows from the
    log before it; ``broken`` names the entry after it, if one is there."""
    seq, head = expect
    if seq == 0:
        return "" if head == GENESIS else "entry 0 differs"
    if seq <= last:
        return "" if heads.get(seq) == head else f"entry {seq} differs"
    return broken or f"entry {seq} is not there (the log ends at entry {last})"
