"""Build a tiny, randomly initialised HunyuanOCR-architecture model folder (transformers ``hunyuan_vl``).

The real weights (``tencent/HunyuanOCR``, 2 GB) cannot be downloaded here, but transformers ships the
architecture, so the engine's real loading and generation path runs end to end on a 2.7 MB model of the
same shape: same processor class, same special-token strings, same chat-template structure, same
image-processor settings (patch 16, merge 2, 512*512..2048*2048 pixels). Adapted from
``shared/notes/hunyuan_vl_tiny_reference.py`` (see ``shared/notes/hunyuan_vl.md`` for the gotchas).

Its answers are nonsense, deterministic (seed 0), never contain the end token and tend to loop:
which is what the repetition guard and the ``max_new_tokens`` bound are tested on.

Usable from the tests (``build_tiny_model(tmp_path)``) and from ``benchmarks/bench_hunyuan.py --tiny``.
Needs torch, transformers >= 5.13, tokenizers, Pillow; no network.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

# Special tokens: the exact strings of the real HunyuanOCR tokenizer (full-width bars U+FF5C, U+2581).
BOS = "<｜hy_begin▁of▁sentence｜>"
EOS = "<｜hy_Assistant｜>"  # eos_token in the real tokenizer_config
PAD = "<｜hy_▁pad▁｜>"
USER = "<｜hy_User｜>"
SYS_END = "<｜hy_place▁holder▁no▁3｜>"  # closes the system block in the chat template
TURN_END = "<｜hy_place▁holder▁no▁2｜>"
IMG_START = "<｜hy_place▁holder▁no▁100｜>"
IMG_END = "<｜hy_place▁holder▁no▁101｜>"
IMG_TOKEN = "<｜hy_place▁holder▁no▁102｜>"
VID_TOKEN = "<｜hy_place▁holder▁no▁103｜>"
VID_START = "<｜hy_place▁holder▁no▁104｜>"
VID_END = "<｜hy_place▁holder▁no▁105｜>"
# Order fixes the ids: pad=0, bos=1, eos=2 (HunYuanVLTextConfig defaults).
SPECIALS = [PAD, BOS, EOS, USER, SYS_END, TURN_END, IMG_START, IMG_END, IMG_TOKEN, VID_TOKEN, VID_START, VID_END]

CORPUS = [
    "Extract the text from the image.",
    "Detect and recognize text in the image, and output the text coordinates in a formatted manner.",
    "Extract all information from the main body of the document image and represent it in markdown format.",
    "Parse the table in the image into HTML.",
    "Extract the content of the fields: ['name', 'date', 'total'] from the image and return it in JSON format.",
    "First extract the text, then translate the text content into English.",
    "检测并识别图片中的文字，将文本坐标格式化输出。",
    "提取文档图片中正文的所有信息用markdown格式表示，表格用html格式表达。",
    "把图中的表格解析为HTML。先提取文字，再将文字内容翻译为英文。",
    "<table><tr><td>1</td></tr></table> {\"name\": \"value\"} # Title\n\n- item",
]

# Same structure as the real template:
#   BOS [system text] <no_3>  <no_100><no_102><no_101> (per image)  user text  <hy_User>  (generation prompt)
CHAT_TEMPLATE = (
    "{{- bos_token -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- if messages[0]['content'] is string -%}{{- messages[0]['content'] -}}"
    "{%- else -%}{%- for c in messages[0]['content'] -%}{%- if c['type'] == 'text' -%}{{- c['text'] -}}{%- endif -%}{%- endfor -%}{%- endif -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{{- '" + SYS_END + "' -}}"
    "{%- for message in loop_messages -%}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for c in message['content'] -%}"
    "{%- if c['type'] == 'image' or 'image' in c or 'image_url' in c -%}"
    "{{- '" + IMG_START + IMG_TOKEN + IMG_END + "' -}}"
    "{%- elif c['type'] == 'text' -%}{{- c['text'] -}}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{%- if message['role'] == 'user' -%}{{- '" + USER + "' -}}"
    "{%- elif message['role'] == 'assistant' -%}{{- '" + EOS + "' -}}{%- endif -%}"
    "{%- endfor -%}"
)


def build_tiny_model(out_dir: str | Path, *, seed: int = 0, keep_special_embeddings: bool = False) -> Path:
    """Write a tiny ``hunyuan_vl`` model + processor folder to ``out_dir`` (replaced if present).

    Args:
        out_dir: the folder to create.
        seed: torch seed for the random weights.
        keep_special_embeddings: keep the plain random init. By default the (tied) embedding rows of the
            special tokens and of byte fragments that do not decode to printable ASCII are zeroed, so greedy
            decoding emits readable ASCII tokens (else it echoes a special token and decodes to "").

    Returns:
        ``out_dir`` as a Path (about 2.7 MB: config.json, generation_config.json, model.safetensors,
        processor_config.json, tokenizer.json, tokenizer_config.json, chat_template.jinja).
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        HunYuanVLConfig,
        HunYuanVLForConditionalGeneration,
        HunYuanVLProcessor,
        PreTrainedTokenizerFast,
    )
    from transformers.models.hunyuan_vl.image_processing_pil_hunyuan_vl import HunYuanVLImageProcessorPil

    out = Path(out_dir)
    # 1. A small byte-level BPE tokenizer (covers any UTF-8 text).
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token=BOS, eos_token=EOS, pad_token=PAD,
        # named extra tokens -> tokenizer.image_token etc., which HunYuanVLProcessor requires
        extra_special_tokens={
            "image_token": IMG_TOKEN, "image_start_token": IMG_START, "image_end_token": IMG_END,
            "video_token": VID_TOKEN, "video_start_token": VID_START, "video_end_token": VID_END,
        },
        # right, like a typical hub tokenizer: the engine must switch to left padding itself for batches
        padding_side="right",
        clean_up_tokenization_spaces=False,
        model_max_length=32768,
    )
    vocab_size = len(tokenizer)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIALS}

    # 2. Image processor: the real one's settings. PIL backend: no torchvision needed.
    image_processor = HunYuanVLImageProcessorPil(
        min_pixels=512 * 512, max_pixels=2048 * 2048, patch_size=16, temporal_patch_size=1, merge_size=2)
    processor = HunYuanVLProcessor(image_processor=image_processor, tokenizer=tokenizer, chat_template=CHAT_TEMPLATE)

    # 3. Tiny config of the same architecture (real: text 24 x 1024, GQA 16/8 heads, xdrope; ViT 27 x 1152).
    text_config = dict(
        vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, hidden_act="silu", max_position_embeddings=4096, rms_norm_eps=1e-5,
        pad_token_id=ids[PAD], bos_token_id=ids[BOS], eos_token_id=ids[EOS], eod_token_id=ids[EOS],
        sep_token_id=ids[SYS_END], tie_word_embeddings=True,
        # legacy "xdrope" (-> "dynamic", needs "factor"); 4 M-RoPE sections summing to head_dim // 2
        rope_parameters={"rope_type": "xdrope", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0,
                         "xdrope_section": [2, 2, 2, 2]},
    )
    vision_config = dict(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, hidden_act="gelu",
        patch_size=16, spatial_merge_size=2, temporal_patch_size=1, max_image_size=2048, min_image_size=512,
        out_hidden_size=64, text_hidden_size=64,
    )
    config = HunYuanVLConfig(
        text_config=text_config, vision_config=vision_config, image_token_id=ids[IMG_TOKEN],
        im_start_id=ids[IMG_START], im_end_id=ids[IMG_END], im_newline_id=ids[VID_TOKEN], tie_word_embeddings=True,
    )

    torch.manual_seed(seed)
    model = HunYuanVLForConditionalGeneration(config).eval()
    if not keep_special_embeddings:
        special = set(ids.values())

        def printable(token_id: int) -> bool:
            s = tokenizer.decode([token_id])
            return s.isascii() and s.isprintable() and bool(s.strip())

        silent = [i for i in range(vocab_size) if i in special or not printable(i)]
        with torch.no_grad():
            model.get_input_embeddings().weight[silent] = 0.0
    model.generation_config.pad_token_id = ids[PAD]
    model.generation_config.bos_token_id = ids[BOS]
    model.generation_config.eos_token_id = ids[EOS]
    model.generation_config.do_sample = False

    if out.is_dir():
        shutil.rmtree(out)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out



class GenerateSpy:
    """Wraps a loaded ``HunyuanEngine``'s ``model.generate`` (through ``monkeypatch``): records each call's
    inputs; can fail with a CUDA out-of-memory error ``fail`` times, or answer every page with recorded
    text (``answers``, cycled; or ``answer(prompt)`` per call) ended by the end token, as the real model would."""

    def __init__(self, engine: Any, monkeypatch: Any, *, fail: int = 0, answers: list[str] | None = None,
                 answer: Any = None) -> None:
        self.engine = engine
        self.answer = answer
        self.real = engine._model.generate
        self.calls: list[dict] = []
        self.fail = fail
        self.answers = answers
        monkeypatch.setattr(engine._model, "generate", self)

    def __call__(self, **kwargs):
        import torch

        self.calls.append({"batch": int(kwargs["input_ids"].shape[0]),
                           "grid": kwargs["image_grid_thw"].tolist(),
                           "prompt": self.engine._processor.batch_decode(kwargs["input_ids"])[0],
                           "max_new_tokens": kwargs["max_new_tokens"]})
        if self.fail:
            self.fail -= 1
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        if self.answers is None and self.answer is None:
            return self.real(**kwargs)
        tok = self.engine._processor.tokenizer
        eos = self.engine._model.generation_config.eos_token_id
        batch = int(kwargs["input_ids"].shape[0])
        if self.answer is not None:
            prompts = self.engine._processor.batch_decode(kwargs["input_ids"])
            answers = [self.answer(prompts[i]) for i in range(batch)]
        else:
            answers = [self.answers[i % len(self.answers)] for i in range(batch)]
        rows = [tok(a, add_special_tokens=False)["input_ids"] + [eos] for a in answers]
        width = max(map(len, rows))
        pad = self.engine._model.generation_config.pad_token_id
        new = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
        return torch.cat([kwargs["input_ids"], new], dim=1)

    def pixels(self, call: int) -> list[int]:
        return [h * w * 256 for _, h, w in self.calls[call]["grid"]]  # grid in 16 px patches


if __name__ == "__main__":
    import sys

    folder = build_tiny_model(sys.argv[1] if len(sys.argv) > 1 else "tiny-hunyuan-vl")
    print(f"saved to {folder}")
