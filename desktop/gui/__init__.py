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
    resources   icons and translations
"""
