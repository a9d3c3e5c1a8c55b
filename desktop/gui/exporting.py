"""Export from the window: which documents, where to, and telling the clerk how it went.

Which documents an export writes is the review core's rule (:func:`desktop.core.review.documents_to_export`);
the file is written by :func:`desktop.core.export.export`, all or nothing (a temporary file renamed over
the destination).
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop.core.model import Document
from desktop.core.review import documents_to_export

if TYPE_CHECKING:
    from desktop.gui.mainwindow import MainWindow

__all__ = ["ExportController"]


class ExportController(QObject):
    """The File menu's exports.

    Args:
        window: the main window (queue, selection, settings, status bar).
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def documents_for(self, scope: str) -> list[Document]:
        """``reviewed``, ``all`` (every read document) or ``selected`` documents, in queue order."""
        entries = self.window.model.entries()
        if scope == "selected":
            chosen = set(self.window.selected_ids())
            entries = [e for e in entries if e.id in chosen]
        return documents_to_export((e.document for e in entries), scope)

    def export_dialog(self, scope: str = "reviewed") -> None:
        """Ask where to write the ``scope`` documents (:meth:`documents_for`) and write them. With none
        to write, say why; when none is reviewed yet but some were read, offer File > Export all…"""
        window = self.window
        documents = self.documents_for(scope)
        if not documents and scope == "reviewed" and self.documents_for("all"):
            self._offer_export_all()
            return
        if not documents:
            QMessageBox.information(window, self.tr("Export"), {
                "reviewed": self.tr("No document is marked reviewed yet (Ctrl+Enter marks one)."),
                "selected": self.tr("Select documents in the queue first."),
            }.get(scope, self.tr("Nothing has been read yet.")))
            return
        folder = window.settings.last_export_dir or str(Path.home())
        suggested = str(Path(folder) / f"shoebox-{datetime.now():%Y-%m-%d}.xlsx")
        path, chosen = QFileDialog.getSaveFileName(
            window, self.tr("Export %n document(s)", "", len(documents)), suggested,
            self.tr("Excel workbook (*.xlsx)") + ";;" + self.tr("JSON (*.json)") + ";;" + self.tr("CSV (*.csv)"),
        )
        if not path:
            return
        p = Path(path)
        if p.suffix.lower() not in (".xlsx", ".json", ".csv"):
            p = p.with_suffix("." + chosen.split("*.")[-1].rstrip(")") if "*." in chosen else ".xlsx")
        self.export_documents(documents, p)

    def _offer_export_all(self) -> None:
        """Export reviewed, with documents read but none reviewed: say so, and offer File > Export all…
        (its button opens that export; the clerk who wanted every document need not look for it)."""
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Export"), self.tr(
            "No document is marked reviewed yet (Ctrl+Enter marks one).\n\n"
            "File > Export all… (Ctrl+Shift+E) exports every document read, reviewed or not."), parent=self.window)
        export_all = box.addButton(self.tr("Export all…"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Close)
        box.setDefaultButton(export_all)
        box.exec()
        if box.clickedButton() is export_all:
            self.export_dialog("all")

    def export_documents(self, documents: list[Document], path: Path) -> bool:
        """Write ``documents`` to ``path`` (format by suffix), all or nothing, an xlsx's or CSV's words in the
        UI language (``window.language``); tells the clerk either way."""
        from desktop.core.export import ExportError, export, write_failure

        window = self.window
        path = Path(path)
        try:
            export(documents, path, language=window.language)  # the sheets speak the UI's language
        except Exception as exc:  # ExportError, OSError: shown to the clerk, in the UI's language
            reason = (exc.diagnostic.message(window.language) if isinstance(exc, ExportError) else
                      write_failure(exc, path).message(window.language) if isinstance(exc, OSError) else str(exc))
            QMessageBox.warning(window, self.tr("Export failed"),
                                self.tr("%1 could not be written:\n%2").replace("%1", str(path)).replace("%2", reason))
            return False
        window.settings.last_export_dir = str(path.parent)
        window.save_settings()
        window.statusBar().showMessage(
            self.tr("Exported %n document(s) to %1", "", len(documents)).replace("%1", str(path)), 10000)
        return True
