"""The wheel is the whole product: built from the tracked files, installed into a fresh virtual
environment outside the checkout, it serves every page from where pip put it.

The fresh environment gets the wheel with ``--no-deps`` and borrows its dependencies from the
test environment's site-packages through a path line (a ``.pth`` line that is a path adds it to
``sys.path`` without running what is there, so the checkout's editable install is not seen):
the suite sends nothing to a package index. The test then asserts that ``overlay``, ``engine``
and ``capture`` are imported from the new environment, never from the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.system_packages import missing_system_package

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
PAGE_LINE = re.compile(r"^  (\S.*?) +(http://127\.0\.0\.1:\d+/\S+)(?:  .*)?$")


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_list_names_every_package_on_disk() -> None:
    setuptools = pyproject()["tool"]["setuptools"]  # type: ignore[index]
    listed = set(setuptools["packages"])
    mapped = setuptools["package-dir"]
    on_disk = {".".join(path.parent.relative_to(ROOT).parts)
               for top in ("engine", "capture", "overlay")
               for path in (ROOT / top).rglob("__init__.py")}
    on_disk |= {f"overlay.static.{d.name}" for d in (ROOT / "static").iterdir()
                if d.is_dir() and d.name != "__pycache__"}
    on_disk |= set(mapped)
    assert listed == on_disk
    assert mapped == {"overlay.static": "static", "capture.camera.fonts": "static/fonts"}


def tracked_copy(destination: Path) -> Path:
    """The files a fresh clone has (git's tracked files), copied to ``destination``."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("the packaging test builds from git's tracked files: run it in a clone")
    source = tracked_copy(tmp_path_factory.mktemp("clone"))
    out = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(out), str(source)], check=True, cwd=source)
    (built,) = out.glob("feltcast-*.whl")
    return built


def test_the_wheel_holds_every_page_font_flag_and_module(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    static = {str(p.relative_to(ROOT / "static")) for p in (ROOT / "static").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert len(static) > 280
    assert {f"overlay/static/{name}" for name in static} <= names
    fonts = {p.name for p in (ROOT / "static" / "fonts").iterdir() if p.is_file()}
    assert {f"capture/camera/fonts/{name}" for name in fonts} <= names
    modules = {str(p.relative_to(ROOT)) for top in ("engine", "capture", "overlay")
               for p in (ROOT / top).rglob("*.py")}
    assert modules <= names
    from overlay import __version__

    assert wheel.name.startswith(f"feltcast-{__version__}-")


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the wheel installed; its ``bin`` directory."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                    "install", "--quiet", "--no-deps", str(wheel)], check=True)
    purelib = Path(subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; "
         "print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "dependencies-of-the-test-run.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    yield venv / "bin"


def run_installed(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


def test_the_installed_commands_run_from_anywhere(installed: Path, tmp_path: Path) -> None:
    from overlay import __version__

    version = run_installed(installed, "feltcast", "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"feltcast {__version__}"
    where = run_installed(installed, "python", "-c",
                          "import overlay, engine, capture; from overlay.assets import "
                          "static_dir; from capture.camera.cardart import FONT_DIR; "
                          "print(overlay.__file__, engine.__file__, capture.__file__, "
                          "static_dir(), FONT_DIR, sep='\\n')", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    prefix = str(installed.parent)
    for line in where.stdout.split():
        assert line.startswith(prefix) and not line.startswith(str(ROOT)), where.stdout
    for command in ("serve", "demo", "init", "log", "camera", "export", "players", "obs"):
        helped = run_installed(installed, "feltcast", command, "--help", cwd=tmp_path)
        assert helped.returncode == 0, (command, helped.stderr)


def test_the_installed_demo_serves_every_page(installed: Path, tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        missing_system_package("Debian's chromium is not installed: `make system-deps`")
    from playwright.sync_api import sync_playwright

    from tests.pages.conftest import CHROMIUM_ARGS

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    process = subprocess.Popen(
        [str(installed / "feltcast"), "demo", "--port", "0", "--speed", "4",
         "--seed", "5", "--delay", "2", "--data", str(tmp_path / "demo")],
        cwd=elsewhere, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    pages: dict[str, str] = {}
    lines: list[str] = []
    try:
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            match = PAGE_LINE.match(lines[-1])
            if match:
                pages[match.group(1)] = match.group(2)
            if "Ctrl-C stops" in line:
                break
        assert len(pages) >= 10, lines
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
            try:
                for label, url in pages.items():
                    check_page(browser, label, url)
            finally:
                browser.close()
        # Every page checked while the demo plays: Ctrl-C, as its last line says, stops it
        # cleanly (playing a number of hands and exiting is tests/overlay/demo's business).
        process.send_signal(signal.SIGINT)
        rest = process.stdout.read()
        assert process.wait(timeout=120) == 0, "\n".join(lines) + rest
        assert "demo stopped" in rest, rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()


def check_page(browser: object, label: str, url: str) -> None:
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    failed: list[str] = []
    errors: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda response: response.status >= 400 and failed.append(
        f"{response.status} {response.url}"))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        response = page.goto(url)
        assert response is not None and response.status == 200, (label, url)
        expect(page.locator("html")).to_have_attribute("data-connection", "live",
                                                       timeout=30_000)
        expect(page.locator("html")).to_have_attribute("data-revision", re.compile(r"\d+"),
                                                       timeout=30_000)
        fonts = page.evaluate("() => document.fonts.ready.then(() => [...document.fonts]"
                              ".filter(f => f.status === 'loaded').length)")
        assert fonts >= 1, (label, "no bundled font loaded")
        assert failed == [] and errors == [], (label, failed, errors)
    finally:
        context.close()
