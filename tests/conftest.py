"""Suite-wide settings.

Hypothesis: no per-example deadline and no "too slow" health check (performance is measured in
bench/, never in tests, and a loaded 2-core CI machine must not turn a slow example into a
failure). Under CI (``CI=true``) the examples are derandomized, so a CI run is reproducible;
local runs explore new examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW = [HealthCheck.too_slow]  # generation speed is load, not a defect
settings.register_profile("feltcast", deadline=None, suppress_health_check=_SLOW)
settings.register_profile("feltcast-ci", deadline=None, suppress_health_check=_SLOW,
                          derandomize=True)
settings.load_profile("feltcast-ci" if os.environ.get("CI") == "true" else "feltcast")
