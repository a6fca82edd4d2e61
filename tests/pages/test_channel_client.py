"""static/js/channel.js in the browser: RFC 7386 merge patches and the reconnect backoff."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.pages.harness import Harness, merge_patch

# RFC 7386, Appendix A: (target, patch, result).
RFC7386_CASES: list[tuple[Any, Any, Any]] = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.fixture
def client_page(page: Page, harness: Harness) -> Page:
    # Any page of ours loads the module graph from /static/; the overlay is the smallest.
    page.goto(f"{harness.base}/overlay?channel=unused")
    return page


def test_merge_patch_follows_rfc_7386(client_page: Page) -> None:
    results = client_page.evaluate(
        """async (cases) => {
            const { mergePatch } = await import('/static/js/channel.js');
            return cases.map(([target, patch]) => {
                const frozen = JSON.stringify(target);
                const result = mergePatch(target, patch);
                if (JSON.stringify(target) !== frozen) throw new Error('target was modified');
                return result;
            });
        }""",
        [[target, patch] for target, patch, _ in RFC7386_CASES])
    assert results == [result for _, _, result in RFC7386_CASES]
    # The harness's Python merge patch agrees (it keeps the server side of the tests honest).
    assert [merge_patch(t, p) for t, p, _ in RFC7386_CASES] == results


def test_backoff_grows_is_capped_and_jittered(client_page: Page) -> None:
    delays = client_page.evaluate(
        """async () => {
            const { backoffDelay } = await import('/static/js/channel.js');
            const at = (r) => [0, 1, 2, 3, 4, 5, 10, 40].map(
                (n) => backoffDelay(n, { random: () => r }));
            return { low: at(0), high: at(0.999999), real: [...Array(200)].map(
                () => backoffDelay(3)) };
        }""")
    assert delays["low"] == [200, 400, 800, 1600, 3200, 4000, 4000, 4000]
    assert delays["high"] == [400, 800, 1600, 3200, 6400, 8000, 8000, 8000]
    real = delays["real"]
    assert all(1600 <= d <= 3200 for d in real)
    assert len(set(real)) > 20, json.dumps(real[:20])  # jitter: pages never reconnect in step
