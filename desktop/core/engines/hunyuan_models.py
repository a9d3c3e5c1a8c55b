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
from pathlib import Path

from desktop.core.diagnostics import Code, Diagnostic, diag
from desktop.core.engines.base import EngineUnavailable

__all__ = ["ENV_VAR", "MIN_TRANSFORMERS", "MODEL_FOLDER", "availability", "candidate_dirs", "check_model_dir",
           "find_model_dir"]

ENV_VAR = "SHOEBOX_HUNYUAN_DIR"
MODEL_FOLDER = Path("models") / "HunyuanOCR"
NO_FOLDER = diag(Code.MODEL_FOLDER_ABSENT)
"""What :func:`check_model_dir` says of a folder that is not there."""
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


def check_model_dir(path: str | Path) -> list[Diagnostic]:
    """What a model folder lacks (empty when complete).

    Required, as in ``tencent/HunyuanOCR``: ``config.json``; ``preprocessor_config.json`` (or a
    ``processor_config.json``); ``tokenizer_config.json`` plus the vocabulary (``tokenizer.json``,
    ``tokenizer.model``, ``vocab.json`` or ``*.tiktoken``); the weights: ``model.safetensors``, or
    ``model.safetensors.index.json`` and every shard it lists.

    Returns:
        What is missing, as diagnostics worded in either language (``MODEL_MISSING_*``, e.g.
        ``weights (model-00003-of-00004.safetensors)`` / ``权重文件（model-00003-of-00004.safetensors）``);
        ``[NO_FOLDER]`` (``the folder does not exist``) for a missing folder.
    """
    folder = Path(path)
    if not folder.is_dir():
        return [NO_FOLDER]
    missing: list[Diagnostic] = []
    if not (folder / "config.json").is_file():
        missing.append(diag(Code.MODEL_MISSING_CONFIG))
    if not any((folder / n).is_file() for n in ("preprocessor_config.json", "processor_config.json")):
        missing.append(diag(Code.MODEL_MISSING_PREPROCESSOR))
    vocab = any((folder / n).is_file() for n in ("tokenizer.json", "tokenizer.model", "vocab.json"))
    vocab = vocab or any(folder.glob("*.tiktoken"))
    if not (folder / "tokenizer_config.json").is_file() or not vocab:
        missing.append(diag(Code.MODEL_MISSING_TOKENIZER))
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        import json

        try:
            shards = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            missing.append(diag(Code.MODEL_INDEX_UNREADABLE, detail=str(exc)))
        else:
            absent = [s for s in shards if not (folder / s).is_file()]
            if absent:
                if len(absent) > 3:
                    missing.append(diag(Code.MODEL_MISSING_SHARDS_MORE, shards=absent[:3], more=len(absent) - 3))
                else:
                    missing.append(diag(Code.MODEL_MISSING_SHARDS, shards=absent))
    elif not (folder / "model.safetensors").is_file():
        missing.append(diag(Code.MODEL_MISSING_WEIGHTS))
    return missing


def _places_report(model_dir: str | Path | None) -> tuple[Path | None, list[Diagnostic]]:
    """The first complete folder among :func:`candidate_dirs` (or ``None``), and what each place
    looked at before it lacks."""
    report: list[Diagnostic] = []
    for where, path in candidate_dirs(model_dir):
        if path is None:
            report.append(diag(Code.MODEL_PLACE_NOT_SET, where=where))
            continue
        missing = check_model_dir(path)
        if not missing:
            return path, report
        if missing == [NO_FOLDER]:
            report.append(diag(Code.MODEL_PLACE_NO_FOLDER, where=where, path=str(path)))
        else:
            report.append(diag(Code.MODEL_PLACE_INCOMPLETE, where=where, path=str(path), missing=missing))
    return None, report


def _unavailable(diagnostic: Diagnostic) -> EngineUnavailable:
    exc = EngineUnavailable(diagnostic.message())
    exc.diagnostic = diagnostic  # rendered in the UI's language
    return exc


def find_model_dir(model_dir: str | Path | None = None) -> Path:
    """The first complete HunyuanOCR folder among :func:`candidate_dirs`.

    Raises:
        EngineUnavailable: none is complete; the message lists every place and what it lacks (its
            ``diagnostic`` attribute: :attr:`~desktop.core.diagnostics.Code.HUNYUAN_NO_MODEL_FOLDER`).
    """
    folder, report = _places_report(model_dir)
    if folder is None:
        raise _unavailable(diag(Code.HUNYUAN_NO_MODEL_FOLDER, places=report))
    return folder


def _gpu_stack_problem() -> Diagnostic | None:
    """Why torch/transformers cannot run HunyuanOCR here, without importing them (``None`` = fine)."""
    absent = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if absent:
        return diag(Code.HUNYUAN_GPU_EXTRA_MISSING, missing=" and ".join(absent))
    from importlib import metadata  # only here: a CPU-only install returns above (see ppocr._rapidocr_version)

    try:
        version = metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return None
    parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if len(parts) == 2 and parts < MIN_TRANSFORMERS:
        return diag(Code.HUNYUAN_TRANSFORMERS_TOO_OLD, version=version, needed=".".join(map(str, MIN_TRANSFORMERS)))
    return None


def availability(model_dir: str | Path | None = None, require_gpu: bool = False) -> tuple[bool, Diagnostic]:
    """Whether HunyuanOCR can run here, and why not.

    Checks, cheapest first: the ``[gpu]`` extra and the model folder (no import of torch), then, only
    when both are there and ``require_gpu``, whether torch sees a CUDA device (imports torch).

    Returns:
        ``(True, HUNYUAN_READY)`` ("HunyuanOCR model in <folder>") or ``(False, reason)``: a diagnostic
        (``HUNYUAN_GPU_EXTRA_MISSING``, ``HUNYUAN_NO_MODEL_FOLDER``, ``HUNYUAN_NO_CUDA``, ..., or
        ``HUNYUAN_PROBLEMS`` for two of them) naming what is missing and where the folder was looked
        for; it reads as a clause ("HunyuanOCR not used: <reason>") in English and Chinese.
    """
    problems: list[Diagnostic] = []
    stack = _gpu_stack_problem()
    if stack:
        problems.append(stack)
    folder, report = _places_report(model_dir)
    if folder is None:
        problems.append(diag(Code.HUNYUAN_NO_MODEL_FOLDER, places=report))
    if problems:
        if len(problems) == 1:
            return False, problems[0]
        return False, diag(Code.HUNYUAN_PROBLEMS, first=problems[0], second=problems[1])
    if require_gpu:
        import torch

        if not torch.cuda.is_available():
            if torch.version.cuda:
                return False, diag(Code.HUNYUAN_NO_CUDA, torch=torch.__version__, cuda=torch.version.cuda)
            return False, diag(Code.HUNYUAN_CPU_ONLY_TORCH, torch=torch.__version__)
    return True, diag(Code.HUNYUAN_READY, folder=str(folder))
