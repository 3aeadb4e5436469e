"""Imports run one way: app → retrieval → query_understanding → kb ← ingest; eval may import anything.

A package that reaches up (kb importing retrieval, say) ties the knowledge base to the page and hides where a
concern lives, so this test reads every import statement, those inside functions too, and fails on one that
runs the wrong way.
"""

from __future__ import annotations

import ast
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGES = ("kb", "ingest", "query_understanding", "retrieval", "eval")
# what each part of the product may import from the project, besides itself
ALLOWED = {
    "kb": set(),
    "ingest": {"kb"},
    "query_understanding": {"kb"},
    "retrieval": {"query_understanding", "kb"},
    "app": {"retrieval", "query_understanding", "kb", "ingest"},  # ingest: the review page's rebuild form
    "eval": {"app", "retrieval", "query_understanding", "kb", "ingest"},
}


def project_imports(path: Path) -> set[str]:
    """The project's top-level packages a file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in ALLOWED)
    return found


def product_files() -> list[tuple[str, Path]]:
    files = [("app", PROJECT / "app.py")]
    for package in PACKAGES:
        files += [(package, path) for path in sorted((PROJECT / package).rglob("*.py")) if "sources" not in path.parts]
    return files


def test_every_import_runs_the_allowed_way():
    wrong = [
        f"{path.relative_to(PROJECT)} imports {imported}"
        for part, path in product_files()
        for imported in sorted(project_imports(path) - ALLOWED[part] - {part})
    ]
    assert wrong == []


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("def later():\n    from retrieval.engine import SearchEngine\n    import eval.tune\n")
    assert project_imports(module) == {"retrieval", "eval"}
