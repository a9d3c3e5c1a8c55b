"""Finding the HunyuanOCR model folder and telling whether HunyuanOCR can run here.

The folder is looked for, in order (:func:`candidate_dirs`): the folder chosen in the settings dialog /
``--model-dir``; the environment variable ``SHOEBOX_HUNYUAN_DIR``; ``<user data dir>/models/HunyuanOCR``;
``models/HunyuanOCR`` beside the installed app. The first *complete* folder wins
(:func:`check_model_dir`). Nothing here imports torch or transformers unless :func:`availability` has
to ask whether a GPU is present.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from importlib import metadata
from pathlib import Path

from desktop.core.engines.base import EngineUnavailable

__all__ = ["ENV_VAR", "MIN_TRANSFORMERS", "MODEL_FOLDER", "availability", "candidate_dirs", "check_model_dir",
           "find_model_dir"]

ENV_VAR = "SHOEBOX_HUNYUAN_DIR"
MODEL_FOLDER = Path("models") / "HunyuanOCR"
MIN_TRANSFORMERS = (5, 13)
"""transformers gained ``hunyuan_vl`` in 5.13 (also the ``[gpu]`` extra's lower bound in pyproject.toml)."""


def _app_dirs() -> list[tuple[str, Path]]:
    """``models/HunyuanOCR`` beside the installed app."""
    out: list[tuple[str, Path]] = []
    if getattr(sys, "frozen", False):
        out.append(("beside the application", Path(sys.executable).resolve().parent / MODEL_FOLDER))
    package_parent = Path(__file__).resolve().parents[3]
    out.append(("beside the desktop package", package_parent / MODEL_FOLDER))
    return out


def candidate_dirs(model_dir: str | Path | None = None) -> list[tuple[str, Path | None]]:
    """The places searched for the model folder, in order, as ``(where, path)``.

    ``path`` is ``None`` for a source that is not set (no argument, no environment variable).
    """
    from desktop.core.settings import user_data_dir

    places: list[tuple[str, Path | None]] = [
        ("--model-dir / settings", Path(model_dir).expanduser() if model_dir else None),
        (f"${ENV_VAR}", Path(os.environ[ENV_VAR]).expanduser() if os.environ.get(ENV_VAR) else None),
        ("user data folder", user_data_dir() / MODEL_FOLDER),
    ]
    places += _app_dirs()
    seen: set[Path] = set()
    unique: list[tuple[str, Path | None]] = []
    for where, path in places:
        if path is not None:
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
        unique.append((where, path))
    return unique


def check_model_dir(path: str | Path) -> list[str]:
    """What a model folder lacks (empty when complete).

    Required, as in ``tencent/HunyuanOCR``: ``config.json``; ``preprocessor_config.json`` (or a
    ``processor_config.json``); ``tokenizer_config.json`` plus the vocabulary (``tokenizer.json``,
    ``tokenizer.model``, ``vocab.json`` or ``*.tiktoken``); the weights: ``model.safetensors``, or
    ``model.safetensors.index.json`` and every shard it lists.

    Returns:
        Human-readable items, e.g. ``["weights (model-00003-of-00004.safetensors)"]``;
        ``["the folder does not exist"]`` for a missing folder.
    """
    folder = Path(path)
    if not folder.is_dir():
        return ["the folder does not exist"]
    missing: list[str] = []
    if not (folder / "config.json").is_file():
        missing.append("config.json")
    if not any((folder / n).is_file() for n in ("preprocessor_config.json", "processor_config.json")):
        missing.append("preprocessor_config.json")
    vocab = any((folder / n).is_file() for n in ("tokenizer.json", "tokenizer.model", "vocab.json"))
    vocab = vocab or any(folder.glob("*.tiktoken"))
    if not (folder / "tokenizer_config.json").is_file() or not vocab:
        missing.append("tokenizer files (tokenizer_config.json and tokenizer.json)")
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        import json

        try:
            shards = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            missing.append(f"a readable model.safetensors.index.json ({exc})")
        else:
            absent = [s for s in shards if not (folder / s).is_file()]
            if absent:
                shown = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
                missing.append(f"weights ({shown})")
    elif not (folder / "model.safetensors").is_file():
        missing.append("weights (model.safetensors or model.safetensors.index.json with its shards)")
    return missing


def find_model_dir(model_dir: str | Path | None = None) -> Path:
    """The first complete HunyuanOCR folder among :func:`candidate_dirs`.

    Raises:
        EngineUnavailable: none is complete; the message lists every place and what it lacks.
    """
    report: list[str] = []
    for where, path in candidate_dirs(model_dir):
        if path is None:
            report.append(f"{where}: not set")
            continue
        missing = check_model_dir(path)
        if not missing:
            return path
        report.append(f"{where} {path}: " + ("does not exist" if missing == ["the folder does not exist"]
                                              else "missing " + ", ".join(missing)))
    raise EngineUnavailable(
        "no complete HunyuanOCR model folder found (looked in: " + "; ".join(report) + "). "
        "Copy the tencent/HunyuanOCR files (config.json, preprocessor_config.json, tokenizer files, "
        "*.safetensors) into one of these folders or choose the folder in Settings"
    )


def _gpu_stack_problem() -> str | None:
    """Why torch/transformers cannot run HunyuanOCR here, without importing them (``None`` = fine)."""
    absent = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if absent:
        return (f"the optional [gpu] extra is not installed ({' and '.join(absent)} missing; "
                f"install with: pip install \"shoebox[gpu]\")")
    try:
        version = metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return None
    parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if len(parts) == 2 and parts < MIN_TRANSFORMERS:
        return f"transformers {version} is too old for HunyuanOCR (needs {'.'.join(map(str, MIN_TRANSFORMERS))} or newer)"
    return None


def availability(model_dir: str | Path | None = None, require_gpu: bool = False) -> tuple[bool, str]:
    """Whether HunyuanOCR can run here, and why not.

    Checks, cheapest first: the ``[gpu]`` extra and the model folder (no import of torch), then, only
    when both are there and ``require_gpu``, whether torch sees a CUDA device (imports torch).

    Returns:
        ``(True, "HunyuanOCR model in <folder>")`` or ``(False, reason)``; the reason names what is missing
        and where the folder was looked for, and reads as a clause ("HunyuanOCR not used: <reason>").
    """
    problems: list[str] = []
    stack = _gpu_stack_problem()
    if stack:
        problems.append(stack)
    try:
        folder = find_model_dir(model_dir)
    except EngineUnavailable as exc:
        problems.append(str(exc))
        folder = None
    if problems:
        return False, "; ".join(problems)
    if require_gpu:
        import torch

        if not torch.cuda.is_available():
            build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU-only build"
            return False, f"no CUDA GPU available (torch {torch.__version__}, {build})"
    return True, f"HunyuanOCR model in {folder}"
