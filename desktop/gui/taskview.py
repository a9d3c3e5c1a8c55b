"""The "Task output" tab: what an extra engine task (Document menu) wrote for the current document.

The tasks are HunyuanOCR's: ``markdown`` (the document as Markdown, tables as HTML), ``table`` (tables as
HTML), ``translate_en`` / ``translate_zh`` (the page's text translated). Their answers are stored on the
document (``Document.extras[task]`` = ``[{"page": n, "text": ...}]``, see
:func:`desktop.core.pipeline.run_task`); this tab shows one task's answer for every page, lets the clerk
copy it, and saves it as ``.md`` / ``.html`` / ``.txt``.

Model output is untrusted text: it is shown in a :class:`SafeTextBrowser`, which follows no link and
loads no resource (an ``<img src="http://...">`` or ``file:///...`` in a model's HTML fetches nothing).
"""
from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.core.diagnostics import Diagnostic
from desktop.core.model import Document

TASK_ORDER = ("markdown", "table", "translate_en", "translate_zh")
"""The Document menu's tasks, in menu order (``pipeline.TASKS``)."""


def task_family(task: str) -> str:
    """The engine capability a task needs: ``translate_en`` -> ``translate``."""
    return task.split("_")[0]


def task_text(document: Document | None, task: str) -> str:
    """One task's answer for every page of ``document`` as one text ("" when there is none).

    Pages of a document with more than one answer are marked (an HTML comment for ``markdown`` and
    ``table``, which hides it when rendered; ``[Page n]`` for translations).
    """
    outputs = [o for o in (document.extras.get(task) or [] if document else []) if isinstance(o, dict)]
    texts = [(o.get("page"), str(o.get("text") or "")) for o in outputs]
    if len(texts) == 1:
        return texts[0][1]
    if task in ("markdown", "table"):
        return "\n\n".join(f"<!-- Page {page} -->\n{text}" for page, text in texts)
    return "\n\n".join(f"[Page {page}]\n{text}" for page, text in texts)


def html_page(body: str, title: str) -> str:
    """A minimal UTF-8 HTML document around ``body`` (the model's HTML, as written)."""
    return (f'<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"</head>\n<body>\n{body}\n</body>\n</html>\n")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file beside it, renamed over the target.

    Raises:
        OSError: the folder is not writable, the disk is full, ... (no partial file is left behind).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class SafeTextBrowser(QTextBrowser):
    """A read-only rich-text view that opens no link and loads no image, style sheet or other resource."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.blocked: set[str] = set()  # what the HTML asked for (for tests and debugging)

    def loadResource(self, kind: int, name: QUrl) -> Any:  # Qt API
        """Refuse every resource (QTextBrowser would otherwise read local files named by the HTML)."""
        if len(self.blocked) < 1000:
            self.blocked.add(name.toString())
        return None


class TaskOutputPanel(QWidget):
    """The Task output tab.

    Signals:
        status(message): a line for the status bar (copied, saved).
    """

    status = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document: Document | None = None
        self.language = "en"  # the UI language problems are worded in (the window sets it)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        self.task_combo = QComboBox(self)
        self.task_combo.setObjectName("task_combo")
        self.task_combo.currentIndexChanged.connect(lambda _i: self._render())
        self.source_check = QCheckBox(self.tr("Source"), self)
        self.source_check.setToolTip(self.tr("Show the Markdown or HTML as written instead of formatted"))
        self.source_check.toggled.connect(lambda _on: self._render())
        self.copy_button = QPushButton(self.tr("Copy"), self)
        self.copy_button.setObjectName("task_copy")
        self.copy_button.setToolTip(self.tr("Copy the output (Markdown or HTML as written) to the clipboard"))
        self.copy_button.clicked.connect(self.copy)
        self.save_button = QPushButton(self.tr("Save as…"), self)
        self.save_button.setObjectName("task_save")
        self.save_button.clicked.connect(self.save_dialog)
        row.addWidget(self.task_combo, 1)
        row.addWidget(self.source_check)
        row.addWidget(self.copy_button)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.message = QLabel(self)
        self.message.setObjectName("task_message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828;")
        self.message.hide()
        layout.addWidget(self.message)
        self.browser = SafeTextBrowser(self)
        self.browser.setObjectName("task_output")
        layout.addWidget(self.browser, 1)
        self.set_document(None)

    def labels(self) -> dict[str, str]:
        return {
            "markdown": self.tr("Markdown"),
            "table": self.tr("Tables (HTML)"),
            "translate_en": self.tr("English translation"),
            "translate_zh": self.tr("Chinese translation"),
        }

    # -- content ------------------------------------------------------------------------------------
    def tasks(self) -> list[str]:
        """The tasks with an answer on the current document, in menu order."""
        doc = self.document
        return [t for t in TASK_ORDER if doc is not None and doc.extras.get(t)]

    def current_task(self) -> str | None:
        data = self.task_combo.currentData()
        return str(data) if data else None

    def text(self) -> str:
        """The current task's answer as written (what Copy copies and Save writes)."""
        task = self.current_task()
        return task_text(self.document, task) if task else ""

    def set_document(self, document: Document | None, task: str | None = None) -> None:
        """Show ``document``'s task answers (``task`` chosen, else the one shown before if present)."""
        keep = task or self.current_task()
        self.document = document
        labels = self.labels()
        self.task_combo.blockSignals(True)
        self.task_combo.clear()
        for t in self.tasks():
            self.task_combo.addItem(labels[t], t)
        index = self.task_combo.findData(keep) if keep else -1
        self.task_combo.setCurrentIndex(index if index >= 0 else (0 if self.task_combo.count() else -1))
        self.task_combo.blockSignals(False)
        self.show_error("")
        self._render()

    def show_error(self, message: str) -> None:
        self.message.setText(message)
        self.message.setVisible(bool(message))

    def _render(self) -> None:
        task = self.current_task()
        has = bool(task)
        for w in (self.task_combo, self.copy_button, self.save_button, self.source_check):
            w.setEnabled(has)
        if not task:
            self.browser.setPlainText(self.tr(
                "No task output yet. The Document menu converts a document to Markdown, extracts its tables "
                "as HTML or translates it (with the HunyuanOCR engine on a GPU)."))
            return
        text = self.text()
        problems = (self.document.extras.get("task_problems") or {}).get(task) if self.document else None
        if problems:
            reasons = "; ".join(Diagnostic.from_dict(p).message(self.language) for p in problems)
            self.show_error(self.tr("Not every page could be processed: %1").replace("%1", reasons))
        if self.source_check.isChecked() or task.startswith("translate"):
            self.browser.setPlainText(text)
        elif task == "markdown":
            self.browser.setMarkdown(text)
        else:
            self.browser.setHtml(text)

    # -- actions --------------------------------------------------------------------------------------
    def copy(self) -> None:
        text = self.text()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.status.emit(self.tr("Copied to the clipboard."))

    def suggested_path(self, folder: str | Path) -> Path:
        task = self.current_task() or "output"
        stem = Path(self.document.source).stem if self.document else "document"
        suffix = {"markdown": ".md", "table": ".html"}.get(task, ".txt")
        return Path(folder) / f"{stem}-{task}{suffix}"

    def save_dialog(self, folder: str | Path = "") -> Path | None:
        """Ask where to save the current answer and save it (see :meth:`save`)."""
        if not self.text():
            return None
        suggested = self.suggested_path(folder or Path.home())
        filters = [self.tr("Markdown (*.md)"), self.tr("HTML (*.html)"), self.tr("Text (*.txt)")]
        preferred = {".md": 0, ".html": 1}.get(suggested.suffix, 2)
        path, _chosen = QFileDialog.getSaveFileName(self, self.tr("Save task output"), str(suggested),
                                                    ";;".join(filters), filters[preferred])
        if not path:
            return None
        p = Path(path)
        if p.suffix.lower() not in (".md", ".html", ".htm", ".txt"):
            p = p.with_name(p.name + suggested.suffix)
        return p if self.save(p) else None

    def save(self, path: str | Path) -> bool:
        """Write the current answer to ``path``: ``.html``/``.htm`` as a UTF-8 HTML page (Markdown and
        translations are escaped into ``<pre>``), ``.md``/``.txt`` as written. Tells the clerk either way."""
        path = Path(path)
        text = self.text()
        task = self.current_task() or ""
        if path.suffix.lower() in (".html", ".htm"):
            body = text if task == "table" else f"<pre>{html.escape(text)}</pre>"
            content = html_page(body, f"{Path(self.document.source).name if self.document else ''} {task}".strip())
        else:
            content = text if text.endswith("\n") else text + "\n"
        try:
            write_atomic(path, content)
        except OSError as exc:
            from desktop.core.export import write_failure

            reason = write_failure(exc, path).message(self.language)  # in the UI's words, not the OS's English
            QMessageBox.warning(self, self.tr("Save failed"),
                                self.tr("%1 could not be written:\n%2").replace("%1", str(path)).replace("%2", reason))
            return False
        self.status.emit(self.tr("Saved %1").replace("%1", str(path)))
        return True
