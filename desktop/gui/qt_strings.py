"""Qt's own strings that Qt's Simplified Chinese catalogue (``qtbase_zh_CN.qm``) lacks.

Qt's file dialog (the widget-based one, used where no platform dialog is available) shows a few
strings that Qt's catalogue for ``zh_CN`` has no translation for: the "Look in:" and "Files of type:"
labels, the kinds of items ("Folder", "File Folder", "Drive", ...) and file sizes. They are listed
here under Qt's own contexts so that ``pyside6-lupdate`` puts them into ``shoebox_zh_CN.ts``; the
app installs Qt's catalogue after its own (:func:`desktop.gui.resources.install_translators`) and Qt
asks the most recently installed translator first, so Qt's translations win and ours only fill its
gaps. Found by comparing the ``QFileDialog``, ``QFileSystemModel`` and ``QAbstractFileIconProvider``
messages of every ``qtbase_*.qm`` Qt ships with ``qtbase_zh_CN.qm`` (PySide6 6.x); checked by
``tests/test_gui_i18n.py``, which opens a file dialog in Chinese and looks for English.
"""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

QT_GAPS = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Alias"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File Folder"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Folder"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Shortcut"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 TB"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 GB"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 MB"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 KB"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 bytes"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "%1 byte(s)"),
    QT_TRANSLATE_NOOP("QFileSystemModel", "<b>The name \"%1\" can not be used.</b><p>Try using another name, with "
                                          "fewer characters or no punctuations marks."),
)
"""The source texts (untranslated; Qt translates them where it shows them)."""
