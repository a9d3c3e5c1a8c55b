"""The Vendors dialog: the vendor memory's profiles, and the clerk's hand on them.

Lists every profile (name, address, how many confirmed documents taught it, when one was last
confirmed) and lets the clerk rename, edit, merge and delete profiles, and export / import them as
JSON so an office can share one list (:mod:`desktop.core.memory`). Every change is committed to the
session database at once. Deleting asks first; nothing else deletes a profile.
"""
from __future__ import annotations

import errno
import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.doctypes import document_types
from desktop.core.memory import MemoryError_, VendorMemory, VendorProfile

COLUMNS = ("Name", "Address", "Documents", "Last seen")


class ProfileEditor(QDialog):
    """Edit one profile's values (vendor name, address, tax ID, document type, currency)."""

    def __init__(self, profile: VendorProfile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Edit vendor"))
        form = QFormLayout(self)
        self.edits: dict[str, QLineEdit] = {}
        for name, label in (("vendor_name", self.tr("&Name:")), ("vendor_address", self.tr("&Address:")),
                            ("vendor_tax_id", self.tr("&Tax ID:")), ("currency", self.tr("&Currency:"))):
            edit = QLineEdit(profile.values.get(name, ""), self)
            edit.setObjectName(f"edit_{name}")
            edit.setMinimumWidth(360)
            self.edits[name] = edit
            form.addRow(label, edit)
        self.type_combo = QComboBox(self)
        self.type_combo.setObjectName("edit_document_type")
        self.type_combo.addItem(self.tr("(as detected)"), "")
        for name, dtype in document_types().items():
            self.type_combo.addItem(dtype.label_for("en"), name)
        index = self.type_combo.findData(profile.values.get("document_type", ""))
        self.type_combo.setCurrentIndex(max(0, index))
        form.addRow(self.tr("Document &type:"), self.type_combo)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, str]:
        out = {name: edit.text().strip() for name, edit in self.edits.items()}
        out["document_type"] = str(self.type_combo.currentData() or "")
        return out


class VendorsDialog(QDialog):
    """The Vendors dialog (see the module docstring).

    Args:
        memory: the vendor memory.

    Signals:
        changed(): a profile was changed, merged, deleted or imported.
    """

    changed = Signal()

    def __init__(self, memory: VendorMemory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vendors_dialog")
        self.setWindowTitle(self.tr("Vendors"))
        self.resize(820, 480)
        self.memory = memory
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("What Shoebox learned from the documents you confirmed. A vendor's values fill "
                               "in later documents from the same vendor; everything stays on this computer."), self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("vendors")
        self.table.setHorizontalHeaderLabels([self.tr("Name"), self.tr("Address"), self.tr("Documents"),
                                              self.tr("Last seen")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.itemDoubleClicked.connect(lambda _item: self.edit_dialog())
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.rename_button = self._button(self.tr("&Rename…"), self.rename_dialog, row)
        self.edit_button = self._button(self.tr("&Edit…"), self.edit_dialog, row)
        self.merge_button = self._button(self.tr("&Merge"), self.merge_dialog, row)
        self.delete_button = self._button(self.tr("&Delete…"), self.delete_dialog, row)
        row.addStretch(1)
        self.import_button = self._button(self.tr("&Import…"), self.import_dialog, row)
        self.export_button = self._button(self.tr("E&xport…"), self.export_dialog, row)
        close = self._button(self.tr("Close"), self.accept, row)
        close.setDefault(True)
        layout.addLayout(row)
        self.status = QLabel(self)
        self.status.setObjectName("vendors_status")
        layout.addWidget(self.status)
        self.refresh()

    def _button(self, text: str, slot, row: QHBoxLayout) -> QPushButton:
        b = QPushButton(text, self)
        b.clicked.connect(slot)
        row.addWidget(b)
        return b

    # -- the list -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fill the table from the memory (selection kept where the profiles still exist)."""
        keep = set(self.selected_ids())
        profiles = self.memory.profiles()
        self.table.setRowCount(len(profiles))
        for r, p in enumerate(profiles):
            seen = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.last_seen)) if p.last_seen else ""
            for c, text in enumerate((p.name, p.values.get("vendor_address", ""), str(p.documents), seen)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, p.id)
                if c == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == 0:
                    item.setToolTip("\n".join(f"{k}: {v}" for k, v in p.values.items()))
                self.table.setItem(r, c, item)
            if p.id in keep:
                self.table.selectRow(r)
        self.status.setText(self.tr("%n vendor(s)", "", len(profiles)))
        self._update_buttons()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [int(self.table.item(r, 0).data(Qt.ItemDataRole.UserRole)) for r in rows if self.table.item(r, 0)]

    def select_ids(self, ids: list[int]) -> None:
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for r in range(self.table.rowCount()):
            if int(self.table.item(r, 0).data(Qt.ItemDataRole.UserRole)) in ids:
                self.table.selectRow(r)
        self.table.setSelectionMode(mode)

    def _update_buttons(self) -> None:
        n = len(self.selected_ids())
        self.rename_button.setEnabled(n == 1)
        self.edit_button.setEnabled(n == 1)
        self.merge_button.setEnabled(n >= 2)
        self.delete_button.setEnabled(n >= 1)
        self.export_button.setEnabled(self.table.rowCount() > 0)

    def _done(self, message: str) -> None:
        self.refresh()
        self.status.setText(message)
        self.changed.emit()

    def _language(self) -> str:
        return str(getattr(self.parent(), "language", "en"))  # the window's UI language

    def _fail(self, exc: Exception) -> None:
        from desktop.core.diagnostics import error_text

        QMessageBox.warning(self, self.tr("Vendors"), error_text(exc, self._language()))

    # -- actions (the *_dialog slots ask, the plain methods do) ------------------------------------
    def rename(self, profile_id: int, name: str) -> bool:
        try:
            self.memory.rename(profile_id, name)
        except MemoryError_ as exc:
            self._fail(exc)
            return False
        self._done(self.tr("Renamed to %1").replace("%1", name.strip()))
        return True

    def rename_dialog(self) -> None:
        ids = self.selected_ids()
        profile = self.memory.profile(ids[0]) if len(ids) == 1 else None
        if profile is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename vendor"), self.tr("Vendor name:"), text=profile.name)
        if ok:
            self.rename(profile.id, name)

    def edit(self, profile_id: int, values: dict[str, str]) -> bool:
        try:
            self.memory.edit(profile_id, **values)
        except MemoryError_ as exc:
            self._fail(exc)
            return False
        self._done(self.tr("Vendor saved"))
        return True

    def edit_dialog(self) -> None:
        ids = self.selected_ids()
        profile = self.memory.profile(ids[0]) if len(ids) == 1 else None
        if profile is None:
            return
        editor = ProfileEditor(profile, self)
        if editor.exec() == QDialog.DialogCode.Accepted:
            changed = {k: v for k, v in editor.values().items() if v != profile.values.get(k, "")}
            if changed:
                self.edit(profile.id, changed)

    def merge(self, ids: list[int]) -> bool:
        """Merge every profile of ``ids`` into the first one."""
        if len(ids) < 2:
            return False
        try:
            for other in ids[1:]:
                self.memory.merge(ids[0], other)
        except MemoryError_ as exc:
            self._fail(exc)
            return False
        self.select_ids([ids[0]])
        self._done(self.tr("%n vendor(s) merged", "", len(ids)))
        return True

    def merge_dialog(self) -> None:
        ids = self.selected_ids()
        if len(ids) < 2:
            return
        names = {p.id: p.name for p in self.memory.profiles()}
        keep, ok = QInputDialog.getItem(self, self.tr("Merge vendors"),
                                        self.tr("These vendors become one. Keep the name:"),
                                        [names[i] for i in ids], 0, False)
        if not ok:
            return
        first = next(i for i in ids if names[i] == keep)
        self.merge([first, *[i for i in ids if i != first]])

    def delete(self, ids: list[int]) -> None:
        for pid in ids:
            self.memory.delete(pid)
        self._done(self.tr("%n vendor(s) deleted", "", len(ids)))

    def delete_dialog(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        answer = QMessageBox.question(
            self, self.tr("Delete vendors"),
            self.tr("Forget %n vendor(s) and what their documents taught? The documents themselves stay.", "",
                    len(ids)))
        if answer == QMessageBox.StandardButton.Yes:
            self.delete(ids)

    def export_to(self, path: Path) -> bool:
        try:
            n = self.memory.export_json(path)
        except OSError as exc:
            from desktop.core.export import write_failure

            message = self.tr("Could not write %1: %2").replace("%1", str(path))
            self._fail(OSError(message.replace("%2", write_failure(exc, path).message(self._language()))))
            return False
        self.status.setText(self.tr("%n vendor(s) written to %1", "", n).replace("%1", str(path)))
        return True

    def export_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, self.tr("Export vendors"), "vendors.json",
                                              self.tr("Vendor list (*.json)"))
        if name:
            self.export_to(Path(name))

    def import_from(self, path: Path) -> bool:
        try:
            n = self.memory.import_json(path)
        except OSError as exc:
            from desktop.core.diagnostics import Code, DiagnosticError, diag

            code = {errno.ENOENT: Code.FILE_NOT_FOUND, errno.EISDIR: Code.IS_A_FOLDER}.get(exc.errno or 0)
            why = diag(code) if code else diag(Code.FILE_UNREADABLE, detail=exc.strerror or str(exc))
            self._fail(DiagnosticError(diag(Code.VENDOR_LIST_UNREADABLE, file=str(path), reason=why)))
            return False
        except MemoryError_ as exc:
            self._fail(exc)
            return False
        self._done(self.tr("%n document(s) learned from %1", "", n).replace("%1", Path(path).name))
        return True

    def import_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Import vendors"), "", self.tr("Vendor list (*.json)"))
        if name:
            self.import_from(Path(name))


class DuplicateBanner(QWidget):
    """The note above the form of a possible duplicate (``Document.duplicate_of``): which earlier
    document it matches and why, a link to it, and the clerk's two answers.

    Signals:
        open_earlier(source, first_page): the clerk clicked the earlier document.
        keep_both(): it is not a duplicate (the mark goes; it is not raised again).
        drop_this(): it is a duplicate: remove this one from the queue.
    """

    open_earlier = Signal(str, int)
    keep_both = Signal()
    drop_this = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("duplicate_banner")
        self.setStyleSheet("#duplicate_banner { background: #fff3e0; border: 1px solid #ffb74d; border-radius: 4px; }")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel(self)
        self.label.setObjectName("duplicate_text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.linkActivated.connect(self._link)
        row.addWidget(self.label, 1)
        self.keep_button = QPushButton(self.tr("Keep both"), self)
        self.keep_button.setObjectName("keep_both")
        self.keep_button.setToolTip(self.tr("It is a different document: keep it and stop marking it"))
        self.keep_button.clicked.connect(self.keep_both)
        row.addWidget(self.keep_button)
        self.drop_button = QPushButton(self.tr("Drop this one"), self)
        self.drop_button.setObjectName("drop_this")
        self.drop_button.setToolTip(self.tr("It was already claimed: remove this copy from the queue (the file stays)"))
        self.drop_button.clicked.connect(self.drop_this)
        row.addWidget(self.drop_button)
        self._mark: dict | None = None
        self.hide()

    def show_mark(self, mark: dict | None, earlier_row: int | None = None) -> None:
        """Show the banner for ``mark`` (``Document.duplicate_of``), or hide it for ``None``.

        Args:
            earlier_row: the queue row (from 1) of the earlier document, named beside its file (the same
                file dropped twice has one name for both); ``None``: it is no longer in the queue (it
                was confirmed and cleared; the memory remembered it), which the banner says.
        """
        import html

        self._mark = mark
        if not mark:
            self.hide()
            return
        first, last = (list(mark.get("pages") or [1, 1]) + [1, 1])[:2]
        name = Path(str(mark.get("source", ""))).name
        if first == last == 1:
            where = name
        elif first == last:
            where = self.tr("%1 (p. %2)").replace("%1", name).replace("%2", str(first))
        else:
            where = self.tr("%1 (p. %2–%3)").replace("%1", name).replace("%2", str(first)).replace("%3", str(last))
        if earlier_row is not None:
            where = self.tr("%1, row %2 of the queue").replace("%1", where).replace("%2", str(earlier_row))
        else:
            where = self.tr("%1, read before (no longer in the queue)").replace("%1", where)
        from desktop.core.duplicates import reason_of

        why = reason_of(mark).message(str(getattr(self.parent(), "language", "en")))  # the panel's UI language
        self.label.setText(self.tr("Possible duplicate of %1: %2.")
                           .replace("%1", f'<a href="earlier">{html.escape(where)}</a>').replace("%2", html.escape(why)))
        self.label.setToolTip(str(mark.get("source", "")))
        self.show()

    def _link(self, _href: str) -> None:
        if self._mark:
            self.open_earlier.emit(str(self._mark.get("source", "")), int((self._mark.get("pages") or [1])[0]))
