#!/usr/bin/env bash
# Health check for one instance: healthcheck.sh [GPU_INDEX]. Exit 0 when vLLM answers /health and lists the
# model; prints the model id and context length. Use from cron, a monitoring agent or a load balancer.
set -euo pipefail
GPU=${1:-0}
[ -f /etc/shoebox-ocr.env ] && . /etc/shoebox-ocr.env
PORT=$(( ${BASE_PORT:-8000} + GPU ))
URL=http://127.0.0.1:$PORT
curl -sf --max-time 5 "$URL/health" >/dev/null || { echo "shoebox-ocr@$GPU: no answer on $URL/health" >&2; exit 1; }
models=$(curl -sf --max-time 5 -H "Authorization: Bearer ${VLLM_API_KEY:-}" "$URL/v1/models") \
    || { echo "shoebox-ocr@$GPU: /v1/models failed (API key?)" >&2; exit 1; }
echo "$models" | python3 -c 'import json,sys; m=json.load(sys.stdin)["data"][0]; print(f"shoebox-ocr: {m[\"id\"]} ({m.get(\"root\",\"\")}), context {m.get(\"max_model_len\",\"?\")} tokens")'
