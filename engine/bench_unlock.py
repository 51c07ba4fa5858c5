"""How long unlocking a passphrase vault takes, before and after the stronger key derivation."""

from __future__ import annotations

import statistics

from engine.vault.cipher import LEGACY_KDF_ITER, PASSPHRASE_KDF_ITER, measure_unlock


def main() -> None:
    for label, iterations in (("before (legacy)", LEGACY_KDF_ITER), ("after", PASSPHRASE_KDF_ITER)):
        times = measure_unlock(iterations, runs=7)
        print(
            f"{label:16} PBKDF2-HMAC-SHA256 {iterations:>9,} iterations: unlock median "
            f"{statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f})"
        )


if __name__ == "__main__":
    main()
