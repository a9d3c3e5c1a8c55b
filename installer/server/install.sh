#!/usr/bin/env bash
# Office GPU server for Shoebox: HunyuanOCR served by vLLM's OpenAI-compatible server.
# Creates its own virtual environment (vLLM pins its own torch and transformers, which differ from the
# versions the desktop's HunyuanOCR engine needs: the two cannot share one environment), installs the
# systemd unit and the settings file. Run as root on the GPU server. Nothing here downloads model weights:
# copy the tencent/HunyuanOCR folder to $MODEL_DIR first (see README.md).
set -euo pipefail
cd "$(dirname "$0")"

PREFIX=${PREFIX:-/opt/shoebox-ocr-server}
MODEL_DIR=${MODEL_DIR:-/srv/models/HunyuanOCR}
PYTHON=${PYTHON:-python3}
# vLLM 0.18.1: the release Tencent validated for HunyuanOCR 1.5 on CUDA 12 (native hunyuan_vl support,
# autoregressive decoding only); see README.md before changing it.
VLLM_VERSION=0.18.1

if [ ! -f "$MODEL_DIR/config.json" ]; then
    echo "install.sh: no model in $MODEL_DIR (config.json missing); copy the tencent/HunyuanOCR folder there first" >&2
    exit 1
fi
id -u shoebox-ocr >/dev/null 2>&1 || useradd --system --home-dir "$PREFIX" --shell /usr/sbin/nologin shoebox-ocr
mkdir -p "$PREFIX"
[ -x "$PREFIX/venv/bin/python" ] || "$PYTHON" -m venv "$PREFIX/venv"
"$PREFIX/venv/bin/python" -m pip install --disable-pip-version-check -q "vllm==$VLLM_VERSION"
install -m 0755 serve.sh "$PREFIX/serve.sh"
install -m 0755 healthcheck.sh "$PREFIX/healthcheck.sh"
install -m 0644 shoebox-ocr@.service /etc/systemd/system/shoebox-ocr@.service
if [ ! -f /etc/shoebox-ocr.env ]; then
    key=$("$PREFIX/venv/bin/python" -c 'import secrets; print(secrets.token_urlsafe(32))')
    umask 077
    cat > /etc/shoebox-ocr.env <<ENV
# Read by shoebox-ocr@.service. Give VLLM_API_KEY to the desktops (Settings > office server API key,
# or SHOEBOX_SERVER_API_KEY); leave it empty only on a network where every machine may use the GPU.
MODEL_PATH=$MODEL_DIR
SERVED_NAME=tencent/HunyuanOCR
BASE_PORT=8000
GPU_MEM_UTIL=0.90
MAX_MODEL_LEN=32768
VLLM_API_KEY=$key
ENV
    echo "install.sh: wrote /etc/shoebox-ocr.env (API key inside)"
fi
systemctl daemon-reload
echo "install.sh: done. Start one instance per GPU, e.g.: systemctl enable --now shoebox-ocr@0 shoebox-ocr@1"
