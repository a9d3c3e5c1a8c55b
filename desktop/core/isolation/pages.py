"""Where input files are opened and rendered: a :class:`PageHost`.

Opening a PDF, an image or an OFD package runs native code (PyMuPDF, Pillow, lxml) on untrusted bytes.
A host does it somewhere: :class:`LocalPageHost` in this process (:mod:`desktop.core.intake` directly),
or an engine's worker process (:class:`desktop.core.isolation.process.WorkerEngine`), so that a native
crash there costs one document, not the application. The pipeline asks
:func:`desktop.core.isolation.page_host` which host goes with its engine.

This lives above both :mod:`desktop.core.engines` and :mod:`desktop.core.intake` (the layers contract in
``pyproject.toml``), so that engines, which only ever see page images, and intake stay independent.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from desktop.core.engines.base import EngineError

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from desktop.core.intake import PageImage

__all__ = ["LOCAL_PAGES", "LocalPageHost", "PageHost", "resolve_function"]


class PageHost(ABC):
    """Opens input files as pages and renders them (PyMuPDF, Pillow: native code fed untrusted bytes).

    The methods mirror :mod:`desktop.core.intake` (same arguments, results and errors).
    """

    @abstractmethod
    def count_pages(self, path: Path) -> int:
        """:func:`desktop.core.intake.count_pages`."""

    @abstractmethod
    def open_pages(self, path: Path) -> Iterator[PageImage]:
        """:func:`desktop.core.intake.open_pages` (the :class:`PageImage` objects are plain data)."""

    @abstractmethod
    def load_page(self, path: Path, number: int, rotation: int = 0) -> PageImage:
        """:func:`desktop.core.intake.load_page`."""

    @abstractmethod
    def render(self, page: PageImage, max_pixels: int | None) -> tuple[np.ndarray, float]:
        """:meth:`desktop.core.intake.PageImage.render`: ``(array (H, W, 3) uint8 RGB, scale)``."""

    def render_region(self, page: PageImage, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
        """:meth:`desktop.core.intake.PageImage.render_region`: ``box`` (page pixels) at ``scale``.

        This default renders the whole page at ``scale`` and crops; hosts that can render a region
        alone override it.
        """
        import numpy as np

        full, got = self.render(page, int(page.width * page.height * scale * scale) + 1)
        x0, y0, x1, y1 = (int(round(v * got)) for v in box)
        return np.ascontiguousarray(full[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)])

    @abstractmethod
    def call(self, function: str, *args: Any, doing: str = "reading the file") -> Any:
        """Run another reader of untrusted files on this host: ``function(*args)``.

        For readers that open a file with native code outside page rendering (the e-invoice data
        embedded in a PDF or an OFD package, :func:`desktop.core.einvoice.structured_for`). The
        function is named by import path so that engines need not import the layers above them.

        Args:
            function: ``"desktop.package.module:name"`` (only Shoebox's own modules).
            args: plain, picklable arguments (paths as text).
            doing: what the call does, for the named error when the host's process dies ("reading the
                e-invoice data").

        Returns:
            What ``function`` returns (picklable data).

        Raises:
            EngineCrashed, EngineTimedOut: the host's worker process died or overran
                :attr:`~desktop.core.isolation.process.Watchdog.file_s` (worker hosts only).
            EngineError: ``function`` is not one of Shoebox's readers, or raised (its message).
        """


def resolve_function(function: str) -> Any:
    """The callable named ``"desktop.package.module:name"`` (for :meth:`PageHost.call`).

    Raises:
        EngineError: not a Shoebox module, or no such function.
    """
    import importlib

    module_name, _, attr = function.partition(":")
    if not module_name.startswith("desktop.") or not attr:
        raise EngineError(f"{function!r} is not one of Shoebox's file readers")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise EngineError(f"the file reader {function} cannot be loaded: {exc}") from exc
    if not callable(target):
        raise EngineError(f"{function} is not a function")
    return target


class LocalPageHost(PageHost):
    """Pages opened and rendered in this process (the intake module directly)."""

    def count_pages(self, path: Path) -> int:
        from desktop.core import intake

        return int(intake.count_pages(path))

    def open_pages(self, path: Path) -> Iterator[PageImage]:
        from desktop.core import intake

        return intake.open_pages(path)

    def load_page(self, path: Path, number: int, rotation: int = 0) -> PageImage:
        from desktop.core import intake

        return intake.load_page(path, number, rotation)

    def render(self, page: PageImage, max_pixels: int | None) -> tuple[np.ndarray, float]:
        return page.render(max_pixels)

    def render_region(self, page: PageImage, box: tuple[float, float, float, float], scale: float) -> np.ndarray:
        return page.render_region(box, scale)

    def call(self, function: str, *args: Any, doing: str = "reading the file") -> Any:
        return resolve_function(function)(*args)


LOCAL_PAGES = LocalPageHost()
