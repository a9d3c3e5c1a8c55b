"""HunyuanOCR compute figures on a GPU with a full-size model of random weights (issue 11).

The real weights cannot be downloaded here, but weights do not change the compute: a model of the
real shape built from transformers' ``HunYuanVLConfig`` with random bf16 weights costs what the real one
costs per token. The script prints, and writes between the ``bench_hunyuan_gpu`` markers of
``BENCHMARKS.md``:

- the parameter count (the real HunyuanOCR has about 1B; the check fails loudly when the built model is
  far from it);
- prefill time (one forward pass over the prompt: vision encoder + every prompt token) for a
  1024 x 768 image and for an A4 page at the engine's pixel budget
  (:data:`desktop.core.engines.hunyuan.DEFAULT_MAX_PIXELS`);
- decode speed: tokens per second of ``generate`` with a fixed number of new tokens
  (``min_new_tokens == max_new_tokens``, so random weights cannot stop early), prefill subtracted;
- pages per second with 8, 16 and 32 images of 1024 x 768 per ``generate`` call, fixed output tokens;
- peak GPU memory (``torch.cuda.max_memory_allocated``) of each measurement.

Published figures to set beside them: 130-230 ms end to end per 1024 x 768 image on an RTX 4090D;
< 800 ms average with 8-12 concurrent requests through vLLM.

Shape: the published HunyuanOCR shape as far as it is known here (language model 24 layers x 1024,
16 query / 8 key-value heads of 128, vocabulary 120,818; ViT 27 layers x 1152; see
``tests/hunyuan_tiny.py``): 0.996 B parameters, counted on the ``meta`` device. transformers' bare
``HunYuanVLConfig()`` is not used: its language model is 32 x 4096 (several B parameters) and it does
not even build (``head_dim`` is ``None``; transformers 5.24). ``--tiny`` runs the same code on the
tiny random model on the CPU (a check of the script; its figures mean nothing).

Usage::

    python benchmarks/bench_hunyuan_gpu.py [--new-tokens 128] [--batches 8,16,32] [--no-write]
    python benchmarks/bench_hunyuan_gpu.py --tiny --device cpu --batches 2 --new-tokens 8 --no-write
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from desktop.core.offline import enforce_offline_environment  # noqa: E402

enforce_offline_environment()

START = "<!-- bench_hunyuan_gpu:start -->"
END = "<!-- bench_hunyuan_gpu:end -->"
A4_300DPI = (2480, 3508)


def build(tiny: bool, device: str, dtype: Any) -> tuple[Any, Any, int]:
    """``(model, processor, parameters)``: random weights, the tiny model's tokenizer and image processor."""
    import torch
    from transformers import AutoProcessor, HunYuanVLConfig, HunYuanVLForConditionalGeneration

    from tests.hunyuan_tiny import build_tiny_model

    folder = build_tiny_model(Path(tempfile.mkdtemp(prefix="hy-gpu-")) / "tiny")
    processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
    processor.tokenizer.padding_side = "left"
    tiny_config = HunYuanVLConfig.from_pretrained(folder, local_files_only=True)
    if tiny:
        config = tiny_config
    else:
        text = tiny_config.text_config.to_dict()
        text.update(hidden_size=1024, intermediate_size=3584, num_hidden_layers=24, num_attention_heads=16,
                    num_key_value_heads=8, head_dim=128, vocab_size=120_818, max_position_embeddings=32_768,
                    rope_parameters={"rope_type": "xdrope", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0,
                                     "xdrope_section": [16, 16, 16, 16]})
        vision = tiny_config.vision_config.to_dict()
        vision.update(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16,
                      out_hidden_size=1024, text_hidden_size=1024)
        config = HunYuanVLConfig(text_config=text, vision_config=vision, image_token_id=tiny_config.image_token_id,
                                 im_start_id=tiny_config.im_start_id, im_end_id=tiny_config.im_end_id,
                                 im_newline_id=tiny_config.im_newline_id, tie_word_embeddings=True)
    torch.manual_seed(0)
    if device == "meta":  # count the parameters only
        with torch.device("meta"):
            model = HunYuanVLForConditionalGeneration(config)
        return model, processor, sum(p.numel() for p in model.parameters())
    with torch.device(device):
        model = HunYuanVLForConditionalGeneration(config).to(dtype).eval()
    model.generation_config.pad_token_id = processor.tokenizer.pad_token_id
    model.generation_config.eos_token_id = None  # random weights: never stop early
    params = sum(p.numel() for p in model.parameters())
    return model, processor, params


def inputs_for(processor: Any, images: list[Any], device: str) -> Any:
    prompt = "Detect and recognize text in the image, and output the text coordinates in a formatted manner."
    messages = [[{"role": "system", "content": ""},
                 {"role": "user", "content": [{"type": "image", "image": im}, {"type": "text", "text": prompt}]}]
                for im in images]
    return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True,
                                         return_tensors="pt", processor_kwargs={"padding": True}).to(device)


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(device: str, fn: Any, repeats: int = 3) -> tuple[float, float]:
    """``(median seconds, peak MiB)`` of ``fn()`` after one warm-up call."""
    import torch

    fn()
    _sync(device)
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    peak = torch.cuda.max_memory_allocated() / 2**20 if device.startswith("cuda") else float("nan")
    return statistics.median(times), peak


def page_image(size: tuple[int, int], max_pixels: int) -> Any:
    from PIL import Image, ImageDraw

    from desktop.core.engines.hunyuan import fit_pixels

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for y in range(40, size[1] - 40, 48):
        draw.text((40, y), "TOTAL 12.50  Receipt 0042  2026-12-01  Tax 1.13  Thank you", fill="black")
    return fit_pixels(image, max_pixels)


def run(args: argparse.Namespace) -> list[str]:
    import torch

    from desktop.core.engines.hunyuan import DEFAULT_MAX_PIXELS

    device = args.device
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    model, processor, params = build(args.tiny, device, dtype)
    rows = [f"- model: {'tiny' if args.tiny else 'HunyuanOCR shape'}, {params / 1e9:.3f} B parameters, {dtype}, "
            f"device {torch.cuda.get_device_name() if device.startswith('cuda') else device}"]
    if not args.tiny and not 0.7e9 <= params <= 1.5e9:
        rows.append(f"- **warning**: {params / 1e9:.2f} B parameters is not about 1 B: figures are not HunyuanOCR's")
    n = args.new_tokens

    @torch.inference_mode()
    def prefill(inputs: Any) -> None:
        model(**inputs)

    @torch.inference_mode()
    def generate(inputs: Any, tokens: int) -> None:
        model.generate(**inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)

    small = page_image((1024, 768), DEFAULT_MAX_PIXELS)
    a4 = page_image(A4_300DPI, DEFAULT_MAX_PIXELS)
    for label, image in (("1024x768", small), (f"A4 at {a4.size[0]}x{a4.size[1]} (budget {DEFAULT_MAX_PIXELS:,} px)", a4)):
        inputs = inputs_for(processor, [image], device)
        t, peak = timed(device, lambda inputs=inputs: prefill(inputs))
        rows.append(f"- prefill, {label}: {t * 1000:.0f} ms ({inputs['input_ids'].shape[1]} prompt tokens), peak {peak:.0f} MiB")
    inputs = inputs_for(processor, [small], device)
    t_one, _ = timed(device, lambda: generate(inputs, 1))
    t_gen, peak = timed(device, lambda: generate(inputs, n))
    # the n - 1 tokens after the first: decode alone (prefill and the first token cancel out)
    rows.append(f"- decode, batch 1: {(n - 1) / max(t_gen - t_one, 1e-9):.1f} tokens/s ({n} new tokens; end to end "
                f"{t_gen * 1000:.0f} ms per 1024x768 image), peak {peak:.0f} MiB")
    for b in args.batches:
        inputs = inputs_for(processor, [small] * b, device)
        t, peak = timed(device, lambda inputs=inputs: generate(inputs, n), repeats=2)
        rows.append(f"- batch {b} x 1024x768, {n} new tokens each: {b / t:.2f} pages/s ({t:.2f} s per call, "
                    f"{b * n / t:.0f} tokens/s), peak {peak:.0f} MiB")
    rows.append("- published: 130-230 ms end to end per 1024x768 image (RTX 4090D); < 800 ms average with 8-12 "
                "concurrent requests through vLLM")
    return rows


def write_section(path: Path, body: str) -> None:
    """Replace (or append) the text between the bench_hunyuan_gpu markers of ``path``."""
    from benchmarks.sections import write_section as write

    write(path, START, END, body)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tiny", action="store_true", help="the tiny random model (a check of this script)")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--batches", type=lambda s: [int(x) for x in s.split(",") if x], default=[8, 16, 32])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    rows = run(args)
    body = "\n".join([f"## HunyuanOCR compute on the GPU, random full-size weights ({time.strftime('%Y-%m-%d')})", "",
                      "`python benchmarks/bench_hunyuan_gpu.py " + " ".join(argv if argv is not None else sys.argv[1:]) + "`", "",
                      *rows])
    print(body)
    if not args.no_write and not args.tiny:
        write_section(REPO / "BENCHMARKS.md", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
