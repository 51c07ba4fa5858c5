"""Write a llama-architecture GGUF with random weights, for timing a model of a given size.

    python -m engine.eval.random_gguf OUT.gguf [--layers 22] [--hidden 2048] [--quant Q8_0]

Its answers are noise; its speed is that of a real model of the same shape (TinyLlama's shape
by default: 22 layers, 2048 wide, 1.1B parameters with SmolLM2's 49k vocabulary). The
tokenizer and chat template are copied from the bundled SmolLM2, so prompts are tokenized and
laid out exactly as for a real model.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

COPIED_PREFIXES = ("tokenizer.",)


def write_random_gguf(
    out: Path,
    *,
    layers: int = 22,
    hidden: int = 2048,
    feed_forward: int = 5632,
    heads: int = 32,
    kv_heads: int = 4,
    context: int = 4096,
    quant: str = "Q8_0",
    seed: int = 0,
) -> int:
    """Write the file; returns its number of parameters."""
    import gguf

    from models.catalogue import bundled_gguf_path

    source = gguf.GGUFReader(bundled_gguf_path())
    qtype = gguf.GGMLQuantizationType[quant]
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name(f"random-{layers}x{hidden}")
    writer.add_context_length(context)
    writer.add_embedding_length(hidden)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(feed_forward)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(hidden // heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10000.0)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if quant == "Q8_0" else 1)
    vocab = 0
    for field in source.fields.values():
        if not field.name.startswith(COPIED_PREFIXES):
            continue
        value = field.contents()
        kind = field.types[0]
        if kind == gguf.GGUFValueType.ARRAY:
            writer.add_array(field.name, value)
            if field.name == "tokenizer.ggml.tokens":
                vocab = len(value)
        elif kind == gguf.GGUFValueType.STRING:
            writer.add_string(field.name, value)
        elif kind == gguf.GGUFValueType.BOOL:
            writer.add_bool(field.name, bool(value))
        else:
            writer.add_uint32(field.name, int(value))
    rng = np.random.default_rng(seed)
    head = hidden // heads
    shapes = {"token_embd.weight": (vocab, hidden), "output_norm.weight": (hidden,)}
    for i in range(layers):
        shapes |= {
            f"blk.{i}.attn_norm.weight": (hidden,),
            f"blk.{i}.attn_q.weight": (hidden, hidden),
            f"blk.{i}.attn_k.weight": (kv_heads * head, hidden),
            f"blk.{i}.attn_v.weight": (kv_heads * head, hidden),
            f"blk.{i}.attn_output.weight": (hidden, hidden),
            f"blk.{i}.ffn_norm.weight": (hidden,),
            f"blk.{i}.ffn_gate.weight": (feed_forward, hidden),
            f"blk.{i}.ffn_up.weight": (feed_forward, hidden),
            f"blk.{i}.ffn_down.weight": (hidden, feed_forward),
        }
    parameters = 0
    for name, shape in shapes.items():
        parameters += int(np.prod(shape))
        if len(shape) == 1:  # norms stay float32, at 1 so activations keep their scale
            writer.add_tensor(name, np.ones(shape, dtype=np.float32))
            continue
        # small weights: random activations then neither vanish nor overflow in 22 layers
        data = rng.standard_normal(shape, dtype=np.float32) * (0.5 / np.sqrt(shape[1]))
        if quant == "F16":
            writer.add_tensor(name, data.astype(np.float16))
        else:
            writer.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return parameters


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.eval.random_gguf",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--layers", type=int, default=22)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--feed-forward", type=int, default=5632)
    parser.add_argument("--quant", choices=["Q8_0", "F16"], default="Q8_0")
    args = parser.parse_args(argv)
    parameters = write_random_gguf(
        args.out,
        layers=args.layers,
        hidden=args.hidden,
        feed_forward=args.feed_forward,
        quant=args.quant,
    )
    print(f"{args.out}: {parameters / 1e9:.2f}B parameters, random weights ({args.quant})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
