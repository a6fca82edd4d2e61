"""The layering rules: ``overlay -> engine <- capture``, ``engine`` is pure, the service has
no import cycle, every AppKey is in ``keys.py``, and ``tests/`` mirrors the packages."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What engine/ may never import: I/O frameworks, files, devices and the wall clock.
ENGINE_FORBIDDEN = {
    "asyncio", "aiohttp", "cv2", "serial", "serial_asyncio", "serial_asyncio_fast",
    "socket", "sqlmodel", "sqlalchemy", "obswebsocket", "threading", "subprocess",
    "capture", "overlay", "pathlib", "os", "io", "shutil", "tempfile", "glob",
}
# Builtins that reach files or the terminal.
IO_BUILTINS = {"open", "input", "print"}
CAPTURE_FORBIDDEN = {"overlay"}
# Calls that read the clock; engine code takes time as an argument instead.
CLOCK_CALLS = {("time", "time"), ("time", "monotonic"), ("datetime", "now"),
               ("datetime", "utcnow"), ("date", "today"), ("time", "perf_counter")}


def python_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package, forbidden", [("engine", ENGINE_FORBIDDEN),
                                                ("capture", CAPTURE_FORBIDDEN)])
def test_dependencies_point_one_way(package: str, forbidden: set[str]) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) & forbidden)
        for path in python_files(package)
        if imported_roots(path) & forbidden
    }
    assert offenders == {}


def test_engine_reads_no_clock() -> None:
    offenders = []
    for path in python_files("engine"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and (node.func.value.id, node.func.attr) in CLOCK_CALLS):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def io_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [f"{path}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in IO_BUILTINS]


def test_engine_reads_and_writes_no_files() -> None:
    """Text in, text out: PHH files are read in overlay/phh_files.py, not engine/phh.py."""
    assert [call for path in python_files("engine") for call in io_calls(path)] == []


def test_engine_knows_no_devices() -> None:
    """Reader, camera and OBS errors belong to capture/ and overlay/devices/obs/ (one
    hierarchy all the same: they derive from engine.errors.FeltcastError)."""
    tree = ast.parse((ROOT / "engine" / "errors.py").read_text())
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    devices = {name for name in classes
               if any(word in name for word in ("Obs", "Camera", "Reader", "Deck", "Delay"))}
    assert devices == set()


def test_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import asyncio\nfrom overlay.cli import main\nfrom pathlib import Path\n"
                   "print(open('x').read())\n")
    assert imported_roots(bad) & ENGINE_FORBIDDEN == {"asyncio", "overlay", "pathlib"}
    assert len(io_calls(bad)) == 2


def overlay_imports(root: Path, package: str = "overlay") -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports, at any depth (a function's imports
    too), except those for the type checker only (``if TYPE_CHECKING:``)."""
    modules = {}
    for path in (root / package).rglob("*.py"):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        typing_only = {id(node) for block in tree.body if isinstance(block, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(block.test)
                       for node in ast.walk(block)}
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {dep for dep in found if dep in modules and dep != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_service_has_no_import_cycle() -> None:
    assert cycles(overlay_imports(ROOT)) == []


def test_the_cycle_checker_sees_one(tmp_path: Path) -> None:
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "a.py").write_text("from overlay.b import x\n")
    (tmp_path / "overlay" / "b.py").write_text("def f():\n    from overlay import a\n")
    (tmp_path / "overlay" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from overlay import a\n")
    assert cycles(overlay_imports(tmp_path)) == [{"overlay.a", "overlay.b"}]


def test_every_app_key_is_defined_in_keys_py() -> None:
    offenders = []
    for path in python_files("overlay"):
        if path.name == "keys.py" and path.parent.name == "overlay":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        offenders += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Call) and "AppKey" in ast.unparse(node.func)]
    assert offenders == []


TEST_ROOMS = {"pages": "static"}
"""Test folders named otherwise than what they test: the pages in a real browser (static/)."""


def unmirrored_test_folders(root: Path) -> list[str]:
    """Test folders (packages under tests/) with no package or module of that path: a
    test of ``overlay/devices/deck_desk.py`` lives in ``tests/overlay/devices/``."""
    tests = root / "tests"
    strays = []
    for init in sorted(tests.rglob("__init__.py")):
        folder = init.parent.relative_to(tests)
        if folder == Path("."):
            continue
        target = root / TEST_ROOMS.get(folder.parts[0], folder.parts[0]) / Path(*folder.parts[1:])
        if not (target.is_dir() or target.with_suffix(".py").is_file()):
            strays.append(folder.as_posix())
    return strays


def test_the_tests_mirror_the_packages() -> None:
    assert unmirrored_test_folders(ROOT) == []


def test_the_mirror_check_sees_a_stray_folder(tmp_path: Path) -> None:
    for folder in ("overlay/devices", "tests/overlay/devices", "tests/log", "tests/pages"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "static").mkdir()
    assert unmirrored_test_folders(tmp_path) == ["log"]
