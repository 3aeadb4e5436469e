"""Imports run one way, from the page down to the foundation; eval may import anything, tests never import eval.

The layers, top to bottom: app → page → review → retrieval → query_understanding → kb → foundation, with
ingest beside the page building the knowledge base
(ingest → kb, and → review for volunteers' accepted bank entries), and testing (fakes and local servers) used
by tests and the evaluator alone. A package that reaches up (kb importing retrieval, say) ties the knowledge
base to the page and hides where a concern lives, so this test reads every import statement, those inside
functions too, and fails on one that runs the wrong way or closes a circle between modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PRODUCT = ("foundation", "kb", "ingest", "query_understanding", "retrieval", "review", "page", "app")
# what each part may import from the project, besides itself
ALLOWED = {
    "foundation": set(),
    "kb": {"foundation"},
    "ingest": {"review", "kb", "foundation"},  # `python -m ingest` reads the accepted bank additions from the log
    "query_understanding": {"kb", "foundation"},
    "retrieval": {"query_understanding", "kb", "foundation"},
    "review": {"retrieval", "kb", "foundation"},
    "page": {"review", "retrieval", "query_understanding", "kb", "foundation"},
    "app": {"page", "review", "retrieval", "query_understanding", "kb", "ingest", "foundation"},
    "testing": set(PRODUCT),
    "eval": set(PRODUCT) | {"testing"},
    "tests": set(PRODUCT) | {"testing", "tests"},
}


def imported_modules(path: Path) -> set[str]:
    """The project's modules a file imports, as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] in ALLOWED}


def project_imports(path: Path) -> set[str]:
    """The project's top-level packages a file imports."""
    return {name.split(".")[0] for name in imported_modules(path)}


def project_files() -> list[tuple[str, Path]]:
    files = [("app", PROJECT / "app.py")]
    for package in sorted(set(ALLOWED) - {"app"}):
        files += [(package, path) for path in sorted((PROJECT / package).rglob("*.py")) if "sources" not in path.parts]
    return files


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PROJECT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_import_runs_the_allowed_way():
    wrong = [
        f"{path.relative_to(PROJECT)} imports {imported}"
        for part, path in project_files()
        for imported in sorted(project_imports(path) - ALLOWED[part] - {part})
    ]
    assert wrong == []


def test_no_module_imports_itself_round_a_circle():
    graph = {module_name(path): imported_modules(path) for _, path in project_files() if "tests" not in path.parts}
    graph = {module: {m for m in imports if m in graph and m != module} for module, imports in graph.items()}
    circles, state = [], {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for neighbour in sorted(graph[module]):
            if state.get(neighbour) == "open":
                circles.append(" → ".join(trail[trail.index(neighbour) :] + [neighbour]))
            elif neighbour not in state:
                visit(neighbour, trail + [neighbour])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("def later():\n    from retrieval.engine import SearchEngine\n    import eval.tune\n")
    assert project_imports(module) == {"retrieval", "eval"}
