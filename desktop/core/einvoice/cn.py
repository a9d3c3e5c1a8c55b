"""placeholder"""
from __future__ import annotations


def is_cn_invoice(root) -> bool:  # noqa: ANN001
    return False
