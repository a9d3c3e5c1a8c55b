"""Icons (``resources/icons/*.svg``) and translations (``resources/translations/*.qm``)."""
from __future__ import annotations

import logging
from functools import cache

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QIcon

from desktop.resources import resources_dir

log = logging.getLogger(__name__)

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
"""UI languages: code -> name shown in its own language."""


@cache
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty icon when missing)."""
    path = resources_dir() / "icons" / f"{name}.svg"
    if not path.is_file():
        log.warning("icon %s missing", path)
        return QIcon()
    return QIcon(str(path))


def resolve_language(setting: str) -> str:
    """``system`` / ``en`` / ``zh_CN`` -> the language to load (``system`` follows the system locale:
    any Chinese locale gives ``zh_CN``, anything else English)."""
    if setting in LANGUAGES:
        return setting
    name = QLocale.system().name()
    return "zh_CN" if name.startswith("zh") else "en"


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Load Shoebox's and Qt's own translations for ``language`` into ``app``.

    Returns the installed translators (keep them alive). English, the source language, loads only
    ``shoebox_en.qm``: the plural forms of the ``%n`` messages ("1 field to check", "2 fields to
    check"), as Qt's "Handling Plurals" guide does (``pyside6-lupdate -pluralonly``).

    Qt's catalogue is installed after ours: Qt asks the most recently installed translator first, so
    Qt's translations of its own dialogs win and ours (:mod:`desktop.gui.qt_strings`) fill the gaps.
    The default ``QLocale`` follows the language, for what Qt words from the locale rather than a
    catalogue: file sizes (``9 字节``) and file kinds (``PDF 文档``, from the MIME database) in its
    file dialog. English keeps the system's country (its date and number conventions).
    """
    QLocale.setDefault(QLocale(language) if language != "en" else
                       QLocale(QLocale.Language.English, QLocale.system().territory()))
    installed: list[QTranslator] = []
    ours = QTranslator(app)
    if ours.load(f"shoebox_{language}", str(resources_dir() / "translations")):
        app.installTranslator(ours)
        installed.append(ours)
    else:
        log.warning("no Shoebox translation for %s", language)
    if language == "en":
        return installed
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        installed.append(qt)
    return installed


def remove_translators(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Undo :func:`install_translators`: remove ``translators`` and give English back its locale."""
    for t in translators:
        app.removeTranslator(t)
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.system().territory()))
