"""Evaluation on LoCoMo (`memoryos eval locomo`) and performance benchmarks (`memoryos bench`)."""
