"""The status bar's engine label: which engine reads the pages, in a clerk's words.

The label says *what* reads ("Standard OCR on this computer", "HunyuanOCR AI model on the graphics
card", "HunyuanOCR on the office server") and whether it is ready; the engine's own description
(name, version, models, device) and its notes (why ``auto`` chose PP-OCR, HunyuanOCR on the CPU)
are in the tooltip, for whoever needs them.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QLabel, QWidget


class EngineLabel(QLabel):
    """A ``QLabel`` that shows the reading engine's state (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("engine_label")
        self.setText(self.tr("OCR engine not started"))

    def what(self, name: str, device: str) -> str:
        """The engine in a clerk's words: ``name`` is ``Engine.name`` (``ppocr``, ``hunyuan``,
        ``server``, ...), ``device`` its ``device`` (``cpu``, ``cuda``, ``cuda:0``, ``mps``); "" for an
        engine it has no words for."""
        device = (device or "").lower()
        if name == "ppocr":
            return self.tr("Standard OCR on this computer")
        if name == "hunyuan":
            if device.startswith("cpu"):
                return self.tr("HunyuanOCR AI model on the processor")
            return self.tr("HunyuanOCR AI model on the graphics card")
        if name == "server":
            return self.tr("HunyuanOCR on the office server")
        return ""  # another engine (a test's fake): its own description is shown

    def show_state(self, state: str, text: str, name: str = "", device: str = "", slow: str = "",
                   notes: Sequence[str] = ()) -> None:
        """Show the engine's state.

        Args:
            state: ``loading``, ``ready`` or ``failed`` (``ReadWorker.engine_state``).
            text: the worker's text: the engine's short name while loading, its description when
                ready, the reason when it failed.
            name, device: the engine's ``name`` and ``device`` (empty while not known yet).
            slow: the warning that this engine is slow here (HunyuanOCR on the CPU), or "".
            notes: the engine's notes, in the UI language (shown in the tooltip).
        """
        what = self.what(name, device) if name else ""
        if state == "loading":
            label = (self.tr("Starting: %1…").replace("%1", what) if what else
                     self.tr("Loading %1…").replace("%1", text) if text else self.tr("Loading the OCR engine…"))
            tip = text
        elif state == "ready":
            label = self.tr("%1 · ready").replace("%1", what or text)
            if slow:
                label = self.tr("%1 – slow on the CPU").replace("%1", label)
            tip = "\n".join([self.tr("Engine: %1").replace("%1", text), *([slow] if slow else []), *notes])
        else:
            # the reason can be a long sentence: the status bar says it in few words, the tooltip whole
            label = self.tr("OCR engine not available (details in the tooltip)") if text else self.tr("OCR engine not available")
            tip = text
        self.setText(label)
        self.setToolTip(tip)
        self.setStyleSheet("color: #c62828;" if state == "failed" else "color: #e65100;" if slow else "")
