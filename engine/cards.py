"""Playing cards: parsing, printing and the deck.

A card is written as two characters, rank then suit: ``Ah``, ``Td``, ``7c``. Ranks are
``23456789TJQKA`` and suits ``shdc``; on input ``10`` is accepted for a ten, and ranks and
suits are case-insensitive (``ah``, ``AH``, ``10H``), as are the suit symbols ``♠♥♦♣``.

Each card has a dense integer :attr:`Card.index` from 0 (``2c``) to 51 (``As``):
``index == rank * 4 + suit`` with ranks 0 (deuce) to 12 (ace) and suits ordered
clubs < diamonds < hearts < spades, so comparing cards compares rank and then suit in the
order used for the first-button draw (rule R1: spades > hearts > diamonds > clubs).

>>> Card("Ah")
Card('Ah')
>>> parse_cards("AhKd 10c")
(Card('Ah'), Card('Kd'), Card('Tc'))
>>> Card("Ah").rank, Card("Ah").suit
(12, 2)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar, Final

from engine.errors import DuplicateCardError, InvalidCardError

RANKS: Final = "23456789TJQKA"
"""Rank characters from deuce (rank 0) to ace (rank 12)."""

SUITS: Final = "cdhs"
"""Suit characters from clubs (suit 0) to spades (suit 3)."""

RANK_NAMES: Final = (
    "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    "Jack", "Queen", "King", "Ace",
)
RANK_PLURALS: Final = (
    "Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines", "Tens",
    "Jacks", "Queens", "Kings", "Aces",
)
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")

_SUIT_ALIASES: Final = {
    "c": 0, "d": 1, "h": 2, "s": 3,
    "♣": 0, "♦": 1, "♥": 2, "♠": 3,
    "♧": 0, "♢": 1, "♡": 2, "♤": 3,
}
_RANK_ALIASES: Final = {ch: i for i, ch in enumerate(RANKS)} | {"10": 8}

# One token: a rank (10 or one character) followed by one suit character.
_TOKEN = re.compile(r"(10|[2-9TJQKA])([cdhs♣♦♥♠♧♢♡♤])", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;]+")


class Card:
    """One playing card; an immutable, interned value (``Card('Ah') is Card('ah')``)."""

    __slots__ = ("index", "rank", "suit")

    _interned: ClassVar[dict[int, Card]] = {}

    index: int
    """0 (``2c``) … 51 (``As``): ``rank * 4 + suit``."""
    rank: int
    """0 (deuce) … 12 (ace)."""
    suit: int
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""

    def __new__(cls, code: str) -> Card:
        if isinstance(code, Card):
            return code
        if not isinstance(code, str):
            raise InvalidCardError(f"not a card: {code!r} (expected a code like 'Ah')", str(code))
        match = _TOKEN.fullmatch(code.strip())
        if match is None:
            raise InvalidCardError(_explain(code), code)
        rank = _RANK_ALIASES[match.group(1).upper()]
        suit = _SUIT_ALIASES[match.group(2).lower()]
        return cls.from_index(rank * 4 + suit)

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with dense index ``index`` (0–51)."""
        try:
            return cls._interned[index]
        except KeyError:
            pass
        if not isinstance(index, int) or not 0 <= index < 52:
            raise InvalidCardError(f"card index {index!r} is out of range 0-51", str(index))
        card = object.__new__(cls)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "rank", index >> 2)
        object.__setattr__(card, "suit", index & 3)
        cls._interned[index] = card
        return card

    @property
    def code(self) -> str:
        """The two-character code, e.g. ``'Ah'``."""
        return RANKS[self.rank] + SUITS[self.suit]

    @property
    def rank_char(self) -> str:
        return RANKS[self.rank]

    @property
    def suit_char(self) -> str:
        return SUITS[self.suit]

    @property
    def name(self) -> str:
        """A spoken name: ``'Ace of hearts'``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index


def _explain(token: str) -> str:
    token = token.strip()
    if not token:
        return "empty card code (expected a code like 'Ah')"
    rank, suit = (token[:2], token[2:]) if token.startswith("10") else (token[:1], token[1:])
    if rank.upper() not in _RANK_ALIASES:
        return f"bad card {token!r}: {rank!r} is not a rank (use one of {RANKS}, or 10)"
    if len(suit) != 1 or suit.lower() not in _SUIT_ALIASES:
        return f"bad card {token!r}: {suit!r} is not a suit (use one of s, h, d, c)"
    return f"bad card {token!r} (expected a code like 'Ah')"


def _tokens(text: str) -> Iterator[str]:
    for chunk in _SEPARATORS.split(text.strip()):
        if not chunk:
            continue
        pos = 0
        while pos < len(chunk):
            match = _TOKEN.match(chunk, pos)
            if match is None:
                # Report the rest of the chunk, at most a card's worth, as the bad token.
                rest = chunk[pos:]
                raise InvalidCardError(_explain(rest[:3] if rest.startswith("10") else rest[:2]),
                                       rest)
            yield match.group(0)
            pos = match.end()


def parse_cards(cards: str | Iterable[str | Card], *, distinct: bool = True) -> tuple[Card, ...]:
    """Parse cards from text (``"AhKd"``, ``"Ah Kd"``, ``"Ah,10d"``) or an iterable of codes.

    :raises InvalidCardError: for a token that is not a card; the message names it.
    :raises DuplicateCardError: if ``distinct`` and a card appears twice.
    """
    if isinstance(cards, str):
        parsed = tuple(Card(token) for token in _tokens(cards))
    else:
        parsed = tuple(
            item if isinstance(item, Card) else card
            for item in cards
            for card in (parse_cards(item, distinct=False) if isinstance(item, str) else (item,))
        )
        for card in parsed:
            if not isinstance(card, Card):
                raise InvalidCardError(f"not a card: {card!r}", str(card))
    if distinct:
        ensure_distinct(parsed)
    return parsed


def ensure_distinct(*groups: Iterable[Card]) -> None:
    """Check that no card appears twice across all ``groups``.

    :raises DuplicateCardError: naming the first repeated card.
    """
    seen: set[Card] = set()
    for group in groups:
        for card in group:
            if card in seen:
                raise DuplicateCardError(f"card {card} appears twice", card.code)
            seen.add(card)


def format_cards(cards: Iterable[Card], sep: str = "") -> str:
    """``format_cards([Card('Ah'), Card('Kd')]) == 'AhKd'``."""
    return sep.join(card.code for card in cards)


FULL_DECK: Final[tuple[Card, ...]] = tuple(Card.from_index(i) for i in range(52))
"""All 52 cards in index order (``2c`` … ``As``)."""

# Registration order for decks: by suit (spades, hearts, diamonds, clubs), ace to deuce.
REGISTRATION_ORDER: Final[tuple[Card, ...]] = tuple(
    Card.from_index(rank * 4 + suit) for suit in (3, 2, 1, 0) for rank in range(12, -1, -1)
)
"""The fixed order in which a new deck's cards are scanned: A♠ K♠ … 2♠, A♥ … 2♣."""
