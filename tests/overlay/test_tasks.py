"""cancel_and_wait: every task ends, even one that loses its first cancellation; Ctrl-C and
SIGTERM stop a program (StopSignals, until_stopped), within a bound, and twice at once."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from overlay.tasks import STOP_SECONDS, StopSignals, cancel_and_wait

ROOT = Path(__file__).resolve().parent.parent.parent


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # as asyncio.wait_for on 3.11 can lose one

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_and_wait(task, None), 5)
    assert task.cancelled() and swallowed == 1


async def test_finished_tasks_and_their_errors() -> None:
    async def fails() -> None:
        raise RuntimeError("reader broke")

    async def idle() -> None:
        await asyncio.sleep(3600)

    broken, waiting = asyncio.create_task(fails()), asyncio.create_task(idle())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="reader broke"):
        await cancel_and_wait(broken, waiting)
    assert waiting.cancelled()


# --- StopSignals and until_stopped: Ctrl-C and SIGTERM for feltcast serve and demo ---------

# A program as feltcast serve and demo run: its work under until_stopped, the signals
# installed; FINALLY is what the work does when it is cancelled.
PROGRAM = """
import asyncio, sys, time
from overlay.tasks import StopSignals, until_stopped

async def work():
    swallowed = False
    print("ready", flush=True)
    try:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed = True  # as Python 3.11's asyncio.wait_for can lose one
                print("lost one cancellation", flush=True)
    finally:
        FINALLY

async def main():
    stop = StopSignals(lambda line: print(line, flush=True), stop_seconds=STOP)
    stop.install()
    stopped, _ = await until_stopped(work(), stop)
    print("stopped" if stopped else "finished", flush=True)

asyncio.run(main())
"""


async def _run_program(finally_: str, stop_seconds: float,
                       *steps: tuple[str, int]) -> tuple[int, str, str]:
    """Run PROGRAM; each step waits for a line of its output, then sends a signal."""
    source = PROGRAM.replace("FINALLY", finally_).replace("STOP", repr(stop_seconds))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", source, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    lines: list[str] = []
    for wanted, signum in steps:
        while not lines or lines[-1] != wanted:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, f"the program ended before {wanted!r}: {lines}"
            lines.append(line.decode().rstrip("\n"))
        process.send_signal(signum)
    out, err = await asyncio.wait_for(process.communicate(), 120)  # generous: a busy machine
    assert process.returncode is not None
    return process.returncode, "\n".join([*lines, *out.decode().splitlines()]), err.decode()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_a_signal_stops_the_work_even_when_a_cancellation_is_lost(signum: int) -> None:
    status, out, err = await _run_program("print('cleaned up', flush=True)", 60.0,
                                          ("ready", signum))
    assert status == 0, err
    assert out.splitlines() == ["ready", "lost one cancellation", "cleaned up", "stopped"]


HANGS = "print('cleaning up', flush=True); time.sleep(3600)"
"""A clean-up that never ends (a blocked call), blocking the event loop too."""


async def test_a_second_signal_ends_the_process_at_once() -> None:
    status, out, _ = await _run_program(HANGS, 600.0, ("ready", signal.SIGINT),
                                        ("cleaning up", signal.SIGINT))
    assert status == 128 + signal.SIGINT
    assert out.splitlines()[-1] == "stopping at once (second signal)"


async def test_a_stop_that_hangs_prints_every_stack_and_ends() -> None:
    assert StopSignals().stop_seconds == STOP_SECONDS == 30.0  # docs/show-day.md, docs/demo.md
    status, out, err = await _run_program(HANGS, 1.0, ("ready", signal.SIGTERM))
    assert status == 1  # faulthandler's watchdog
    assert out.splitlines()[-1] == "cleaning up"
    assert "Timeout" in err and 'line ' in err and "in work" in err, err
