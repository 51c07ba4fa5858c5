"""The `memoryos` terminal commands, one module for each kind of work (their options: cli.py)."""
