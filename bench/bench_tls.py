"""``python -m bench.bench_tls``: what TLS costs on the venue network (issue 18), in one run.

Two real ``feltcast serve`` processes on 127.0.0.1, one plain and one with TLS (the show's own
CA, made on its first start), measured side by side:

* **handshakes**: ``--connections`` fresh connections, one after another, each a new TCP (and
  TLS) connection with one ``GET /api/config``: connections per second and the median time,
  for each, and the ratio;
* **fan-out**: ``bench.bench_fanout`` (its own process, its own client process) with
  ``--clients`` websocket viewers on ``delayed``, plain and ``--tls``: the server's CPU share
  of a core for each, and the ratio.

Results go to ``bench/results/tls-<UTC time>.json`` (unless ``--no-save``) and a summary line
to stderr. Every wait is bounded; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench import save_result
from tests.pages.service import running_service

ROOT = Path(__file__).resolve().parent.parent


async def handshakes(base: str, ca: Path | None, count: int) -> dict[str, float]:
    """``count`` connections, each new, each one request; per second and the median."""
    import ssl

    context: ssl.SSLContext | bool = (ssl.create_default_context(cafile=str(ca))
                                      if ca is not None else True)
    times = []
    started = time.perf_counter()
    for _ in range(count):
        one = time.perf_counter()
        connector = aiohttp.TCPConnector(ssl=context, force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session, \
                session.get(f"{base}/api/config") as response:
            assert response.status == 200
            await response.read()
        times.append(time.perf_counter() - one)
    total = time.perf_counter() - started
    return {"connections": count, "per_s": count / total,
            "median_ms": statistics.median(times) * 1000}


def fanout(clients: int, seconds: float, tls: bool) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_fanout", "--no-save", "--clients", str(clients),
         "--seconds", str(seconds), "--delay", "1", *(["--tls"] if tls else [])],
        cwd=ROOT, capture_output=True, text=True, timeout=seconds + 300, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"bench_fanout failed: {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_tls",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="fan-out window")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    result: dict[str, Any] = {}
    for name, tls in (("plain", False), ("tls", True)):
        with tempfile.TemporaryDirectory(prefix=f"feltcast-{name}-") as tmp, \
                running_service(Path(tmp), 30.0, tls=tls) as server:
            result[f"handshakes_{name}"] = asyncio.run(
                handshakes(server.base, server.ca, args.connections))
    for name, tls in (("plain", False), ("tls", True)):
        report = fanout(args.clients, args.seconds, tls)
        result[f"fanout_{name}"] = {key: report[key] for key in (
            "clients", "connected", "cpu_share", "messages_per_s", "gaps", "resyncs", "early",
            "closed_early", "lateness_ms")}
    result["handshake_rate_ratio"] = (result["handshakes_tls"]["per_s"]
                                      / result["handshakes_plain"]["per_s"])
    result["fanout_cpu_ratio"] = (result["fanout_tls"]["cpu_share"]
                                  / result["fanout_plain"]["cpu_share"])
    result["machine"] = {"cpus": os.cpu_count(), "loadavg_before": load_before,
                         "loadavg_after": os.getloadavg()}
    text = json.dumps(result, indent=2)
    if not args.no_save:
        save_result("tls", text)
    print(text)
    plain, tls_ = result["handshakes_plain"], result["handshakes_tls"]
    print(f"connections/s: plain {plain['per_s']:.0f} ({plain['median_ms']:.1f} ms), TLS "
          f"{tls_['per_s']:.0f} ({tls_['median_ms']:.1f} ms): {result['handshake_rate_ratio']:.2f}"
          f"x; fan-out to {args.clients} viewers, server CPU plain "
          f"{result['fanout_plain']['cpu_share']:.2f}, TLS {result['fanout_tls']['cpu_share']:.2f}"
          f" of a core: {result['fanout_cpu_ratio']:.2f}x (load average {load_before[0]:.2f})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
