"""Model backends: chat models (llama.cpp, OpenAI-compatible URL, fake) and embedders."""
