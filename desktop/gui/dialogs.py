"""The settings dialog and the About box."""
from __future__ import annotations

import html
import platform
import sys

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QCoreApplication, qVersion
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from desktop import __version__
from desktop.core.doctypes import document_types
from desktop.core.settings import Settings
from desktop.gui.resources import LANGUAGES


class SettingsDialog(QDialog):
    """Edits a :class:`~desktop.core.settings.Settings` (the caller saves it on ``accept``)."""

    def __init__(self, settings: Settings, locale: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.settings = settings
        form = QFormLayout(self)

        self.engine = QComboBox(self)
        self.engine.addItem(self.tr("Automatic (GPU model when available, else PP-OCR)"), "auto")
        self.engine.addItem(self.tr("PP-OCR on the CPU"), "ppocr")
        self.engine.addItem(self.tr("HunyuanOCR on the GPU"), "hunyuan")
        self.engine.addItem(self.tr("HunyuanOCR on the office server"), "server")
        self._select(self.engine, settings.engine)
        form.addRow(self.tr("OCR &engine:"), self.engine)

        # The office server (desktop.core.engines.server): off while the URL is empty.
        self.server_url = QLineEdit(settings.server_url, self)
        self.server_url.setPlaceholderText(self.tr("Off (e.g. http://gpu-box:8000/v1)"))
        form.addRow(self.tr("Office &server:"), self.server_url)
        self.server_api_key = QLineEdit(settings.server_api_key, self)
        self.server_api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.server_api_key.setPlaceholderText(self.tr("None"))
        form.addRow(self.tr("Server API &key:"), self.server_api_key)
        self.server_in_flight = QSpinBox(self)
        self.server_in_flight.setRange(1, 64)
        self.server_in_flight.setValue(int(settings.server_max_in_flight or 4))
        form.addRow(self.tr("Pages sent at &once:"), self.server_in_flight)
        self.server_fallback = QCheckBox(self.tr("Read on the CPU while the server cannot be reached"), self)
        self.server_fallback.setChecked(bool(settings.server_cpu_fallback))
        form.addRow(self.server_fallback)
        self.server_public = QCheckBox(self.tr("Allow a server outside the office network"), self)
        self.server_public.setChecked(bool(settings.server_allow_public))
        self.server_public.setToolTip(self.tr("Documents are sent to this address. Leave unticked unless the "
                                              "server is yours and the connection is protected."))
        form.addRow(self.server_public)

        self.model_dir = QLineEdit(settings.model_dir, self)
        self.model_dir.setPlaceholderText(self.tr("Search the usual places"))
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.model_dir, 1)
        row.addWidget(browse)
        form.addRow(self.tr("HunyuanOCR &model folder:"), row)
        # the label sits beside a layout, not a widget: give it its buddy so "&" becomes Alt+M
        model_label = form.labelForField(row)
        if isinstance(model_label, QLabel):
            model_label.setBuddy(self.model_dir)

        self.doctype = QComboBox(self)
        self.doctype.addItem(self.tr("Detect automatically"), "auto")
        for name, dt in document_types().items():
            self.doctype.addItem(dt.label_for(locale), name)
        self._select(self.doctype, settings.default_document_type)
        form.addRow(self.tr("Default &document type:"), self.doctype)

        self.date_order = QComboBox(self)
        self.date_order.addItem(self.tr("From the document"), "auto")
        self.date_order.addItem(self.tr("Day first (31/12/2024)"), "DMY")
        self.date_order.addItem(self.tr("Month first (12/31/2024)"), "MDY")
        self._select(self.date_order, settings.date_locale)
        form.addRow(self.tr("Ambiguous &dates:"), self.date_order)

        self.language = QComboBox(self)
        self.language.addItem(self.tr("System language"), "system")
        for code, name in LANGUAGES.items():
            self.language.addItem(name, code)
        self._select(self.language, settings.ui_language)
        form.addRow(self.tr("&Language:"), self.language)
        note = QLabel(self.tr("A new language or engine choice applies to documents read from now on; "
                              "the language changes after a restart."), self)
        note.setWordWrap(True)
        note.setStyleSheet("color: #616161;")
        form.addRow(note)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.setMinimumWidth(520)

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        i = combo.findData(value)
        combo.setCurrentIndex(max(0, i))

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("HunyuanOCR model folder"), self.model_dir.text())
        if path:
            self.model_dir.setText(path)

    def result_settings(self) -> Settings:
        """The settings as edited (a copy; other fields unchanged)."""
        s = Settings(**vars(self.settings))
        s.engine = self.engine.currentData()
        s.model_dir = self.model_dir.text().strip()
        s.default_document_type = self.doctype.currentData()
        s.date_locale = self.date_order.currentData()
        s.ui_language = self.language.currentData()
        s.server_url = self.server_url.text().strip()
        s.server_api_key = self.server_api_key.text().strip()
        s.server_max_in_flight = int(self.server_in_flight.value())
        s.server_cpu_fallback = self.server_fallback.isChecked()
        s.server_allow_public = self.server_public.isChecked()
        return s


def about_text(engine_description: str) -> str:
    """The About box's text (versions of Shoebox, Qt/PySide6, Python and the engine in use), in the
    UI language."""
    summary = QCoreApplication.translate(
        "About", "Offline document scanner: receipts, invoices and Chinese VAT invoices to checked fields.")
    engine = QCoreApplication.translate("About", "OCR engine")
    offline = QCoreApplication.translate("About", "Nothing leaves this computer.")
    return (
        f"<h3>Shoebox {__version__}</h3>"
        f"<p>{html.escape(summary)}</p>"
        "<table>"
        f"<tr><td>Qt</td><td>{qVersion()}</td></tr>"
        f"<tr><td>PySide6</td><td>{pyside_version}</td></tr>"
        f"<tr><td>Python</td><td>{platform.python_version()} ({sys.platform})</td></tr>"
        f"<tr><td>{html.escape(engine)}</td><td>{html.escape(engine_description)}</td></tr>"
        f"</table><p>{html.escape(offline)}</p>"
    )


def show_about(parent: QWidget, engine_description: str) -> None:
    from PySide6.QtCore import QCoreApplication

    # translated in this module's context (lupdate files parent.tr() under a context named "parent")
    title = QCoreApplication.translate("AboutDialog", "About Shoebox")
    QMessageBox.about(parent, title, about_text(engine_description))
