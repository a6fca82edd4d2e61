"""The ``tournament`` object of every channel's view (``docs/view-model.md``).

:class:`TournamentView` is the tournament half of :class:`engine.view.TableViewReducer`: it
folds the same released :class:`~engine.channels.ChannelItem` s, so it respects the channel's
delay by construction (a bust-out, a prize, a stack correction or a clock change is news on a
channel only when that channel releases it). It draws:

* ``clock``: the tournament clock (:class:`engine.clock.TournamentClock` replayed from the
  clock events this channel released) as ``remaining`` seconds at ``as_of``. ``as_of`` is in
  the channel's *display time* (log time + the channel's delay), so a page counts down with
  its own wall clock: ``remaining - (now - as_of)`` while ``running``. ``remaining`` and
  ``as_of`` are taken at the start of the current period (or at the last clock event, if
  later): they change only when the clock changes state, so patches stay small. Before the
  clock is started it shows the table's level, ``running`` false, ``remaining`` the level's
  full time and ``as_of`` null;
* ``action_clock``: the R12 clock when called (``ends_at`` in display time), else null;
* ``field``, ``players``: stacks as of the last finished hand (a leaderboard does not move
  while chips are in the middle), chip share, stack in big blinds, rank, and the prize a
  player has locked up (``prize_so_far``: the prize of the lowest place still to be decided);
* ``eliminations`` (the newest :data:`ELIMINATIONS_SHOWN`, oldest first; ``eliminated`` counts
  them all) and ``payouts``: from the channel's ``player_eliminated`` and ``prize_awarded``
  events (R22, R23; a disqualification moves players up);
* ``icm``: Malmuth-Harville prize equity from the same stacks (public: stacks are);
* ``allin``: at an all-in showdown, every outcome's probability and prize equities
  (:func:`engine.icm.allin_outcomes`). It uses hole cards, so it is secret by construction:
  it is drawn only when this channel knows every hand in the pot (null otherwise);
* ``stats`` and ``ticker``: session statistics per player and the last hand's ticker line
  (:mod:`engine.stats`), from the hands this channel has seen.

Player identity (name, display name, country, photo) comes from
:class:`engine.identity.PlayerIdentified` events; without one a player's name and display name
are the table's name of him.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from engine.cards import Card
from engine.clock import ACTION_CLOCK_COUNTDOWN, CLOCK_EVENTS, ActionClock, TournamentClock
from engine.errors import FeltcastError
from engine.events import ActionTaken, HandEnded, HandStarted, HandVoided, PlayerEliminated
from engine.field import Field
from engine.hand import Hand
from engine.icm import MAX_PLAYERS, allin_outcomes, icm
from engine.identity import Identity, PlayerIdentified
from engine.payouts import PayoutTable, default_payouts
from engine.pots import Pot
from engine.stats import PlayerStats, hand_stats, merge_stats, ticker_line
from engine.stories import PlayerStory, hand_stories, merge_stories
from engine.table_events import ClockCalled, ClockStopped, PlayerSeated, SeatEmptied
from engine.tournament import DEFAULT_STRUCTURE, Structure
from engine.tournament_events import PlayerDisqualified, PrizeAwarded, StackCorrected

__all__ = ["ELIMINATIONS_SHOWN", "TournamentSettings", "TournamentState", "TournamentView"]

ELIMINATIONS_SHOWN: Final = 50
"""The view's ``eliminations``: the newest this many (``eliminated`` counts them all)."""

@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """What the configuration says about the tournament (``[tournament]``)."""

    name: str = ""
    entrants: int = 0
    """0: the number of players seen at the table."""
    prize_pool: int = 0
    currency: str = ""
    payouts: PayoutTable | None = None
    """None: R23's default table by field size (when there is a prize pool)."""

    def prizes(self, entrants: int) -> tuple[int, ...]:
        """The prizes of the paid places, place 1 first (empty without a prize pool)."""
        return _prizes(self, entrants)

    def _compute_prizes(self, entrants: int) -> tuple[int, ...]:
        if self.prize_pool <= 0 and (self.payouts is None or not self.payouts.amounts):
            return ()
        table = self.payouts
        try:
            if table is None:
                table = default_payouts(max(entrants, 2))
            return table.prizes(self.prize_pool or None)
        except FeltcastError:
            return ()


@lru_cache(maxsize=64)
def _prizes(settings: TournamentSettings, entrants: int) -> tuple[int, ...]:
    return settings._compute_prizes(entrants)


@dataclass(slots=True)
class _Out:
    seat: int
    name: str
    place: int
    hand: int
    prize: int | None = None
    identity: Identity | None = None
    disqualified: bool = False
    eliminated: bool = True
    """False for the winner (a place and a prize, no elimination)."""

    def __reduce__(self) -> tuple[type[_Out], tuple[Any, ...]]:
        # A checkpoint pickles every channel's list of these on the event loop: as a plain
        # tuple, about four times faster than the slots state dataclasses make.
        return (_Out, (self.seat, self.name, self.place, self.hand, self.prize, self.identity,
                       self.disqualified, self.eliminated))


@dataclass(frozen=True, slots=True)
class _HandNews:
    """What one finished hand adds: statistics, story lines, the ticker line."""

    stats: Mapping[str, PlayerStats] = field(default_factory=dict)
    stories: Mapping[str, PlayerStory] = field(default_factory=dict)
    ticker: str | None = None


@dataclass(slots=True)
class TournamentState:
    """What one channel knows of the tournament (mutable, owned by one reducer)."""

    clock: TournamentClock
    """The tournament clock replayed from the clock events this channel released."""
    action_clock: ActionClock | None = None
    """R12: the clock called on a player (called at log time)."""
    identities: dict[int, Identity] = field(default_factory=dict)
    out: list[_Out] = field(default_factory=list)
    """Eliminated (and disqualified) players, in the order the channel learnt of them."""
    eliminated: int = 0
    """How many of :attr:`out` are eliminated and not disqualified (kept as they change)."""
    settled: int = 0
    """How many of :attr:`out` are not disqualified (the winner's place included)."""
    seen: set[str] = field(default_factory=set)
    """Names of every player seen at the table (the field when no entrant count is set)."""
    ticker: str | None = None
    stats: dict[str, PlayerStats] = field(default_factory=dict)
    """The session statistics by the table's name of a player (:mod:`engine.stats`)."""
    stories: dict[str, PlayerStory] = field(default_factory=dict)
    """The booth's story lines by the table's name of a player (:mod:`engine.stories`)."""
    current: tuple[tuple[Any, ...], _HandNews] | None = None
    """The cached statistics, story lines and ticker line of the finished current hand."""
    out_from: int = 0
    """Where the current hand's eliminations start in :attr:`out`."""
    version: int = 0
    """Counts the tournament events taken (the drawn standing is cached by it)."""
    memo: tuple[Any, dict[str, Any]] | None = None


class TournamentView:
    """Folds released items into a :class:`TournamentState` and draws the ``tournament``
    object (see the module docstring). ``delay`` is the channel's delay in seconds."""

    def __init__(self, *, structure: Structure = DEFAULT_STRUCTURE, delay: float = 0.0,
                 settings: TournamentSettings | None = None) -> None:
        self.structure = structure
        self.delay = delay
        self.settings = settings or TournamentSettings()

    def initial(self) -> TournamentState:
        return TournamentState(TournamentClock(self.structure))

    # --- applying --------------------------------------------------------------------------

    def apply(self, state: TournamentState, payload: Any, time: float) -> None:
        """Take one released payload logged at ``time`` (anything not about the tournament
        is ignored)."""
        if isinstance(payload, _STANDING_EVENTS):
            state.version += 1
        if isinstance(payload, CLOCK_EVENTS):
            # The service logs only legal clock events; a bad log keeps the clock as it was.
            with suppress(FeltcastError):
                state.clock = state.clock.apply(payload)
        elif isinstance(payload, ClockCalled):
            state.action_clock = ActionClock(payload.seat, time, payload.seconds)
        elif isinstance(payload, ClockStopped) or (
                isinstance(payload, ActionTaken) and state.action_clock is not None
                and payload.seat == state.action_clock.seat):
            state.action_clock = None  # withdrawn, or the player acted (R12)
        elif isinstance(payload, PlayerIdentified):
            state.identities[payload.seat] = Identity.of(payload)
        elif isinstance(payload, SeatEmptied):
            state.identities.pop(payload.seat, None)
            state.action_clock = None
        elif isinstance(payload, PlayerSeated):
            state.seen.add(payload.name)
        elif isinstance(payload, HandStarted):
            state.seen.update(payload.names)
            state.action_clock = None
        elif isinstance(payload, PlayerEliminated):
            # The seat's identity goes with the player (a new player there has none).
            _add(state, _Out(payload.seat, payload.name, payload.place, payload.hand_number,
                             identity=state.identities.pop(payload.seat, None)))
        elif isinstance(payload, PrizeAwarded):
            entry = self._out_of(state, payload.name)
            if entry is None:  # the winner, or a place logged before the bust reached us
                seat = payload.seat
                entry = _add(state, _Out(seat, payload.name, payload.place,
                                         payload.hand_number,
                                         identity=state.identities.get(seat),
                                         eliminated=False))
            entry.place, entry.prize = payload.place, payload.prize
        elif isinstance(payload, PlayerDisqualified):
            entry = self._out_of(state, payload.name)
            if entry is None:
                entry = _add(state, _Out(payload.seat, payload.name, 0, 0,
                                         identity=state.identities.get(payload.seat)))
            _count(state, entry, -1)
            entry.disqualified, entry.prize = True, 0
            state.identities.pop(payload.seat, None)
        elif isinstance(payload, HandEnded | HandVoided):
            state.action_clock = None

    def hand_finished(self, state: TournamentState, hand: Hand) -> None:
        """``hand`` is final on this channel (the next one started): its statistics join the
        session's. A void hand counts for nothing (R13)."""
        news = self._hand_stats(state, hand)
        state.stats = merge_stats(state.stats, news.stats)
        state.stories = merge_stories(state.stories, news.stories)
        state.ticker = news.ticker or state.ticker
        state.current = None
        state.out_from = len(state.out)  # the next hand's eliminations come after these

    def _hand_stats(self, state: TournamentState, hand: Hand) -> _HandNews:
        """A finished hand's statistics, story lines and ticker line (with its eliminations
        as this channel knows them); cached while they stay the same (an undo can take the
        hand's end back)."""
        number = hand.hand_number
        out = tuple(PlayerEliminated(o.seat, o.name, o.place, o.hand)
                    for o in state.out[state.out_from:]
                    if o.hand == number and o.eliminated and not o.disqualified)
        key = (id(hand), len(hand.events), len(hand.effective_events), hand.is_over, out)
        if state.current is not None and state.current[0] == key:
            return state.current[1]
        news = _HandNews()
        if hand.is_over:
            events = hand.effective_events
            # Statistics are commentary: a hand they cannot read never stops a view.
            # The line names the players as every graphic does (their display names).
            shown = {seat: ident.display_name for seat, ident in state.identities.items()}
            shown.update({o.seat: o.identity.display_name for o in state.out[state.out_from:]
                          if o.hand == number and o.identity is not None})
            with suppress(FeltcastError, ValueError):
                news = _HandNews(hand_stats(events), hand_stories(events),
                                 ticker_line(events, out, shown) or None)
        state.current = (key, news)
        return news

    @staticmethod
    def _out_of(state: TournamentState, name: str) -> _Out | None:
        for entry in reversed(state.out):
            if entry.name == name:
                return entry
        return None

    # --- drawing ---------------------------------------------------------------------------

    def snapshot(self, state: TournamentState, *, now: float | None,
                 stacks: Mapping[int, tuple[str, int]], big_blind: int | None,
                 level_number: int | None, hand: Hand | None = None,
                 allin: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``tournament`` object. ``now`` is the log time of the last released item,
        ``stacks`` the seated players (seat -> (table name, chips)) as of the last finished
        hand, ``big_blind`` and ``level_number`` the table's level."""
        alive = {seat: v for seat, v in stacks.items() if v[1] > 0}
        over = hand is not None and hand.is_over
        # Everything but the clocks and the all-in changes only with the roster, the level
        # or a tournament event: drawn once per change and shared by the views until then
        # (views are never mutated: the hub diffs and serialises them).
        key = (state.version, tuple(sorted(alive.items())), big_blind,
               (id(hand), len(hand.effective_events)) if over and hand is not None else None)
        if state.memo is None or state.memo[0] != key:
            state.memo = (key, self._standing(state, alive, big_blind,
                                              hand if over else None))
        view = dict(state.memo[1])
        view.update(clock=self._clock(state, now, level_number),
                    action_clock=self._action_clock(state), allin=allin)
        return view

    def _standing(self, state: TournamentState, alive: Mapping[int, tuple[str, int]],
                  big_blind: int | None, hand: Hand | None) -> dict[str, Any]:
        """The parts of the object that follow the roster and the tournament's events."""
        settings = self.settings
        entrants = settings.entrants or max(len(state.seen), len(alive) + state.settled)
        prizes = settings.prizes(entrants)
        remaining = len(alive)
        stats, stories, ticker = state.stats, state.stories, state.ticker
        chips = Field.of({s: v[1] for s, v in alive.items()}, big_blind=big_blind or 0,
                         entrants=entrants or None)
        if hand is not None:
            news = self._hand_stats(state, hand)
            stats, ticker = merge_stats(stats, news.stats), news.ticker or ticker
            stories = merge_stories(stories, news.stories)
        return {
            "name": settings.name or None,
            "clock": None,
            "action_clock": None,
            "field": chips.to_dict(),
            "players": self._players(state, alive, chips, prizes),
            "eliminations": self._eliminations(state),
            "eliminated": state.eliminated,
            "payouts": self._payouts(state, prizes, alive),
            "icm": _icm(alive, prizes[:remaining]) if prizes and remaining else None,
            "allin": None,
            "stats": _stats_view(stats, alive),
            "stories": _stories_view(stories, alive),
            "ticker": ticker,
        }

    def _clock(self, state: TournamentState, now: float | None,
               level_number: int | None) -> dict[str, Any]:
        clock = state.clock
        if not clock.started or now is None:
            number = level_number or 1
            number = min(max(number, 1), len(self.structure.levels))
            level = self.structure.level(number)
            nxt = (self.structure.level(number + 1)
                   if number < len(self.structure.levels) else None)
            # A hand of no known level (a hand history replayed) has no next level.
            upcoming = _level(nxt) if level_number else None
            return {"level": number, "small_blind": level.small_blind,
                    "big_blind": level.big_blind, "ante": level.ante, "is_break": False,
                    "running": False, "started": False,
                    "remaining": None if nxt is None else float(level.minutes * 60),
                    "as_of": None, "name": level.describe(), "next": upcoming}
        moment = now if clock.running else clock.anchor
        if clock.running:
            period, into = clock.position(moment)
            start = moment - into
            # The start of the current period, or the last clock event when it is later
            # (``into`` is negative when time was added: the anchor is the reference then).
            moment = clock.anchor if into < 0 or start < clock.anchor else start
            if clock.position(moment)[0] != period:
                # Rounding put the period's start a hair before it (wall times are about 2e9
                # seconds): a few microseconds on, it has begun; shown, nothing changes.
                moment += _BOUNDARY_SLACK
        view = clock.status(moment).to_dict()
        remaining = view["remaining"]
        view["remaining"] = None if remaining is None else round(float(remaining), 3)
        view["as_of"] = round(moment + self.delay, 3)
        return view

    def _action_clock(self, state: TournamentState) -> dict[str, Any] | None:
        if state.action_clock is None:
            return None
        clock = state.action_clock
        ends = clock.ends_at + self.delay
        return {"seat": clock.seat, "ends_at": round(ends, 3),
                "countdown_at": round(ends - ACTION_CLOCK_COUNTDOWN, 3)}

    def _players(self, state: TournamentState, alive: Mapping[int, tuple[str, int]],
                 chips: Field, prizes: Sequence[int]) -> list[dict[str, Any]]:
        locked = prizes[len(alive) - 1] if 0 < len(alive) <= len(prizes) else 0
        out = []
        for player in chips.players():
            name = alive[player.seat][0]
            out.append({
                "seat": player.seat, **_who(state.identities.get(player.seat), name),
                "table_name": name, "stack": player.stack, "in_bb": player.in_big_blinds,
                "share": round(player.share, 4), "rank": player.rank,
                "prize_so_far": locked if prizes else None,
            })
        return out

    def _eliminations(self, state: TournamentState) -> list[dict[str, Any]]:
        """The newest :data:`ELIMINATIONS_SHOWN` eliminations, oldest first: a view (and
        every patch that adds a bust-out) stays the same size however many players went."""
        newest: list[dict[str, Any]] = []
        for entry in reversed(state.out):
            if len(newest) == ELIMINATIONS_SHOWN:
                break
            if entry.eliminated and not entry.disqualified:
                newest.append(self._elimination(entry))
        newest.reverse()
        return newest

    @staticmethod
    def _elimination(entry: _Out) -> dict[str, Any]:
        return {"seat": entry.seat, "place": entry.place, **_who(entry.identity, entry.name),
                "table_name": entry.name, "prize": entry.prize, "hand": entry.hand or None}

    def _payouts(self, state: TournamentState, prizes: Sequence[int],
                 alive: Mapping[int, tuple[str, int]]) -> dict[str, Any] | None:
        if not prizes:
            return None
        names: dict[int, str] = {}
        for entry in state.out:
            if not entry.disqualified and entry.place >= 1:
                ident = entry.identity
                names[entry.place] = ident.display_name if ident else entry.name
        places = [{"place": p, "prize": prize, "name": names.get(p),
                   "jump": prize - (prizes[p] if p < len(prizes) else 0)}
                  for p, prize in enumerate(prizes, 1)]
        return {"prize_pool": sum(prizes), "currency": self.settings.currency or None,
                "places": places, "paid": len(prizes), "remaining": len(alive)}


# --- helpers ------------------------------------------------------------------------------


_STANDING_EVENTS = (PlayerIdentified, SeatEmptied, PlayerSeated, HandStarted, PlayerEliminated,
                    PrizeAwarded, PlayerDisqualified, StackCorrected, HandEnded, HandVoided)
"""Events that change the drawn standing (names, places, prizes, statistics)."""


def _add(state: TournamentState, entry: _Out) -> _Out:
    state.out.append(entry)
    _count(state, entry, 1)
    return entry


def _count(state: TournamentState, entry: _Out, sign: int) -> None:
    """Count ``entry`` in (``sign`` 1) or out of (-1) the state's tallies."""
    if not entry.disqualified:
        state.settled += sign
        state.eliminated += sign if entry.eliminated else 0


def _who(identity: Identity | None, table_name: str) -> dict[str, Any]:
    """A player's name, display name, country and photo: his identity, or else the table's
    name of him."""
    return (identity or Identity(table_name, table_name)).to_view()


def _level(level: Any) -> dict[str, Any] | None:
    if level is None:
        return None
    return {"level": level.number, "small_blind": level.small_blind,
            "big_blind": level.big_blind, "ante": level.ante}


def _icm(alive: Mapping[int, tuple[str, int]], prizes: Sequence[int],
         ) -> dict[str, float] | None:
    if not alive or len(alive) > MAX_PLAYERS:
        return None
    seats = sorted(alive)
    equities = _icm_cached(tuple(alive[s][1] for s in seats), tuple(prizes))
    if equities is None:
        return None
    return {str(seat): round(value, 2) for seat, value in zip(seats, equities, strict=True)}


@lru_cache(maxsize=256)
def _icm_cached(stacks: tuple[int, ...], prizes: tuple[int, ...]) -> tuple[float, ...] | None:
    try:
        return icm(stacks, prizes)
    except FeltcastError:
        return None


def _stats_view(stats: Mapping[str, PlayerStats], seated: Mapping[int, tuple[str, int]],
                ) -> dict[str, Any] | None:
    """Statistics of the seated players by seat (JSON keys are strings)."""
    out: dict[str, Any] = {}
    for seat, (name, _) in sorted(seated.items()):
        counts = stats.get(name)
        if counts is not None:
            out[str(seat)] = {key: round(value, 4) if isinstance(value, float) else value
                              for key, value in counts.to_dict().items()}
    return out or None


def _stories_view(stories: Mapping[str, PlayerStory], seated: Mapping[int, tuple[str, int]],
                  ) -> dict[str, Any] | None:
    """Story lines of the seated players by seat (JSON keys are strings)."""
    out = {str(seat): stories[name].to_dict()
           for seat, (name, _) in sorted(seated.items()) if name in stories}
    return out or None


def roster_change(payload: object) -> tuple[int, int | None] | None:
    """How a tournament event changes the seated players: ``(seat, new stack)`` for a stack
    correction, ``(seat, None)`` for a disqualification (his chips leave play), else None."""
    if isinstance(payload, StackCorrected):
        return payload.seat, payload.stack
    if isinstance(payload, PlayerDisqualified):
        return payload.seat, None
    return None


def allin_view(hand: Hand, cards: Mapping[int, tuple[Card | None, ...] | None],
               stacks: Mapping[int, tuple[str, int]], settings: TournamentSettings,
               state: TournamentState) -> dict[str, Any] | None:
    """The ``allin`` object while the cards run out of an all-in (nobody left to act, a
    live player all in), or None. Needs every live hand known on this channel (secret by
    construction) and a prize pool. Every remaining board is counted exactly, pre-flop
    multi-way all-ins included (tens of milliseconds: :mod:`engine.icm`), once per change of
    the hand (the view caches it)."""
    live = hand.live_seats
    if len(live) < 2 or not any(hand.stack(seat) == 0 for seat in live):
        return None
    known = known_hands(hand, cards)
    if known is None:
        return None
    seats = tuple(sorted(s for s, (_, chips) in stacks.items() if chips > 0))
    if not set(hand.seats) <= set(seats) or not 2 <= len(seats) <= MAX_PLAYERS:
        return None
    entrants = settings.entrants or max(len(state.seen), len(seats))
    prizes = settings.prizes(entrants)
    if not prizes:
        return None
    paid = tuple(prizes[:len(seats)]) + (0,) * max(0, len(seats) - len(prizes))
    in_hand = set(hand.seats)
    now = tuple(hand.stack(s) if s in in_hand else stacks[s][1] for s in seats)
    start = tuple(stacks[s][1] for s in seats)
    pots = tuple((pot.amount, tuple(pot.seats)) for pot in hand.pots())
    hole = tuple((seat, _codes(known[seat])) for seat in sorted(known))
    dead = tuple(sorted(c.code for seat in hand.seats if seat not in known
                        for c in (cards.get(seat) or ()) if c is not None))
    chip_unit = hand.started.chip_unit if hand.started else 1
    return _allin_cached(seats, now, start, pots, hole, paid, _codes(hand.board), dead,
                         chip_unit)


@lru_cache(maxsize=64)
def _allin_cached(seats: tuple[int, ...], stacks: tuple[int, ...], start: tuple[int, ...],
                  pots: tuple[tuple[int, tuple[int, ...]], ...],
                  hole: tuple[tuple[int, tuple[str, ...]], ...], prizes: tuple[int, ...],
                  board: tuple[str, ...], dead: tuple[str, ...], chip_unit: int
                  ) -> dict[str, Any] | None:
    try:
        result = allin_outcomes(
            seats=seats, stacks=stacks, start_stacks=start,
            pots=[Pot(amount, pot_seats) for amount, pot_seats in pots],
            hands={seat: tuple(Card(c) for c in codes) for seat, codes in hole},
            prizes=prizes, board=tuple(Card(c) for c in board),
            dead=tuple(Card(c) for c in dead), chip_unit=chip_unit)
    except (FeltcastError, NotImplementedError):
        return None
    view = result.to_dict()
    for key in ("chip_equity", "expected_stacks", "equity_before", "expected_equity"):
        view[key] = [round(float(v), 4) for v in view[key]]
    for outcome in view["outcomes"]:
        outcome["probability"] = round(float(outcome["probability"]), 6)
        outcome["equity"] = [round(float(v), 2) for v in outcome["equity"]]
    return view


_BOUNDARY_SLACK = 1e-5
"""Seconds past a period's computed start at which the clock is read (see ``_clock``)."""


def _codes(cards: Sequence[Card]) -> tuple[str, ...]:
    return tuple(c.code for c in cards)


def known_hands(hand: Hand, cards: Mapping[int, tuple[Card | None, ...] | None],
                ) -> dict[int, tuple[Card, ...]] | None:
    """Every live seat's two cards as this channel knows them, or None if any is unknown."""
    out: dict[int, tuple[Card, ...]] = {}
    for seat in hand.live_seats:
        hole = cards.get(seat)
        if hole is None or len(hole) != 2 or any(c is None for c in hole):
            return None
        out[seat] = tuple(c for c in hole if c is not None)
    return out

