"""``shoebox serve [--host 127.0.0.1] [--port 8765] [--token-file FILE] ...``: run the HTTP service."""
from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TOKEN_ENV = "SHOEBOX_SERVE_TOKEN"
"""Environment variable holding the service's token (alternative to ``--token-file``)."""

EXIT_OK, EXIT_USAGE, EXIT_ENGINE_UNAVAILABLE = 0, 2, 4


def build_parser() -> argparse.ArgumentParser:
    from desktop.cli import add_server_arguments

    parser = argparse.ArgumentParser(
        prog="shoebox serve",
        description="Run Shoebox's pipeline as an HTTP service: POST /v1/scan (one file), POST /v1/batch "
                    "(many; job id), GET /health, OpenAPI docs at /docs. Binds 127.0.0.1 by default; any "
                    f"other address needs a token (--token-file or ${TOKEN_ENV}).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    parser.add_argument("--token-file", type=Path, metavar="FILE",
                        help=f"file holding the token clients send as 'Authorization: Bearer <token>' (or ${TOKEN_ENV})")
    parser.add_argument("--max-upload-mb", type=float, default=50.0, help="largest upload accepted, in MB (default 50)")
    parser.add_argument("--queue-size", type=int, default=8, help="jobs waiting or running at once; more get 429 (default 8)")
    parser.add_argument("--timeout", type=float, default=300.0, help="time limit per file, seconds (default 300)")
    parser.add_argument("--keep-dir", type=Path, metavar="DIR",
                        help="where uploads are kept when a client asks keep=true (default: never kept)")
    parser.add_argument("--engine", default="auto", choices=("auto", "ppocr", "hunyuan", "server"),
                        help="OCR engine (as for shoebox scan)")
    parser.add_argument("--model-dir", type=Path, metavar="DIR", help="the HunyuanOCR model folder")
    add_server_arguments(parser)
    return parser


def read_token(args: argparse.Namespace) -> str | None:
    """The token from ``--token-file`` (first line, stripped) or the environment; ``None`` when neither.

    Raises:
        ValueError: the file cannot be read or is empty.
    """
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip().splitlines()
        except OSError as exc:
            raise ValueError(f"cannot read the token file {args.token_file}: {exc.strerror or exc}") from None
        if not token or not token[0].strip():
            raise ValueError(f"the token file {args.token_file} is empty")
        return token[0].strip()
    return os.environ.get(TOKEN_ENV) or None


def config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~desktop.service.app.ServiceConfig` for the parsed options (checked).

    Raises:
        ValueError: an unsafe or impossible combination (the message says what to change).
    """
    from desktop.cli import server_config_from_args
    from desktop.service.app import ServiceConfig

    server = server_config_from_args(args)

    def engine_factory() -> Any:
        # uploads are untrusted files: the engine (or, for the office-server engine, the file readers)
        # runs in a worker process, so a crash on one upload costs that job only
        from desktop.core.isolation import create_isolated_engine

        notes: list[Any] = []
        engine = create_isolated_engine(args.engine, args.model_dir, notes=notes, server=server)
        for note in notes:
            logging.getLogger("shoebox.serve").info("engine: %s", note)
        return engine

    config = ServiceConfig(host=args.host, port=args.port, token=read_token(args),
                           max_upload_bytes=int(args.max_upload_mb * 1024 * 1024), queue_size=args.queue_size,
                           request_timeout_s=args.timeout, keep_dir=args.keep_dir, engine_factory=engine_factory)
    config.check()
    return config


def serve_main(argv: Sequence[str]) -> int:
    """Parse, check, run uvicorn until Ctrl+C. Returns the exit status (2: usage or unsafe options)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    try:  # before the options are checked: checking them reads the service's own module
        import uvicorn

        from desktop.service.app import create_app
    except ImportError as exc:
        print(f"shoebox serve: error: the HTTP service needs the [serve] extra ({exc.name} is missing): "
              'pip install "shoebox[serve]"', file=sys.stderr)
        return EXIT_USAGE
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"shoebox serve: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = create_app(config)
    print(f"shoebox serve: listening on http://{config.host}:{config.port} (docs at /docs)"
          + ("; token required" if config.token else ""), file=sys.stderr)
    uvicorn.run(app, host=config.host, port=config.port, log_level="info", access_log=True)
    return EXIT_OK
