"""Layouts as data (issue 19, overlay/graphics/layouts.py): in every layout, portrait or not,
with the title-safe area or without, the graphics that share the frame never overlap and every
region lies inside the frame (inside the safe area when asked)."""

from __future__ import annotations

import itertools

import pytest

from engine.errors import InvalidInputError
from overlay.graphics.layouts import (
    EXCLUSIVE,
    LAYOUTS,
    SAFE_MARGIN,
    STAGE,
    TIME_SHARED,
    Region,
    regions_of,
)


@pytest.mark.parametrize(("name", "safe", "orientation"), list(itertools.product(
    LAYOUTS, (False, True), ("landscape", "portrait"))))
def test_no_two_graphics_overlap_and_all_lie_in_the_frame(name: str, safe: bool,
                                                          orientation: str) -> None:
    regions = {key: Region(**value) for key, value in
               regions_of(name, safe=safe)[orientation].items()}
    assert set(EXCLUSIVE) <= set(regions) or name == "venue"
    width, height = STAGE[orientation]
    present = [key for key in EXCLUSIVE if key in regions]
    for a, b in itertools.combinations(present, 2):
        assert not regions[a].overlaps(regions[b]), (a, b)
    for key, region in regions.items():
        assert region.inside(width, height), key
        if safe:
            assert region.x >= width * SAFE_MARGIN - 0.01
            assert region.y >= height * SAFE_MARGIN - 0.01
            assert region.x + region.width <= width * (1 - SAFE_MARGIN) + 0.01
            assert region.y + region.height <= height * (1 - SAFE_MARGIN) + 0.01


def test_column_right_mirrors_column_left() -> None:
    left = regions_of("column-left")["landscape"]
    right = regions_of("column-right")["landscape"]
    assert right["players"]["x"] == 1920 - left["players"]["x"] - left["players"]["width"]
    assert left["players"]["x"] < 960 < right["players"]["x"]
    assert left["lowerthird"]["anchor"] == "top-right"
    assert right["lowerthird"]["anchor"] == "top-left"


def test_overlapping_regions_are_seen_as_overlapping() -> None:
    assert Region(0, 0, 10, 10).overlaps(Region(9, 9, 10, 10))
    assert not Region(0, 0, 10, 10).overlaps(Region(10, 0, 10, 10))  # edges may touch


def test_the_venue_screen_is_opaque_grows_its_graphics_and_is_not_a_stream_choice() -> None:
    from overlay.graphics.config import default_graphics
    from overlay.graphics.desk import GraphicsDesk

    venue = regions_of("venue")
    assert venue["opaque"] is True and regions_of("column-left")["opaque"] is False
    assert {"event", "players", "table"} <= set(venue["landscape"])
    assert all(region["grow"] for region in venue["landscape"].values())
    desk = GraphicsDesk(default_graphics())
    assert "venue" not in [item["name"] for item in desk.panel()["layouts"]]
    with pytest.raises(InvalidInputError, match="expected one of column-left, column-right"):
        desk.choose({"layout": "venue"})


@pytest.mark.parametrize("name", [n for n in LAYOUTS if n != "venue"])
def test_a_time_shared_graphic_takes_exactly_its_hosts_region(name: str) -> None:
    for orientation in ("landscape", "portrait"):
        regions = regions_of(name)[orientation]
        for guest, host in TIME_SHARED.items():
            assert regions[guest] == regions[host], (name, orientation, guest)
            assert guest not in EXCLUSIVE
