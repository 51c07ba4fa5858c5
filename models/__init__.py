"""Which models exist and where they come from: bundled defaults, GGUF files, URL endpoints."""
