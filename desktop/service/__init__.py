"""Shoebox's own pipeline as an HTTP service (``shoebox serve``; FastAPI + uvicorn, the ``[serve]`` extra).

FastAPI and uvicorn are imported only when the service is created, so importing this package is free.
See :mod:`desktop.service.app` for the API and its safety rules, :mod:`desktop.service.cli` for the command.
"""
from __future__ import annotations
