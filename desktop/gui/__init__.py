"""The PySide6 desktop app (the only package that imports Qt).

Modules:
    app         entry point ``main(argv)``: QApplication, translations, the main window
    mainwindow  the main window: queue, page viewer, field form, menus, export, session
    queue       the document queue model (one row per queued file or read document)
    viewer      the page viewer (QGraphicsView) with recognised-line outlines
    form        the field form of a document type
    worker      background reading (QObject in a QThread) and image loading
    commands    undoable edits (QUndoCommand)
    dialogs     settings dialog and About box
    engine_label the status bar's engine label (the engine in a clerk's words, details in its tooltip)
    previews    page previews stored with the session (the page at once after a restart)
    resources   icons and translations
"""
from desktop.gui._pyside_fix import make_true_immortal as _make_true_immortal

_make_true_immortal()  # PySide6 6.12 queued signals drop references to True (see _pyside_fix)
