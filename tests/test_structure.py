"""The code's shape: no import circle in ``scoring`` and ``vision``, ``scoring`` independent of
``vision``, and small modules.

Every import counts, at module level or inside a function (a lazy import is still a dependency,
and a circle hidden in a function breaks as soon as someone moves the import up). Module size:
none over MAX_LINES lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision")
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of PACKAGES."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of PACKAGES that ``module`` imports anywhere in its source. ``from p import n``
    imports the module ``p.n`` when there is one, else the module ``p``."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                here = here[:len(here) - node.level + 1]
                base = ".".join([*here, base] if base else here)
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {name for name in out if name in modules and name != module}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_the_graph_sees_imports_at_every_level() -> None:
    graph = _graph()
    assert "scoring.patterns.registry" in graph["scoring.patterns.honours"]  # module level
    assert "vision.synth.occluders" in graph["vision.synth.clutter"]  # ``from package import module``
    assert "scoring" in graph["vision.decode.hand"]  # inside a function
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle() -> None:
    circles = _circles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_scoring_never_imports_vision() -> None:
    graph = _graph()
    offenders = sorted(f"{name} imports {target}" for name, targets in graph.items()
                       if name.split(".")[0] == "scoring"
                       for target in targets if target.split(".")[0] == "vision")
    assert not offenders, "; ".join(offenders)


def test_modules_stay_small() -> None:
    too_long = []
    for path in _modules().values():
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            too_long.append(f"{name}: {lines} lines (at most {MAX_LINES})")
    assert not too_long, "modules too long: " + "; ".join(too_long)

