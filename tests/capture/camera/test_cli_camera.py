"""``feltcast camera calibrate`` and ``feltcast camera recognize`` as an operator runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from capture.camera.cardart import STYLES, render_card
from capture.camera.deck import CameraDeck
from engine.cards import REGISTRATION_ORDER, Card
from overlay.cli import main

from .conftest import (
    card_corners,
    felt,
    place,
    same_card_corners,
    scene,
    wearing_index_of,
    write_video,
)

ROOT = Path(__file__).resolve().parents[3]
ALL = [Card.from_index(i) for i in range(52)]


def feltcast(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "overlay", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, check=False)


@pytest.fixture(scope="module")
def card_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One image per card of a development style, named by code, some PNG, some JPEG."""
    folder = tmp_path_factory.mktemp("studio")
    for card in ALL:
        suffix = ".jpg" if card.index % 3 == 0 else ".png"
        cv2.imwrite(str(folder / f"{card.code}{suffix}"), render_card(card, STYLES["studio-4c"]))
    return folder


def test_calibrate_from_images_then_recognize_with_that_deck(
        card_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "studio.npz"
    assert main(["camera", "calibrate", "--images", str(card_dir), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    progress = [line for line in lines if line.startswith("[")]
    assert len(progress) == 52 and progress[0].startswith("[ 1/52] As  As.")
    assert any("deck 'studio' saved to" in line for line in lines)
    deck = CameraDeck.load(out)
    # The distinctness report: every card once, with its nearest neighbour, least distinct
    # first (the deck's separation); no warning for a deck whose cards all differ.
    start = next(i for i, line in enumerate(lines) if line.startswith("how alike each card"))
    cells = [cell.split() for line in lines[start + 1:start + 14]
             for cell in line.strip().split("   ")]
    assert sorted(cell[0] for cell in cells) == sorted(card.code for card in ALL)
    alike = [float(cell[3]) for cell in cells]
    assert alike == sorted(alike, reverse=True) and alike[0] == round(deck.separation, 2)
    assert not any(line.startswith("warning") for line in lines)
    assert deck.name == "studio"
    image, corners = scene([(Card("Jd"), (400, 360), 170, 8), (Card("4c"), (800, 360), 170, 185)],
                           style=STYLES["studio-4c"])
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), image)
    assert main(["camera", "recognize", str(picture), "--deck", str(out), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    cards = json.loads(line)
    assert [c["code"] for c in cards] == ["Jd", "4c"]
    for found, truth in zip(cards, corners, strict=True):
        assert same_card_corners(found["quad"], truth, 4.0)
        assert 0.7 <= found["score"] <= 1.0


def test_calibrate_names_the_cards_the_camera_may_not_tell_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two different cards with the same-looking index are taken, and named in a warning."""
    style = STYLES["studio-4c"]
    for card in ALL:
        face = render_card(card, style)
        if card == Card("6h"):
            face = wearing_index_of(face, render_card(Card("5h"), style), style)
        cv2.imwrite(str(tmp_path / f"{card.code}.png"), face)
    assert main(["camera", "calibrate", "--images", str(tmp_path), "--out",
                 str(tmp_path / "serif.npz")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("how alike each card"))
    assert lines[start + 1].split()[:3] in (["5h", "~", "6h"], ["6h", "~", "5h"])
    (warning,) = [line for line in lines if line.startswith("warning")]
    assert "2 card(s)" in warning and "(5h/6h)" in warning and "unknown" in warning


def test_calibrate_into_the_deck_registry(card_dir: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["camera", "calibrate", "--images", str(card_dir), "--out", "Studio 1",
                 *data]) == 0
    assert "saved to the deck registry" in capsys.readouterr().out
    assert main(["camera", "calibrate", "--images", str(card_dir), "--out", "Studio 1",
                 *data]) == 2
    assert "already exists" in capsys.readouterr().err
    image, _ = scene([(Card("Ks"), (640, 360), 180, 0)], style=STYLES["studio-4c"])
    cv2.imwrite(str(tmp_path / "ks.png"), image)
    assert main(["camera", "recognize", str(tmp_path / "ks.png"), "--deck", "Studio 1",
                 *data]) == 0
    assert capsys.readouterr().out.startswith(f"{tmp_path / 'ks.png'}: Ks (")


def test_problem_files_are_all_named_in_one_error(card_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "cards"
    folder.mkdir()
    for path in card_dir.iterdir():
        if path.stem not in {"Ah", "2c"}:
            (folder / path.name).write_bytes(path.read_bytes())
    (folder / "As.png").write_bytes((card_dir / "As.jpg").read_bytes())  # As twice
    (folder / "joker.png").write_bytes((card_dir / "Kd.jpg").read_bytes())
    (folder / "readme.txt").write_text("cards from the blue deck")
    assert main(["camera", "calibrate", "--images", str(folder), "--out",
                 str(tmp_path / "x.npz")]) == 2
    error = capsys.readouterr().err
    assert "joker.png: not named by a card code" in error
    assert "readme.txt: not an image file" in error
    assert "As: 2 files (As.jpg, As.png)" in error
    assert "no image for 2 card(s): Ah 2c" in error
    assert not (tmp_path / "x.npz").exists()


def test_an_unreadable_image_is_named(card_dir: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "cards"
    folder.mkdir()
    for path in card_dir.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    broken = next(folder.glob("Qh.*"))
    broken.write_bytes(b"\x89PNG broken")
    assert main(["camera", "calibrate", "--images", str(folder), "--out",
                 str(tmp_path / "x.npz")]) == 2
    assert f"not images this build can read: {broken.name}" in capsys.readouterr().err


def test_calibrate_from_a_camera_showing_each_card_once(tmp_path: Path) -> None:
    """The camera mode, with a video file as the camera: each card shown, then taken away."""
    frames = []
    empty = felt(480, 360)
    for n, card in enumerate(REGISTRATION_ORDER):
        shown = empty.copy()
        place(shown, card, card_corners((240 + n % 5, 180), 200, 90.0 + n % 3),
              STYLES["feltcast"])
        frames.extend([empty] * 2 + [shown] * 6)
    video = write_video(tmp_path / "showing.avi", frames, fps=25)
    result = feltcast("camera", "calibrate", "--camera", str(video), "--out",
                      str(tmp_path / "shown.npz"), "--hold-frames", "3")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("Show the Ace of spades (As) to the camera, alone and face up "
                        "(card 1 of 52).")
    assert lines[1] == "captured As. Take the card away."
    assert sum(line.startswith("captured ") for line in lines) == 52
    shown = CameraDeck.load(tmp_path / "shown.npz")
    assert np.allclose(shown.box, CameraDeck.default().box, atol=0.04)


def test_a_camera_that_stops_early_says_how_far_it_got(tmp_path: Path) -> None:
    empty = felt(320, 240)
    shown = empty.copy()
    place(shown, Card("As"), card_corners((160, 120), 120, 90.0), STYLES["feltcast"])
    video = write_video(tmp_path / "short.avi", [empty, *[shown] * 6, empty, empty])
    result = feltcast("camera", "calibrate", "--camera", str(video), "--out",
                      str(tmp_path / "x.npz"))
    assert result.returncode == 1
    assert "stopped delivering frames after 1 of 52 cards" in result.stderr


def test_recognize_in_a_subprocess_prints_per_image(tmp_path: Path) -> None:
    first, _ = scene([(Card("Ah"), (300, 300), 160, 0), (None, (700, 300), 160, 15)])
    second = felt()
    cv2.imwrite(str(tmp_path / "a.png"), first)
    cv2.imwrite(str(tmp_path / "b.jpg"), second)
    result = feltcast("camera", "recognize", str(tmp_path / "a.png"), str(tmp_path / "b.jpg"))
    assert result.returncode == 0, result.stderr
    a, b = result.stdout.splitlines()
    assert a.startswith(f"{tmp_path / 'a.png'}: Ah (") and "; unknown (" in a
    assert b == f"{tmp_path / 'b.jpg'}: no cards"
    as_json = feltcast("camera", "recognize", str(tmp_path / "a.png"), str(tmp_path / "b.jpg"),
                       "--json")
    first_cards, second_cards = (json.loads(line) for line in as_json.stdout.splitlines())
    assert [c["code"] for c in first_cards] == ["Ah", None] and second_cards == []
    assert set(first_cards[0]) == {"code", "quad", "score"}


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere.png"], "there is no image file 'nowhere.png'"),
    (["README.md"], "'README.md' is not an image"),
    (["--deck", "missing.npz", "README.md"], "is not an image"),
    (["--threshold", "0", "README.md"], "--threshold 0.0 is not above 0"),
])
def test_recognize_errors_are_plain(args: list[str], message: str) -> None:
    result = feltcast("camera", "recognize", *args)
    assert result.returncode == 2 and message in result.stderr


def test_recognize_names_a_missing_deck(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), felt(64, 64))
    result = feltcast("camera", "recognize", str(tmp_path / "a.png"), "--deck",
                      str(tmp_path / "none.npz"))
    assert result.returncode == 2 and "there is no camera deck file" in result.stderr
    named = feltcast("camera", "recognize", str(tmp_path / "a.png"), "--deck", "Blue 9",
                     "--data-dir", str(tmp_path))
    assert named.returncode == 2 and "no camera deck called 'Blue 9'" in named.stderr
