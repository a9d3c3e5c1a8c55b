"""User settings and per-user folders (platformdirs), shared by the command line and the app.

Settings are a small JSON file in the platform's user config folder
(``~/.config/Shoebox/settings.json`` on Linux, ``%LOCALAPPDATA%\\Shoebox`` on Windows: platformdirs with
``appauthor=False``, so no author folder). The session (``session.db``) is in the user data folder
(``~/.local/share/Shoebox`` on Linux, ``%LOCALAPPDATA%\\Shoebox`` on Windows).
``SHOEBOX_HOME`` (a folder) overrides every per-user location (``$SHOEBOX_HOME/data`` and
``$SHOEBOX_HOME/config``): tests and portable installs use it.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import platformdirs

APP_NAME = "Shoebox"


def _home_override() -> Path | None:
    home = os.environ.get("SHOEBOX_HOME")
    return Path(home) if home else None


def _made(path: Path) -> Path:
    """``path``, created when it can be. A read-only or unwritable home is not an error here: reading
    (``shoebox scan``, looking for a model folder) needs no data folder, and whoever writes into it
    reports its own failure (the session falls back to an unsaved one, settings say they could not
    be saved)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return path


def user_data_dir() -> Path:
    """Folder for the session database and the optional ``models/HunyuanOCR`` folder (created when
    possible; it may be missing or read-only)."""
    home = _home_override()
    return _made(home / "data" if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)))


def user_cache_dir() -> Path:
    """Folder for files Shoebox can make again at any time (the engines' optimised models; created when
    possible; it may be missing or read-only)."""
    home = _home_override()
    return _made(home / "cache" if home else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)))


def user_config_dir() -> Path:
    """Folder for ``settings.json`` (created when possible; it may be missing or read-only)."""
    home = _home_override()
    return _made(home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)))


@dataclass
class Settings:
    """What the settings dialog edits.

    Attributes:
        engine: ``auto``, ``ppocr`` (CPU), ``hunyuan`` (GPU) or ``server`` (the office HunyuanOCR server).
        model_dir: HunyuanOCR model folder chosen by the user ("" = search the usual places).
        default_document_type: ``auto`` or a document type name.
        date_locale: how to read ambiguous dates such as 03/04/2024: ``auto`` (from the document),
            ``DMY`` or ``MDY``.
        ui_language: ``system``, ``en`` or ``zh_CN``.
        last_export_dir: the folder the export dialog opened last.
        recent_files: most recent first.
        server_url: base URL of the office HunyuanOCR server (OpenAI-compatible, e.g.
            ``http://gpu-box:8000/v1``); "" = off, the default. ``SHOEBOX_SERVER_URL`` overrides it.
        server_api_key: the server's API key (vLLM ``--api-key``); "" = none.
        server_allow_public: allow a server whose address is not loopback or private-network.
        server_cpu_fallback: read on the CPU (PP-OCR) while the server cannot be reached (each page
            read so says it); off = such pages fail with the reason.
        server_max_in_flight: pages this desktop sends to the server at once.
        server_model: served model name to use ("" = the HunyuanOCR model the server lists).
    """

    engine: str = "auto"
    model_dir: str = ""
    default_document_type: str = "auto"
    date_locale: str = "auto"
    ui_language: str = "system"
    last_export_dir: str = ""
    recent_files: list[str] | None = None
    server_url: str = ""
    server_api_key: str = ""
    server_allow_public: bool = False
    server_cpu_fallback: bool = False
    server_max_in_flight: int = 4
    server_model: str = ""

    @classmethod
    def path(cls) -> Path:
        return user_config_dir() / "settings.json"

    @classmethod
    def load(cls) -> Settings:
        """Read the settings; a missing or unreadable file gives the defaults."""
        try:
            data = json.loads(cls.path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def save(self) -> None:
        """Write atomically (temp file in the same folder, then rename)."""
        path = self.path()
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh, ensure_ascii=False, indent=2)
        os.replace(tmp, path)
