"""The core (intake, engines, extraction, export, CLI scan path) never imports Qt or torch eagerly."""
from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import desktop.core

REPO = Path(__file__).resolve().parent.parent


def _core_modules() -> list[str]:
    names = ["desktop.core"]
    for info in pkgutil.walk_packages(desktop.core.__path__, prefix="desktop.core."):
        names.append(info.name)
    return names


def test_core_imports_no_qt_and_no_heavy_ml() -> None:
    """Import every core module in a fresh interpreter; PySide6, torch and transformers stay unloaded.

    torch/transformers are only loaded when the HunyuanOCR engine actually runs (lazy), so importing the
    engine module must not pull them in.
    """
    modules = _core_modules()
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'torch', 'transformers'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imported: {out.stdout.strip()}"


#: Lower layers never import higher ones (the order of the layers contract in pyproject.toml).
LAYERS = [
    ["desktop.gui"],
    ["desktop.cli", "desktop.core.review"],
    ["desktop.core.pipeline"],
    ["desktop.core.structured", "desktop.core.orientation"],
    ["desktop.core.extraction", "desktop.core.export", "desktop.core.session"],
    ["desktop.core.isolation"],
    ["desktop.core.engines"],
    ["desktop.core.intake", "desktop.core.layout", "desktop.core.doctypes", "desktop.core.settings"],
    ["desktop.core.einvoice"],
    ["desktop.core.model"],
    ["desktop.core.diagnostics", "desktop.core.mupdf"],
]


def test_import_graph_keeps_the_layers_and_qt_out_of_the_core() -> None:
    """The import graph itself (grimp, as import-linter reads it): no chain from the core or the CLI to
    Qt, none from a lower layer to a higher one, none between engines, extraction and intake."""
    import grimp

    graph = grimp.build_graph("desktop", include_external_packages=True)  # no crossing removed: none is left
    # the graph is the real one: the downward imports are there (intake and extraction both read e-invoices)
    assert graph.find_shortest_chains(importer="desktop.core.pipeline", imported="desktop.core.engines", as_packages=True)
    assert graph.find_shortest_chains(importer="desktop.core.intake", imported="desktop.core.einvoice", as_packages=True)
    assert graph.find_shortest_chains(importer="desktop.core.extraction", imported="desktop.core.einvoice", as_packages=True)
    assert graph.find_shortest_chains(importer="desktop.gui", imported="PySide6", as_packages=True)
    for low in ("desktop.core", "desktop.cli"):
        assert graph.find_shortest_chains(importer=low, imported="PySide6", as_packages=True) == set(), low
    for i, upper in enumerate(LAYERS):
        for lower in LAYERS[i + 1:]:
            for a in upper:
                for b in lower:
                    chains = graph.find_shortest_chains(importer=b, imported=a, as_packages=True)
                    assert not chains, f"{b} imports {a}: {sorted(chains)[:1]}"
    trio = ["desktop.core.engines", "desktop.core.extraction", "desktop.core.intake"]
    for a in trio:
        for b in trio:
            if a != b:  # no exception: the worker that hosts page rendering lives in desktop.core.isolation
                assert not graph.find_shortest_chains(importer=a, imported=b, as_packages=True), (a, b)
    # where engines and intake meet: the worker process opens pages and hosts an engine
    assert graph.find_shortest_chains(importer="desktop.core.isolation", imported="desktop.core.intake", as_packages=True)
    assert graph.find_shortest_chains(importer="desktop.core.isolation", imported="desktop.core.engines", as_packages=True)


#: The one cycle between core packages left: extraction.split_documents (a wrapper kept for callers)
#: asks boundaries.document_ranges, which reads the pages with extraction's parsers.
KNOWN_CYCLES = {("desktop.core.boundaries", "desktop.core.extraction")}


def test_core_packages_import_each_other_one_way() -> None:
    """No two core packages import each other (directly or through others), so each can be read, tested
    and replaced from the bottom up (the duplicate check no longer asks the vendor memory for its text
    normaliser: the memory uses the duplicate check's)."""
    import itertools

    import grimp

    graph = grimp.build_graph("desktop")
    packages = sorted({".".join(m.split(".")[:3]) for m in graph.modules if m.startswith("desktop.core.")})
    assert {"desktop.core.memory", "desktop.core.duplicates", "desktop.core.review"} <= set(packages)
    cycles = {(a, b) for a, b in itertools.combinations(packages, 2)
              if graph.find_shortest_chains(importer=a, imported=b, as_packages=True)
              and graph.find_shortest_chains(importer=b, imported=a, as_packages=True)}
    assert cycles == KNOWN_CYCLES
