"""Keep every library we load off the network.

Shoebox reads sensitive papers in air-gapped offices: nothing may leave the machine. Some libraries
phone home unless told not to, and must be told *before* they are imported:

- onnxruntime >= 1.2x queues a telemetry event and writes a device id under ``~/.cache/Microsoft``
  on import unless ``ORT_DISABLE_TELEMETRY=1`` is set (measured here; ``disable_telemetry_events()``
  after import is too late).
- huggingface_hub / transformers look up the hub unless ``HF_HUB_OFFLINE=1`` /
  ``TRANSFORMERS_OFFLINE=1``; they also send telemetry unless ``HF_HUB_DISABLE_TELEMETRY=1``.
- rapidocr downloads models only for non-default model choices; we keep its defaults.
"""
from __future__ import annotations

import os

OFFLINE_ENVIRONMENT: dict[str, str] = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
    "HF_DATASETS_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def enforce_offline_environment() -> None:
    """Set the variables in :data:`OFFLINE_ENVIRONMENT` (overriding any other value)."""
    for key, value in OFFLINE_ENVIRONMENT.items():
        os.environ[key] = value
