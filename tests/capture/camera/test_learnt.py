"""The deck's own rank and suit discriminants: learnt at calibration from its indexes seen as a
camera might, they tell fresh views of its ranks and suits apart, and the recogniser never names
a card they dispute."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from capture.camera.deck import CameraDeck, index_features, normalise
from capture.camera.learnt import Discriminant, learn_discriminant, normalised
from capture.camera.recognizer import Recognizer, _Read
from capture.camera.suitcheck import Jitter, camera_views
from engine.cards import Card

from .conftest import calibrated
from .test_recognizer import grid
from .test_suitcheck import MARGIN, index_patch


@pytest.fixture(scope="module")
def club_classic() -> CameraDeck:
    """The development deck with the smallest index."""
    return calibrated("club-classic")


READABLE = Jitter(blur=2.0, streak=7.0, small=0.6, turn=3.0, jpeg=(70, 95))
"""A camera view of a card that can be read: softer, smeared less and seen larger than the
worst views the deck learns from (at a third of the template's size with JPEG and noise, a
tenth of those lean the wrong way)."""


def fresh_views(deck: CameraDeck, style_name: str, seed: int, per_card: int = 6,
                jitter: Jitter = READABLE) -> tuple[np.ndarray, np.ndarray]:
    """Camera views (not those the deck learnt from) of every card of the style:
    ``(n, 3, h, w)`` features and the cards' numbers."""
    rng = np.random.default_rng(seed)
    views, labels = [], []
    for index in range(52):
        patch = index_patch(deck, Card.from_index(index), style_name)
        views += [index_features(view) for view in
                  camera_views(patch, rng, per_card, margin=MARGIN, jitter=jitter)]
        labels += [index] * per_card
    return np.stack(views), np.array(labels)


def test_the_deck_discriminants_read_fresh_camera_views_the_templates_misread(
        club_classic: CameraDeck) -> None:
    """Fresh views of club-classic (the smallest development index), a pixel or so off,
    turned a little, soft, small and compressed: its rank and suit discriminants name the
    right rank and suit of at least nine in ten, where its templates, matched at the same
    place, name the right card of barely half (the recogniser's shift search makes up part
    of that, not all: hence the discriminants' vouching in ``Recognizer._decide``)."""
    assert club_classic.learnt is not None
    features, labels = fresh_views(club_classic, "club-classic", seed=11)
    split = club_classic.split
    for found, rows, truth in ((club_classic.learnt.rank, features[:, :, :split], labels >> 2),
                               (club_classic.learnt.suit, features[:, :, split:], labels & 3)):
        values = normalised(rows) @ found.weights.reshape(found.classes, -1).T + found.bias
        assert np.mean(np.argmax(values, axis=1) == truth) >= 0.9
        leans = np.array([found.lean(v, int(t)) for v, t in zip(values, truth, strict=True)])
        assert np.mean(leans > 0) >= 0.9
    templates = club_classic.templates
    by_rank = normalise(templates[:, :, :split])
    by_suit = normalise(templates[:, :, split:])
    best = np.argmax(normalised(features[:, :, :split]) @ by_rank.T
                     + normalised(features[:, :, split:]) @ by_suit.T, axis=1)
    assert np.mean(best == labels) < 0.7


def test_the_discriminant_is_the_fisher_boundary_scaled_to_the_views() -> None:
    """Two classes of points: each class's average view leans +1 towards itself, and the
    product with window rows times their normalising factor (as the recogniser has them) is
    the discriminant of the normalised rows, whatever their brightness and contrast."""
    rng = np.random.default_rng(5)
    base = rng.normal(0, 1, (2, 1, 4, 5)).astype(np.float32)
    features = np.concatenate([base[0] + rng.normal(0, 0.3, (50, 1, 4, 5)),
                               base[1] + rng.normal(0, 0.3, (50, 1, 4, 5))]).astype(np.float32)
    labels = np.repeat([0, 1], 50)
    found = learn_discriminant(features, labels, 2)
    flat = normalised(features)
    values = flat @ found.weights.reshape(2, -1).T + found.bias
    assert np.mean([found.lean(v, 0) for v in values[:50]]) == pytest.approx(1.0, abs=1e-3)
    assert np.mean([found.lean(v, 1) for v in values[50:]]) == pytest.approx(1.0, abs=1e-3)
    rows = (features * 3.0 + 40.0).reshape(100, -1)
    centred = rows.reshape(100, 1, -1) - rows.reshape(100, 1, -1).mean(axis=2, keepdims=True)
    scales = (1.0 / np.linalg.norm(centred.reshape(100, -1), axis=1)).astype(np.float32)
    assert np.allclose(found.values(rows.astype(np.float32), scales), values, atol=1e-4)


def test_two_classes_that_look_the_same_cannot_be_learnt() -> None:
    features = np.ones((20, 1, 3, 3), np.float32)
    features[:, :, 1, 1] = 5.0
    with pytest.raises(ValueError, match="told apart"):
        learn_discriminant(features, np.repeat([0, 1], 10), 2)


def _turned(found: Discriminant, a: int, b: int) -> Discriminant:
    """``found`` with classes ``a`` and ``b`` swapped (it calls every a b and every b a)."""
    order = np.arange(found.classes)
    order[[a, b]] = order[[b, a]]
    return Discriminant(found.weights[order], found.bias[order],
                        found.half[np.ix_(order, order)])


def test_a_card_the_deck_discriminants_dispute_is_unknown_never_named() -> None:
    """With the rank discriminant's kings and queens swapped, and its suit discriminant's
    hearts and diamonds, no king, queen, heart or diamond of a clear grid of the deck is named,
    while the templates alone (and the true discriminants) read them; the other cards still
    read."""
    deck = CameraDeck.default()
    assert deck.learnt is not None
    learnt = dataclasses.replace(deck.learnt, rank=_turned(deck.learnt.rank, 10, 11),
                                 suit=_turned(deck.learnt.suit, 1, 2))
    turned = dataclasses.replace(deck, learnt=learnt)
    image, _ = grid()
    codes = {d.code for d in Recognizer(turned).detect(image)} - {None}
    disputed = {card.code for card in map(Card.from_index, range(52))
                if card.rank in (10, 11) or card.suit in (1, 2)}
    assert not codes & disputed
    assert len(codes) >= 20
    plain = dataclasses.replace(deck, learnt=None)
    for reader in (deck, plain):
        assert len(disputed & {d.code for d in Recognizer(reader).detect(image)}) >= 30


def _leaning(found: Discriminant, chosen: int, lean: float) -> np.ndarray:
    """Discriminant values that lean ``lean`` towards ``chosen`` from its nearest other."""
    values = np.zeros(found.classes, np.float32)
    values[chosen] = lean * float(np.max(np.delete(found.half[chosen], chosen)))
    return values


@pytest.mark.parametrize(("lean", "named"), [(0.8, True), (0.2, False), (-0.5, False)])
def test_a_thin_index_fitting_its_template_less_well_is_named_when_the_deck_vouches(
        lean: float, named: bool) -> None:
    """A patch that is the ace of hearts' template at 0.77 correlation (a thin index, blurred,
    small and compressed by a camera) fits too poorly for the templates alone to name it
    surely; when the deck's rank and suit discriminants both lean clearly towards the ace of
    hearts it is named, when they lean little or the other way it stays unknown."""
    deck = CameraDeck.default()
    assert deck.learnt is not None
    recognizer = Recognizer(deck)
    bank = recognizer._banks[0]
    best = Card("Ah").index
    read = _Read(0.77 * bank.rank_similarity[best], 0.77 * bank.suit_similarity[best], bank,
                 0.0,
                 _leaning(deck.learnt.rank, best >> 2, lean),
                 _leaning(deck.learnt.suit, best & 3, lean))
    code, score = recognizer._decide(read)
    assert code == "Ah"
    assert (score >= recognizer.threshold) is named
    plain = Recognizer(dataclasses.replace(deck, learnt=None))
    assert plain._decide(dataclasses.replace(read, ranks=None, suits=None))[1] < plain.threshold
