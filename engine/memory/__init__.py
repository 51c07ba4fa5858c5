"""The three MemoryOS tiers (short-term queue, mid-term segments, long-term persona) and their helpers."""
