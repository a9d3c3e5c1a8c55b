#!/usr/bin/env bash
# One vLLM instance serving HunyuanOCR on one GPU: serve.sh GPU_INDEX (port = BASE_PORT + GPU_INDEX).
# The flags are HunyuanOCR's vLLM recipe (Tencent-Hunyuan/HunyuanOCR README, vLLM section):
#   --no-enable-prefix-caching   every page is a new image: prefix caching only costs memory
#   --mm-processor-cache-gb 0    no multimodal processor cache (pages are never sent twice)
#   --limit-mm-per-prompt        one image per prompt, as Shoebox (and Tencent's client) send them
# The API key comes from $VLLM_API_KEY (vLLM reads it itself), so it never shows in the process list.
set -euo pipefail
GPU=${1:?usage: serve.sh GPU_INDEX}
PREFIX=${PREFIX:-/opt/shoebox-ocr-server}
: "${MODEL_PATH:?MODEL_PATH must name the HunyuanOCR folder}"
PORT=$(( ${BASE_PORT:-8000} + GPU ))
export CUDA_VISIBLE_DEVICES=$GPU
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
exec "$PREFIX/venv/bin/vllm" serve "$MODEL_PATH" \
    --served-model-name "${SERVED_NAME:-tencent/HunyuanOCR}" \
    --host "${HOST:-0.0.0.0}" --port "$PORT" \
    --no-enable-prefix-caching \
    --mm-processor-cache-gb 0 \
    --limit-mm-per-prompt '{"image": 1}' \
    --gpu-memory-utilization "${GPU_MEM_UTIL:-0.90}" \
    --max-model-len "${MAX_MODEL_LEN:-32768}"
