"""``feltcast camera eval``: the recogniser's precision and recall on synthetic scenes.

For each deck style the project draws (``capture/camera/cardart.py``), a camera deck is
calibrated from one clean image per card, then N seeded table scenes (1920x1080 and 1280x720
in turn, with perspective, blur, noise, JPEG, light changes and occlusion) are read and
scored: a read is right when its code is the card's and its outline overlaps the card's at
IoU >= 0.5. Prints one line per style (``--json`` for the full report, mistakes included) and
exits 1 when any style misses a target (precision >= 99.5 %, recall >= 95 % of the cards
whose index corners can be seen). ``--failures DIR`` saves each scene with a mistake,
annotated, for debugging (development styles only unless ``--include-heldout-failures``: the
recogniser must not be tuned on the held-out decks).

``--images DIR [DIR ...]`` reads a real deck the same way: each folder holds one image per card
(as ``feltcast camera calibrate --images`` takes it); the deck is calibrated from it and the
same faces are laid in the scenes (:mod:`capture.camera.imagefaces`). Before a show, this says
how the camera does with the house's deck. With ``--images`` alone, no drawn style is read
(name some with ``--styles``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from capture.camera.evaluate import DetectHook, Detection, Outcome, Report, StyleResult
    from capture.camera.synth import Scene

DEFAULT_SCENES = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--styles", nargs="+", default=None, metavar="STYLE",
        help="deck styles to evaluate: names, or 'dev', 'heldout', 'wide', 'all' (the "
             "default, unless --images is given)")
    parser.add_argument(
        "--images", nargs="+", type=Path, default=[], metavar="DIR",
        help="real decks to evaluate: folders of one image per card, named by card code")
    parser.add_argument("--scenes", type=int, default=DEFAULT_SCENES, metavar="N",
                        help=f"scenes per style (default {DEFAULT_SCENES})")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the scenes (default 0); the same seed gives the same "
                             "scenes")
    parser.add_argument("--threshold", type=float, default=None, metavar="T",
                        help="the recogniser's confidence threshold (default: its own)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--failures", type=Path, default=None, metavar="DIR",
                        help="save annotated scenes that have a mistake into DIR")
    parser.add_argument("--include-heldout-failures", action="store_true",
                        help="with --failures, also save held-out styles' scenes")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def resolve_styles(names: list[str]) -> list[str]:
    """Style names from the command line, in the order given, without repeats."""
    from capture.camera.cardart import DEV_STYLES, HELDOUT_STYLES, STYLES, WIDE_STYLES
    from engine.errors import InvalidInputError

    groups = {"all": (*DEV_STYLES, *HELDOUT_STYLES, *WIDE_STYLES), "dev": DEV_STYLES,
              "heldout": HELDOUT_STYLES, "wide": WIDE_STYLES}
    chosen: list[str] = []
    for name in names:
        if name in groups:
            chosen.extend(groups[name])
        elif name in STYLES:
            chosen.append(name)
        else:
            known = ", ".join(sorted(STYLES))
            raise InvalidInputError(
                f"no deck style {name!r} (styles: {known}; or dev, heldout, wide, all)")
    return list(dict.fromkeys(chosen))


def run(args: argparse.Namespace) -> int:
    from engine.errors import InvalidInputError

    if args.scenes < 1:
        raise InvalidInputError(f"--scenes must be at least 1 (got {args.scenes})")
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise InvalidInputError(f"--threshold must be between 0 and 1 (got {args.threshold})")
    styles = args.styles if args.styles is not None else ([] if args.images else ["all"])
    return run_eval(resolve_styles(styles), args.scenes, args.seed, sys.stdout,
                    sys.stderr, as_json=args.json, threshold=args.threshold,
                    failures=args.failures, heldout_failures=args.include_heldout_failures,
                    quiet=args.quiet, images=args.images)


def run_eval(styles: list[str], scenes: int, seed: int, out: TextIO, err: TextIO, *,
             as_json: bool = False, threshold: float | None = None,
             failures: Path | None = None, heldout_failures: bool = False,
             quiet: bool = False, images: Sequence[Path] = ()) -> int:
    from capture.camera.evaluate import Report, evaluate, evaluate_images
    from overlay.cli.camera_calibrate import read_card_images

    interactive = err.isatty()

    def progress(style: str, done: int, total: int) -> None:
        if quiet:
            return
        line = f"{style}: scene {done}/{total}"
        if interactive:
            err.write(f"\r{line:<40}" + ("\n" if done == total else ""))
        elif done == total or done % 10 == 0:
            err.write(line + "\n")
        err.flush()

    on_scene = None
    if failures is not None:
        failures.mkdir(parents=True, exist_ok=True)
        on_scene = failure_saver(failures, heldout_failures)
    decks = []
    for folder in images:  # every folder read (and its problems named) before any scene
        faces, sources = read_card_images(folder, quiet=True)
        decks.append((folder.resolve().name, faces, sources))
    report = evaluate(styles, scenes, seed=seed, threshold=threshold, progress=progress,
                      on_scene=on_scene)
    real = tuple(evaluate_images(faces, name, scenes, seed=seed, sources=sources,
                                 threshold=threshold, progress=progress, on_scene=on_scene)
                 for name, faces, sources in decks)
    report = Report(report.results + real, seed, scenes)
    if as_json:
        json.dump(report.to_dict(), out, indent=2)
        out.write("\n")
    else:
        print_table(report, out)
    return 0 if report.passed else 1


def print_table(report: Report, out: TextIO) -> None:
    """One line per style, then the pooled figures and the verdict."""
    from capture.camera.evaluate import PRECISION_TARGET, RECALL_TARGET

    header = (f"{'style':<20} {'set':<8} {'scenes':>6} {'cards':>6} {'precision':>10} "
              f"{'recall':>8} {'1080p':>7} {'720p':>7} {'wrong':>6} {'missed':>7} "
              f"{'unknown':>8} {'fps':>6}  result")
    print(header, file=out)
    print("-" * len(header), file=out)
    for result in report.results:
        score = result.score
        fps = result.scenes / result.seconds if result.seconds > 0 else 0.0
        print(f"{result.style:<20} {result.kind or 'dev':<8} "
              f"{result.scenes:>6} {score.visible:>6} {score.precision:>9.2%} "
              f"{score.recall:>8.2%} {_recall(result, '1920x1080'):>7} "
              f"{_recall(result, '1280x720'):>7} {score.false_positives:>6} "
              f"{score.visible - score.found:>7} {score.unknown:>8} {fps:>6.1f}  "
              f"{'ok' if result.passed else 'MISSED TARGET'}", file=out)
    total = report.total
    print("-" * len(header), file=out)
    print(f"{'all styles':<20} {'':<8} {sum(r.scenes for r in report.results):>6} "
          f"{total.visible:>6} {total.precision:>9.2%} {total.recall:>8.2%} {'':>7} {'':>7} "
          f"{total.false_positives:>6} {total.visible - total.found:>7} {total.unknown:>8}",
          file=out)
    print(f"targets: precision >= {PRECISION_TARGET:.1%}, recall >= {RECALL_TARGET:.0%} "
          "(cards with a visible index corner), every style", file=out)
    if report.passed:
        print("PASS: every style meets both targets", file=out)
    else:
        missed = ", ".join(r.style for r in report.results if not r.passed)
        print(f"FAIL: {missed} missed a target", file=out)


def _recall(result: StyleResult, size: str) -> str:
    """Recall on frames of one size, e.g. ``'87.5%'`` (``-`` when there were none)."""
    for name, score in result.by_size:
        if name == size and score.visible:
            return f"{score.recall:.1%}"
    return "-"


def failure_saver(folder: Path, heldout: bool) -> DetectHook:
    """A hook writing each scene with a mistake to ``folder`` as ``<style>-<seed>.jpg``,
    annotated; held-out styles' scenes only when ``heldout``."""
    import cv2

    from capture.camera.cardart import EVALUATION_ONLY
    from capture.camera.evaluate import annotate

    def save(scene: Scene, detections: Sequence[Detection], outcome: Outcome) -> None:
        if scene.style in EVALUATION_ONLY and not heldout:
            return
        if not outcome.false_positives and not outcome.missed:
            return
        path = folder / f"{scene.style}-{scene.seed}.jpg"
        cv2.imwrite(str(path), annotate(scene, detections, outcome))

    return save
