"""Entry script of the frozen app: the same `main` as the `memoryos` console script."""

import multiprocessing
import sys

from app.launcher import main

if __name__ == "__main__":
    # a frozen child process started by multiprocessing (torch, tokenizers) must not rerun main
    multiprocessing.freeze_support()
    sys.exit(main())
