"""Static checks of the installer sources (installer/): nothing here runs PyInstaller or dpkg-deb.

What is checked, and why:
- the version lives only in pyproject.toml: every build script reads it through installer/bundle.py, the
  Inno Setup script refuses to compile without it, and desktop.__version__ agrees with it;
- the Linux desktop entry parses and offers exactly the file types intake reads
  (desktop.core.intake.SUPPORTED_SUFFIXES), and so does the Windows "Open with" registration, which must
  never take over a type's default program;
- the spec file compiles and bundles resources where desktop.resources.resources_dir() finds them in the
  frozen layout; the GUI imports no Qt module the spec leaves out;
- the shell scripts parse, torch is never installed unpinned, the icon renders to PNG and ICO.
"""
from __future__ import annotations

import configparser
import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALLER = REPO / "installer"
sys.path.insert(0, str(INSTALLER))
import bundle  # noqa: E402  (installer/bundle.py)

# Suffix -> MIME type as shared-mime-info names them (freedesktop.org.xml); HEIC/HEIF have their own;
# OFD as registered by the OFD vendors' viewers (application/ofd), XML invoices as XML.
SUFFIX_MIME = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg", ".png": "image/png",
    ".tif": "image/tiff", ".tiff": "image/tiff", ".bmp": "image/bmp", ".webp": "image/webp",
    ".heic": "image/heic", ".heif": "image/heif", ".pdf": "application/pdf", ".ofd": "application/ofd",
    ".xml": "application/xml",
}


def _pyproject_version() -> str:
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in desktop entries
    parser.read(INSTALLER / "linux" / "shoebox.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def _iss() -> str:
    return (INSTALLER / "windows" / "shoebox.iss").read_text(encoding="utf-8")


# --- version: one source -----------------------------------------------------------------------------

def test_version_comes_from_pyproject_only():
    version = _pyproject_version()
    assert bundle.version() == version
    import desktop

    assert desktop.__version__ == version, "desktop/__init__.py __version__ differs from pyproject.toml"
    out = subprocess.run([sys.executable, str(INSTALLER / "bundle.py"), "version"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == version
    # no installer source spells the version out
    for path in [*INSTALLER.rglob("*.iss"), *INSTALLER.rglob("*.ps1"), *INSTALLER.rglob("*.sh"),
                 *INSTALLER.rglob("*.spec"), *(INSTALLER / "linux").iterdir()]:
        assert version not in path.read_text(encoding="utf-8"), f"{path} hard-codes the version"


def test_build_scripts_read_the_version_from_bundle_py():
    assert re.search(r'VERSION="\$\("\$PYTHON" installer/bundle.py version\)"',
                     (INSTALLER / "build_linux.sh").read_text())
    assert "installer\\bundle.py version" in (INSTALLER / "build_windows.ps1").read_text()
    assert "/DAppVersion=$Version" in (INSTALLER / "build_windows.ps1").read_text()
    iss = _iss()
    assert "#ifndef AppVersion" in iss and "#error" in iss
    assert re.search(r"^AppVersion=\{#AppVersion\}$", iss, re.M)
    assert re.search(r"^OutputBaseFilename=ShoeboxSetup-\{#AppVersion\}$", iss, re.M)
    assert "Version: @VERSION@" in (INSTALLER / "linux" / "control.in").read_text()


# --- Linux desktop entry and package metadata ---------------------------------------------------------

def test_desktop_entry_parses_and_launches_the_gui_with_files():
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Shoebox"
    assert entry["Exec"] == "shoebox-gui %F"
    assert entry["Icon"] == "shoebox"
    assert entry["Terminal"] == "false"
    assert entry["MimeType"].endswith(";") and entry["Categories"].endswith(";")


def test_desktop_entry_mime_types_match_what_intake_reads():
    intake = importlib.import_module("desktop.core.intake")
    mime_types = [m for m in _desktop_entry()["MimeType"].split(";") if m]
    assert tuple(mime_types) == bundle.MIME_TYPES
    assert set(mime_types) == {SUFFIX_MIME[s] for s in intake.SUPPORTED_SUFFIXES}


def test_control_file_depends_on_the_libraries_qt_needs():
    control = (INSTALLER / "linux" / "control.in").read_text()
    fields = dict(line.split(": ", 1) for line in control.splitlines() if line and not line.startswith(" "))
    depends = {d.split(" ")[0] for d in fields["Depends"].split(", ")}
    assert {"libegl1", "libgl1", "libxkbcommon0", "libxkbcommon-x11-0", "libfontconfig1", "libdbus-1-3",
            "libxcb-cursor0"} <= depends
    assert "fonts-noto-cjk" in fields["Recommends"]
    assert fields["Architecture"] == "amd64" and fields["Package"] == "shoebox"


@pytest.mark.parametrize("script", ["linux/postinst", "linux/postrm"])
def test_maintainer_scripts_are_valid_sh(script):
    path = INSTALLER / script
    assert path.stat().st_mode & 0o111, f"{script} is not executable"
    subprocess.run(["sh", "-n", str(path)], check=True)


def test_build_linux_sh_parses_and_never_installs_torch_unpinned():
    script = INSTALLER / "build_linux.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    for path in (script, INSTALLER / "build_windows.ps1"):
        for line in path.read_text().splitlines():
            if "pip" in line and "install" in line:
                for word in re.findall(r"(?<![\w./])torch\b[^\s\"',)]*", line):
                    assert "torch==2.13.0" in word, f"{path.name}: unpinned torch in: {line.strip()}"
    assert "torch==2.13.0" in bundle.gpu_requirements()


# --- Windows -----------------------------------------------------------------------------------------

def test_iss_open_with_covers_supported_types_without_taking_defaults():
    intake = importlib.import_module("desktop.core.intake")
    iss = _iss()
    open_with = set(re.findall(r'Subkey: "Software\\Classes\\(\.\w+)\\OpenWithProgids"', iss))
    supported = set(re.findall(r'SupportedTypes"; ValueType: string; ValueName: "(\.\w+)"', iss))
    assert open_with == supported == set(intake.SUPPORTED_SUFFIXES) == set(bundle.WINDOWS_EXTENSIONS)
    # a type's default program is its key's default value: never written
    for line in iss.splitlines():
        match = re.search(r'Subkey: "Software\\Classes\\\.\w+([^"]*)"', line)
        if match:
            assert match.group(1) == "\\OpenWithProgids", line
    assert "PrivilegesRequired=admin" in iss and "DefaultDirName={autopf}\\{#AppName}" in iss
    assert 'Name: "{app}\\models"' in iss


# --- PyInstaller spec and the frozen layout ---------------------------------------------------------

def test_spec_compiles():
    source = (INSTALLER / "shoebox.spec").read_text(encoding="utf-8")
    compile(source, "shoebox.spec", "exec")
    for name in ("entry_cli.py", "entry_gui.py", "bundle.py", "make_icons.py"):
        compile((INSTALLER / name).read_text(encoding="utf-8"), name, "exec")


def test_cpu_build_leaves_out_the_gpu_stack_and_unused_qt():
    assert {"torch", "transformers"} <= set(bundle.GPU_PACKAGES)
    assert {"QtCore", "QtGui", "QtWidgets", "QtSvg"} <= set(bundle.QT_MODULES)
    assert not {"QtWebEngineCore", "Qt3DCore", "QtQml", "QtQuick"} & set(bundle.QT_MODULES)


def test_gui_imports_only_bundled_qt_modules():
    gui = REPO / "desktop" / "gui"
    assert gui.is_dir()
    used = set()
    for path in gui.rglob("*.py"):
        used |= set(re.findall(r"PySide6\.(Qt\w+)", path.read_text(encoding="utf-8")))
    assert used <= set(bundle.QT_MODULES), f"add to installer/bundle.py QT_MODULES: {used - set(bundle.QT_MODULES)}"


def test_resources_land_where_resources_dir_finds_them_when_frozen(tmp_path):
    """Rebuild the frozen layout (``<bundle>/desktop/resources.py`` + ``<bundle>/resources/...``)."""
    files = bundle.resource_files()
    assert any(dest == "resources/doctypes" for _src, dest in files)
    for src, dest in files:
        (tmp_path / dest).mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, tmp_path / dest / src.name)
    (tmp_path / "desktop").mkdir()
    shutil.copy2(REPO / "desktop" / "resources.py", tmp_path / "desktop" / "resources.py")
    spec = importlib.util.spec_from_file_location("frozen_resources", tmp_path / "desktop" / "resources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.resources_dir() == tmp_path / "resources"
    shipped = {p.relative_to(tmp_path / "resources") for p in (tmp_path / "resources").rglob("*.json")}
    expected = {p.relative_to(REPO / "resources") for sub in ("doctypes", "labels", "models")
                for p in (REPO / "resources" / sub).glob("*.json")}
    assert shipped == expected


def test_icon_renders_to_png_and_ico(tmp_path):
    assert (REPO / "resources" / "icons" / "shoebox.svg").is_file()
    pytest.importorskip("PySide6.QtSvg")
    from PIL import Image

    result = subprocess.run([sys.executable, str(INSTALLER / "make_icons.py"), str(tmp_path)],
                            capture_output=True, text=True, env={"QT_QPA_PLATFORM": "offscreen",
                                                                 "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    with Image.open(tmp_path / "shoebox.ico") as ico:
        assert (256, 256) in ico.info["sizes"] and (16, 16) in ico.info["sizes"]
    png = Image.open(tmp_path / "hicolor" / "48x48" / "apps" / "shoebox.png")
    assert png.size == (48, 48) and png.getextrema()[3][1] > 0  # something was drawn


def test_desktop_entry_passes_desktop_file_validate():
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate (desktop-file-utils) not installed")
    result = subprocess.run([validator, str(INSTALLER / "linux" / "shoebox.desktop")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
