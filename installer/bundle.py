"""What goes into the Shoebox installer bundles: one place the spec, the build scripts and the tests read.

Plain standard-library Python (no PyInstaller import) so ``tests/test_installer.py`` can check it without a
build, and so ``python installer/bundle.py version`` can feed the version to the shell/PowerShell scripts.

The version lives only in ``pyproject.toml``; every installer artefact (deb control file, package file
name, Inno Setup ``AppVersion``, setup file name) takes it from here at build time, so nothing drifts.
"""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

INSTALLER_DIR = Path(__file__).resolve().parent
REPO = INSTALLER_DIR.parent

#: Qt modules the app uses. The PySide6 hook collects only what is imported; every other PySide6
#: module is excluded outright so nothing pulls in QtQml/QtQuick/QtWebEngine (hundreds of MB).
#: ``tests/test_installer.py`` checks that ``desktop/gui`` imports nothing outside this list.
QT_MODULES: tuple[str, ...] = ("QtCore", "QtGui", "QtWidgets", "QtSvg", "QtSvgWidgets", "QtDBus", "QtNetwork")

#: Python packages never bundled (test tools, other GUI toolkits, notebooks).
ALWAYS_EXCLUDED: tuple[str, ...] = (
    "tkinter", "_tkinter", "matplotlib", "IPython", "jupyter", "notebook", "pytest", "_pytest",
    "pytestqt", "xdist", "importlinter", "PyQt5", "PyQt6", "sphinx", "setuptools", "pip",
    # onnxruntime's optional training/tools front ends pull torch, sympy and friends
    "onnxruntime.training", "onnxruntime.tools", "onnxruntime.transformers", "onnxruntime.quantization",
    "sympy",
    # pymupdf >= 2 imports pymupdf.layout (pymupdf-layout) when present, which loads ONNX layout
    # models at ``import pymupdf`` (about 1 s and 50 MB here); Shoebox never calls Page.get_layout().
    "pymupdf.layout", "pymupdf4llm",
)

#: The GPU engine's stack (HunyuanOCR through transformers); left out of the default CPU bundle.
GPU_PACKAGES: tuple[str, ...] = (
    "torch", "torchvision", "torchaudio", "transformers", "accelerate", "tokenizers", "safetensors",
    "huggingface_hub", "triton", "bitsandbytes", "flash_attn",
)

#: Distributions whose metadata ships, for ``shoebox --version`` (desktop.cli.version_text).
METADATA_DISTRIBUTIONS: tuple[str, ...] = (
    "shoebox", "rapidocr", "onnxruntime", "PyMuPDF", "Pillow", "openpyxl", "PySide6-Essentials",
)
GPU_METADATA_DISTRIBUTIONS: tuple[str, ...] = ("torch", "transformers", "accelerate", "tokenizers")

#: Only the ``.qm`` files for these languages are kept from Qt's own translations.
QT_TRANSLATION_LANGUAGES: tuple[str, ...] = ("en", "zh_CN")

#: Document types offered in "Open with" (Linux MIME types and Windows file extensions).
MIME_TYPES: tuple[str, ...] = (
    "image/jpeg", "image/png", "image/tiff", "image/bmp", "image/webp", "image/heic", "image/heif",
    "application/pdf", "application/ofd", "application/xml",
)
#: The file-name suffixes Windows associates (OpenWithProgids), kept equal to
#: ``desktop.core.intake.SUPPORTED_SUFFIXES`` by the test suite.
WINDOWS_EXTENSIONS: tuple[str, ...] = (
    ".jpg", ".jpeg", ".jpe", ".png", ".tif", ".tiff", ".bmp", ".webp", ".heic", ".heif", ".pdf", ".ofd", ".xml",
)

#: Data files of ``resources/`` that ship (same patterns as pyproject's package-data).
RESOURCE_PATTERNS: tuple[str, ...] = (
    "doctypes/*.json", "labels/*.json", "models/*.json", "icons/*.svg", "icons/*.png", "translations/*.qm",
)


def project() -> dict:
    """The ``[project]`` table of ``pyproject.toml``."""
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]


def version() -> str:
    """The project version, e.g. ``"0.1.0"`` (from pyproject.toml)."""
    return str(project()["version"])


def gpu_requirements() -> list[str]:
    """The ``[gpu]`` extra's requirements (torch pinned there, never unpinned here)."""
    return list(project()["optional-dependencies"]["gpu"])


def resource_files() -> list[tuple[Path, str]]:
    """``(source file, destination folder inside the bundle)`` for every shipped resource.

    The destination is ``resources/<sub folder>`` at the bundle root, which is
    ``Path(desktop/resources.py).parent.parent / "resources"`` in the frozen layout, the first place
    :func:`desktop.resources.resources_dir` looks.
    """
    out: list[tuple[Path, str]] = []
    root = REPO / "resources"
    for pattern in RESOURCE_PATTERNS:
        for path in sorted(root.glob(pattern)):
            out.append((path, str(Path("resources") / path.parent.relative_to(root))))
    return out


if __name__ == "__main__":
    # python installer/bundle.py version | gpu-requirements
    command = sys.argv[1] if len(sys.argv) > 1 else "version"
    if command == "version":
        print(version())
    elif command == "gpu-requirements":
        print("\n".join(gpu_requirements()))
    else:
        raise SystemExit(f"unknown command {command!r} (version | gpu-requirements)")
