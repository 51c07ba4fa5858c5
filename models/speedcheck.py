"""Check the model table's speed estimate against llama.cpp on this computer.

    python -m models.speedcheck FILE.gguf [FILE.gguf ...] [--tokens 32]

For each file: the estimate the table shows (models/fit.py, from the measured memory
bandwidth) beside the speed llama.cpp reaches writing `--tokens` tokens after a short prompt,
on the CPU with one thread per physical core, after one warm-up token. A GGUF of any size with
random weights (`python -m engine.eval.random_gguf`) writes at the real speed of its size.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from models.fit import WORDS_PER_TOKEN, fit_model, shape_of
from models.machine import this_machine


def measured_tokens_per_second(path: str | Path, tokens: int, threads: int) -> float:
    """Tokens a second llama.cpp writes greedily with `threads` threads (after one warm-up)."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), n_ctx=512, n_threads=threads, n_gpu_layers=0, verbose=False)
    try:
        llm.eval(llm.tokenize(b"Tell me about the weather today, please."))
        llm.eval([llm.sample(temp=0.0)])  # warm-up: the first token pages the weights in
        start = time.perf_counter()
        for _ in range(tokens):
            llm.eval([llm.sample(temp=0.0)])
        return tokens / (time.perf_counter() - start)
    finally:
        llm.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # a prefix of an option is not that option
        prog="python -m models.speedcheck",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--tokens", type=int, default=32, help="tokens written per file")
    args = parser.parse_args(argv)
    machine = this_machine()
    print(
        f"{machine.physical_cores} physical cores, memory read at "
        f"{machine.memory_bandwidth / 1e9:.1f} GB/s"
    )
    print(f"{'file':40s} {'size':>8s} {'estimated':>10s} {'measured':>10s} {'ratio':>6s}")
    for path in args.files:
        fit = fit_model(shape_of(path), machine, gpu_offload=False)
        measured = measured_tokens_per_second(path, args.tokens, machine.physical_cores)
        words = measured * WORDS_PER_TOKEN
        print(
            f"{path.name[:40]:40s} {os.path.getsize(path) / 1e9:6.2f} GB "
            f"{fit.words_per_second:6.1f} w/s {words:6.1f} w/s "
            f"{fit.words_per_second / words:6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
