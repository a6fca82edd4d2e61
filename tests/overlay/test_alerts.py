"""The operator's alerts (``overlay/alerts.py``): one type and one rule for every device."""

from __future__ import annotations

from overlay.alerts import MAX_ALERTS, Alert, AlertBook, AlertLevel


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def fault(message: str, *, sticky: bool = False) -> Alert:
    return Alert(AlertLevel.WARNING, "reader:table", "malformed_line", message, sticky=sticky)


def test_a_repeated_fault_keeps_its_time_and_stays_up_while_it_repeats() -> None:
    clock = Clock()
    book = AlertBook(clock=clock, expire_seconds=30)
    assert book.raise_alert("k", fault("bad line"))
    for _ in range(5):  # every 20 s, for 100 s: longer than it lasts alone
        clock.now += 20
        assert not book.raise_alert("k", fault("bad line"))  # the view does not change
    [alert] = book.current()
    assert alert.at == 1000.0
    clock.now += 31
    assert book.current() == []  # 31 s after the last one: gone


def test_a_new_message_is_a_new_alert_and_sticky_ones_wait_to_be_cleared() -> None:
    clock = Clock()
    book = AlertBook(clock=clock, expire_seconds=30)
    book.raise_alert("k", fault("bad line"))
    clock.now += 5
    assert book.raise_alert("k", fault("another bad line"))
    assert [(a.message, a.at) for a in book.current()] == [("another bad line", 1005.0)]
    book.raise_alert("offline", fault("offline", sticky=True))
    clock.now += 3600
    assert [a.message for a in book.current()] == ["offline"]
    assert "offline" in book and book.clear("offline") and not book.clear("offline")
    assert book.current() == []


def test_newest_first_and_at_most_max_alerts() -> None:
    clock = Clock()
    book = AlertBook(clock=clock, expire_seconds=1e9)
    for k in range(MAX_ALERTS + 5):
        clock.now += 1
        book.raise_alert(k, fault(f"fault {k}"))
    shown = book.current()
    assert len(shown) == MAX_ALERTS
    assert [a.message for a in shown[:2]] == [f"fault {MAX_ALERTS + 4}", f"fault {MAX_ALERTS + 3}"]


def test_the_view_of_an_alert_has_every_documented_field() -> None:
    standing = Alert(AlertLevel.ERROR, "security", "tls_off", "TLS is off")
    assert standing.to_view() == {"level": "error", "source": "security", "kind": "tls_off",
                                  "message": "TLS is off", "at": None}
    assert Alert(AlertLevel.WARNING, "obs", "obs_offline", "m", at=1.23456).to_view()["at"] \
        == 1.235
