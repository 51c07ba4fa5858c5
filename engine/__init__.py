"""MemoryOS Desktop engine: the headless core (vault, memory tiers, retrieval, backends)."""

__version__ = "0.1.0"
