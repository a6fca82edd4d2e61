"""The burned-in graphics look like the browser overlay: the same views drawn by
``static/overlay.html`` in Chromium (the page tests' harness) and by the video renderer cover
the same pixels, in the same colours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import Page

from overlay.export.video.render import OverlayRenderer
from overlay.export.video.timeline import clocks_at
from tests.pages.conftest import browser, harness, page, probe  # noqa: F401 - fixtures
from tests.pages.harness import Harness
from tests.pages.test_overlay import open_overlay
from tests.pages.views import flop_view, showdown_view


@pytest.mark.parametrize("make_view", [flop_view, showdown_view], ids=["flop", "showdown"])
def test_renderer_matches_the_browser_overlay(page: Page, harness: Harness,  # noqa: F811
                                              make_view: Callable[[str], dict[str, Any]],
                                              ) -> None:
    view = make_view("delayed")
    open_overlay(page, harness, "delayed", view)
    page.wait_for_timeout(700)  # let the entrance transitions finish
    shot = cv2.imdecode(np.frombuffer(page.screenshot(omit_background=True), np.uint8),
                        cv2.IMREAD_UNCHANGED)
    clocks = clocks_at(view, view["channel"]["as_of"])  # the page counts from about there
    ours = OverlayRenderer(1920, 1080).render(view, clocks).bgra
    assert shot.shape == ours.shape == (1080, 1920, 4)
    browser_drawn, video_drawn = shot[:, :, 3] > 128, ours[:, :, 3] > 128
    overlap = np.count_nonzero(browser_drawn & video_drawn)
    union = np.count_nonzero(browser_drawn | video_drawn)
    assert overlap / union >= 0.95  # the same panels in the same places (0.986 when written)
    both = (shot[:, :, 3] > 200) & (ours[:, :, 3] > 200)
    difference = np.abs(shot[:, :, :3].astype(int) - ours[:, :, :3].astype(int))[both]
    assert np.median(difference) <= 6  # the same colours (2 when written; text edges differ)
