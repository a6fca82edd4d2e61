"""The equity scenarios of issue 2 (S1-S9) and the targets they are measured against."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    hands: tuple[str, ...]
    board: str = ""
    dead: str = ""

    @property
    def label(self) -> str:
        text = " v ".join(self.hands)
        if self.board:
            text += f" on {self.board}"
        if self.dead:
            text += f", dead {self.dead}"
        return text

    @property
    def postflop(self) -> bool:
        return bool(self.board)


_S4 = ("AhAd", "KsKc", "QdJd", "Tc9c", "8s8h", "7d6d", "AcQs", "5h4h", "2c2d")

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("S1", ("AhAs", "KdKc")),
    Scenario("S2", ("AhAs", "KdKc", "7s6s")),
    Scenario("S3", ("AcKd", "QhQs", "JdTd", "9c9s", "8h7h", "As2s")),
    Scenario("S4", _S4),
    Scenario("S5", (*_S4, "JsTs")),
    Scenario("S6", ("AsKs", "QhQd", "JcTc"), board="Qs9s8c"),
    Scenario("S7", ("AhKh", "7c7d", "JsTs", "8c6c"), board="Kd9s7h2s"),
    Scenario("S8", ("Tc9c", "Td2d", "AsAd", "KcKs", "3c3d", "QdJd", "9h8h", "7s6s", "5c4c"),
             board="AhKdQcJh3s"),
    Scenario("S9", ("AcKc", "JhJd"), dead="AhKdJs7c2c9c"),
)

# Median milliseconds allowed per scenario, and the speed-up over the phevaluator loop
# required in the same run (issue 2).
MAX_MS = {s.name: 50.0 for s in SCENARIOS} | {"S5": 30.0, "S6": 2.0, "S7": 2.0, "S8": 2.0}
MIN_RATIO_VS_PHEVALUATOR = {"S1": 40.0, "S5": 25.0}
MAX_TABLE_SECONDS = 2.0
MAX_TABLE_MB = 100.0
