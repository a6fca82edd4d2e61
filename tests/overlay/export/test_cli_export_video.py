"""``feltcast export video`` as a user runs it: a real process, a real log in a data
directory, generated footage; exit statuses, messages, the progress bar and the files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from overlay import phh_files
from overlay.export.video.replay import Pace, phh_entries
from tests.overlay.export.videokit import (
    HAND2,
    T0,
    frame_number,
    make_footage,
    probe,
    read_frames,
    scripted_log,
    white_pixels,
    write_log,
)
from tests.system_packages import needs_ffmpeg

ROOT = Path(__file__).resolve().parents[3]
FAMOUS = ROOT.parent / "shared" / "data" / "phh" / "famous" / "dwan-ivey-2009.phh"
FFMPEG = shutil.which("ffmpeg")


def feltcast(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command in its own process."""
    return subprocess.run([sys.executable, "-m", "overlay", "export", "video",
                           *(str(a) for a in args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=240, check=False)


def feltcast_here(capsys: pytest.CaptureFixture[str], *args: str | Path,
                  ) -> subprocess.CompletedProcess[str]:
    """The command through the same entry point (``overlay.cli.main``) in this process: the
    error cases, without a fresh interpreter each."""
    from overlay.cli import main

    status = main(["export", "video", *(str(a) for a in args)])
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("cli")
    data = write_log(scripted_log(), folder / "data")
    footage = make_footage(folder / "footage.mp4", frames=90)
    return data, footage


@needs_ffmpeg
def test_burn_in_by_start_time(setup: tuple[Path, Path], tmp_path: Path) -> None:
    data, footage = setup
    out = tmp_path / "final.mp4"
    done = feltcast("--video", footage, "--start", "2026-11-30T10:53:20Z", "--data-dir", data,
                    "--table", "Main Event Final Table", "--out", out)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}: 90 frames (3.0 s)" in done.stdout
    assert "1 hand" in done.stdout and f"wrote {tmp_path / 'final.clips.csv'}" in done.stdout
    assert "90/90 frames" in done.stderr and "fps" in done.stderr  # the progress bar
    assert "done in" in done.stderr
    frames = list(read_frames(out))
    assert [frame_number(f) for f in frames] == list(range(90))
    assert probe(out)["streams"][0]["codec_name"] == "h264"
    assert (tmp_path / "final.edl").is_file() and (tmp_path / "final.chapters.txt").is_file()


@needs_ffmpeg
def test_burn_in_by_hand_start(setup: tuple[Path, Path], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    data, footage = setup
    out = tmp_path / "hand2.mp4"
    done = feltcast_here(capsys, "--video", footage, "--hand-start", "2@30", "--data-dir", data,
                    "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # --quiet: no progress bar
    rows = (tmp_path / "hand2.clips.csv").read_text().splitlines()
    hand2 = next(r for r in rows if r.startswith("2,"))
    assert ",30," in hand2  # hand 2's first frame is the one named
    # Hand 1 ended (T0 + 3.4 s) before hand 2 (T0 + 4.0 s): frame 30 - 0.6 s * 30 = 12
    assert rows[1].startswith("1,") and ",0,12," in rows[1]


def test_phh_replay(tmp_path: Path) -> None:
    out = tmp_path / "dwan-ivey.mp4"
    done = feltcast("--phh", FAMOUS, "--out", out, "--size", "480x270", "--fps", "10",
                    "--pace", "0.2", "--quiet", "--ffmpeg", FFMPEG or "off")
    assert done.returncode == 0, done.stderr
    entries = phh_entries(phh_files.load(FAMOUS), pace=Pace(scale=0.2))
    expected = round((entries[-1].time + 1.0 + 5.0 * 0.2) * 10)  # 1 s lead-in, the hold
    frames = list(read_frames(out))
    assert len(frames) == expected and frames[0].shape == (270, 480, 3)
    # The river (Jh) is dealt last: five card faces on the board at the end, none at first.
    board = (0.45, 0.6, 0.85, 0.97)
    assert white_pixels(frames[0], board) == 0
    assert white_pixels(frames[-1], board) > white_pixels(frames[len(frames) // 2], board)
    if FFMPEG is not None:
        assert probe(out)["streams"][0]["codec_name"] == "h264"


@needs_ffmpeg
def test_alpha_mov(setup: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = setup
    footage = make_footage(tmp_path / "short.mp4", frames=20)
    out = tmp_path / "graphics.mov"
    done = feltcast("--video", footage, "--start", str(T0), "--data-dir", data, "--alpha",
                    "--out", out)
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "graphics_frames").glob("*.png"))) == 20
    video = probe(out)["streams"][0]
    assert video["codec_name"] == "prores" and video["profile"] == "4444"
    # A bar for each step: the PNGs, the pictures encoded, the frames of the mov.
    lines = done.stderr.splitlines()
    assert any(line.startswith("graphics [") and "20/20 frames" in line for line in lines)
    encoded = [line for line in lines if line.startswith("ProRes 4444 pictures [")]
    assert encoded and "pictures/s" in encoded[-1] and "done in" in encoded[-1]
    count = int(encoded[-1].split("] ")[1].split("/")[0])
    assert 1 <= count < 20  # each picture once, not each frame
    assert any(line.startswith("ProRes 4444 [") and "20/20 frames" in line
               and "done in" in line for line in lines)


@pytest.mark.parametrize(("args", "message"), [
    (["--start", "2026-11-30T12:00:00Z"], "do not overlap"),
    (["--start", "2026-11-30T10:53:20"], "time zone"),
    (["--hand-start", "9@10"], "hand 9 is not in the log"),
    (["--hand-start", "1@900"], "frames 0-89"),
    (["--hand-start", "one"], "HAND@FRAME"),
    ([], "--start TIME or --hand-start"),
])
def test_bad_sync_is_a_clear_error(setup: tuple[Path, Path], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str], args: list[str],
                                   message: str) -> None:
    data, footage = setup
    done = feltcast_here(capsys, "--video", footage, "--data-dir", data, "--out",
                         tmp_path / "x.mp4", *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.mp4").exists()


def test_unreadable_footage_and_missing_log(setup: tuple[Path, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = setup
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00" * 1000)
    done = feltcast_here(capsys, "--video", broken, "--start", str(T0), "--data-dir", data,
                         "--out", tmp_path / "x.mp4")
    assert done.returncode == 2 and "not a video" in done.stderr
    done = feltcast_here(capsys, "--video", broken, "--start", str(T0), "--data-dir",
                         tmp_path / "none", "--out", tmp_path / "x.mp4")
    assert done.returncode == 2 and "no log at" in done.stderr
    done = feltcast_here(capsys, "--phh", tmp_path / "missing.phh", "--out",
                         tmp_path / "x.mp4")
    assert done.returncode == 2 and "no such file" in done.stderr


def test_no_hands_in_the_footage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.log import TableEvent
    from engine.table_events import LevelStarted

    entries = scripted_log()
    late = TableEvent.record(len(entries) + 1, T0 + HAND2 + 120, LevelStarted(2, 200, 400))
    data = write_log([*entries, late], tmp_path / "data")
    footage = make_footage(tmp_path / "break.mp4", frames=30)
    done = feltcast_here(capsys, "--video", footage, "--start", str(T0 + HAND2 + 100),
                         "--data-dir", data, "--out", tmp_path / "x.mp4")
    assert done.returncode == 2 and "no hand of the log is in the footage" in done.stderr


def test_the_configuration_names_the_table_and_the_log(
        setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, footage = setup
    config = tmp_path / "feltcast.toml"
    config.write_text(f'data_dir = "{data}"\n[table]\nname = "Zoë\'s Final"\n',
                      encoding="utf-8")
    done = feltcast_here(capsys, "--video", footage, "--start", str(T0), "--config", config,
                         "--out", tmp_path / "cfg.mp4", "--quiet", "--ffmpeg", "off")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cfg.edl").read_text().startswith("TITLE: Zoë's Final\n")
    assert "title=Zoë's Final" in (tmp_path / "cfg.chapters.txt").read_text()


def test_encoder_settings_are_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      ) -> None:
    done = feltcast_here(capsys, "--phh", FAMOUS, "--out", tmp_path / "x.mp4", "--crf", "99")
    assert done.returncode == 2 and "from 0 (lossless) to 51" in done.stderr
    with pytest.raises(SystemExit):
        feltcast_here(capsys, "--phh", FAMOUS, "--out", tmp_path / "x.mp4", "--preset", "fastest")
    assert "invalid choice: 'fastest'" in capsys.readouterr().err
    assert not (tmp_path / "x.mp4").exists()
