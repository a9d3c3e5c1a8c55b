"""Libraries stay quiet on stderr where Shoebox already handles the situation itself.

Each check runs in a fresh interpreter (warning filters and logger levels are process-wide), with
Python's warnings shown (``-W default``) as a user's terminal would show them.
"""
from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "default", "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def png_claiming(path: Path, width: int, height: int) -> Path:
    """A tiny PNG file whose header claims ``width`` x ``height`` pixels (a decompression bomb's shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def test_oversized_image_is_refused_without_pillow_warning(tmp_path) -> None:
    bomb = png_claiming(tmp_path / "bomb.png", 20_000, 12_000)  # 240 Mpx > intake.MAX_IMAGE_PIXELS
    out = run(
        "from desktop.core import intake\n"
        f"try:\n    list(intake.open_pages({str(bomb)!r}))\n"
        "except intake.IntakeError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    assert out.returncode == 0, out.stderr
    assert "bomb.png" in out.stdout and "larger than Shoebox opens (20000 x 12000" in out.stdout
    assert "DecompressionBombWarning" not in out.stderr, out.stderr


def test_ppocr_warm_up_is_quiet() -> None:
    pytest.importorskip("rapidocr")
    out = run(
        "import numpy as np\n"
        "from desktop.core.engines.ppocr import PPOCREngine\n"
        "e = PPOCREngine()\ne.warm_up()\n"
        "print(len(e.read_page(np.full((200, 300, 3), 255, np.uint8)).lines))\n"  # a blank page: no lines, no noise
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"
    assert "[RapidOCR]" not in out.stderr and "WARNING" not in out.stderr, out.stderr
