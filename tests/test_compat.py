"""The reference MemoryOS's `Memoryos` class on our vault, against a real llama.cpp server on 127.0.0.1."""

from __future__ import annotations

import http.server
import inspect
import json
import re
import threading
import urllib.request

import pytest

from engine import errors
from engine.backends.fake import HashEmbedder
from engine.compat import Memoryos, vault_path
from engine.prompt import with_conversation_style
from engine.records import ASSISTANT_KNOWLEDGE
from engine.thinking import strip_thinking
from tests.helpers import raw_bytes
from tests.test_openai_server import start_server, stop_server

REFERENCE_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


class _AnyTime:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(REFERENCE_TIME.fullmatch(other))


ANY_TIME = _AnyTime()

# The reference's signatures (BAI-LAB/MemoryOS memoryos-pypi/memoryos.py at 1d71706).
REFERENCE_INIT = [
    ("user_id", inspect.Parameter.empty),
    ("openai_api_key", inspect.Parameter.empty),
    ("data_storage_path", inspect.Parameter.empty),
    ("openai_base_url", None),
    ("assistant_id", "default_assistant_profile"),
    ("short_term_capacity", 10),
    ("mid_term_capacity", 2000),
    ("long_term_knowledge_capacity", 100),
    ("retrieval_queue_capacity", 7),
    ("mid_term_heat_threshold", 5.0),
    ("mid_term_similarity_threshold", 0.6),
    ("llm_model", "gpt-4o-mini"),
    ("embedding_model_name", "all-MiniLM-L6-v2"),
    ("embedding_model_kwargs", None),
]
REFERENCE_METHODS = {
    "add_memory": [("user_input", inspect.Parameter.empty), ("agent_response", inspect.Parameter.empty),
                   ("timestamp", None), ("meta_data", None)],
    "get_response": [("query", inspect.Parameter.empty), ("relationship_with_user", "friend"),
                     ("style_hint", ""), ("user_conversation_meta_data", None)],
    "get_user_profile_summary": [],
    "get_assistant_knowledge_summary": [],
    "force_mid_term_analysis": [],
}  # fmt: skip


def positional(fn) -> list[tuple[str, object]]:
    return [
        (p.name, p.default)
        for p in inspect.signature(fn).parameters.values()
        if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD
    ]


def test_every_reference_argument_and_method_is_accepted_in_order():
    assert positional(Memoryos.__init__) == REFERENCE_INIT
    for name, params in REFERENCE_METHODS.items():
        assert positional(getattr(Memoryos, name)) == params, name


class RecordingProxy:
    """Forwards requests to the llama.cpp server and keeps the JSON bodies it was sent."""

    def __init__(self, upstream: str) -> None:
        self.bodies: list[dict] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self, body: bytes | None) -> None:
                request = urllib.request.Request(
                    upstream + self.path.removeprefix("/v1"), data=body, method=self.command
                )
                request.add_header("Content-Type", "application/json")
                with urllib.request.urlopen(request, timeout=300) as response:
                    data = response.read()
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.headers["Content-Type"])
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.bodies.append(json.loads(body))
                self._forward(body)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def llama_server():
    process, url = start_server()
    yield url
    stop_server(process)


@pytest.fixture
def proxy(llama_server):
    recorder = RecordingProxy(llama_server)
    yield recorder
    recorder.close()


def make(tmp_path, url: str, **kwargs) -> Memoryos:
    kwargs.setdefault("embedder", HashEmbedder())
    kwargs.setdefault("background", False)
    return Memoryos(
        user_id="tom",
        openai_api_key="sk-local",
        data_storage_path=str(tmp_path / "data"),
        openai_base_url=url,
        llm_model="smollm2",
        **kwargs,
    )


@pytest.mark.real_models
@pytest.mark.slow
def test_simple_demo_flow_against_a_local_server(tmp_path, proxy, memory_keyring):
    memo = make(tmp_path, proxy.url, short_term_capacity=7, retrieval_queue_capacity=7)
    try:
        assert memo.get_user_profile_summary() == "None"
        assert (
            memo.add_memory(
                "Hi! I'm Tom, I work as a data scientist in San Francisco.",
                "Hello Tom! Nice to meet you.",
                timestamp="2025-05-01 12:00:00",
                meta_data={"channel": "web"},
            )
            is None
        )
        answer = memo.get_response(
            "What do you remember about my job?",
            relationship_with_user="coach",
            style_hint="answer in one short sentence",
            user_conversation_meta_data={"topic": "career"},
        )
        assert isinstance(answer, str) and answer and "<think>" not in answer
        (request,) = [b for b in proxy.bodies if "messages" in b]
        system = request["messages"][0]["content"]
        assert "Speak to the user as their coach." in system
        assert "Style of your answer: answer in one short sentence" in system
        assert 'About this conversation: {"topic": "career"}' in system
        assert request["model"] == "smollm2" and request["max_tokens"] <= 1500
        # Tom's exchange was in the prompt, and both exchanges are now memory.
        assert any("data scientist" in m["content"] for m in request["messages"])
        pages = memo.memory.pages()
        assert sorted(p.user_input for p in pages) == [
            "Hi! I'm Tom, I work as a data scientist in San Francisco.",
            "What do you remember about my job?",
        ]
        first = next(p for p in pages if p.user_input.startswith("Hi!"))
        assert first.meta == {"meta_data": {"channel": "web"}}
        assert memo.short_term_entries()[0] == {
            "user_input": "Hi! I'm Tom, I work as a data scientist in San Francisco.",
            "agent_response": "Hello Tom! Nice to meet you.",
            "timestamp": "2025-05-01 12:00:00",
        }
        memo.memory.run_consolidation()  # non-LLM persona path: the name and job fill slots
        summary = memo.get_user_profile_summary()
        assert "Tom" in summary and "data scientist" in summary
    finally:
        memo.close()


@pytest.mark.real_models
@pytest.mark.slow
def test_force_mid_term_analysis_runs_the_analysis_now(tmp_path, llama_server, memory_keyring):
    memo = make(tmp_path, llama_server, short_term_capacity=2, mid_term_heat_threshold=1000)
    try:
        for number in range(4):
            memo.add_memory(f"I planted {number + 2} tomato plants today.", "Nice garden!")
        memo.memory.run_consolidation()
        segments = memo.memory.segments()
        assert segments and memo.memory.vault.unanalysed_page_ids(segments[0].id)
        memo.force_mid_term_analysis()
        hottest = max(memo.memory.segments(), key=lambda s: s.heat.heat)
        assert memo.memory.vault.unanalysed_page_ids(hottest.id) == []
        assert hottest.heat.visits == 0  # counters restart after an analysis, as in the paper
        assert memo.memory.consolidation_status().pending_jobs == 0
    finally:
        memo.close()


def test_assistant_knowledge_summary_and_stats_have_the_reference_shape(tmp_path, memory_keyring):
    memo = make(tmp_path, "http://127.0.0.1:9/v1")  # no call reaches the model here
    try:
        memo.memory.add_fact("Suggested a green curry without peanuts", kind=ASSISTANT_KNOWLEDGE)
        (entry,) = memo.get_assistant_knowledge_summary()
        assert set(entry) == {"knowledge", "timestamp"}
        assert entry["knowledge"] == "Suggested a green curry without peanuts"
        assert REFERENCE_TIME.fullmatch(entry["timestamp"])
        memo.add_memory("hello", "hi")
        assert memo.get_memory_stats() == {
            "user_id": "tom",
            "short_term_count": 1,
            "mid_term_sessions_count": 0,
            "has_user_profile": False,
            "assistant_knowledge_count": 1,
        }
        # the attributes the reference's MCP server reaches into
        assert memo.short_term_memory.get_all() == [
            {"user_input": "hello", "agent_response": "hi", "timestamp": ANY_TIME}
        ]
        assert not memo.short_term_memory.is_full()
        context = memo.retriever.retrieve_context(user_query="curry", user_id="tom")
        assert set(context) == {
            "retrieved_pages", "retrieved_user_knowledge", "retrieved_assistant_knowledge",
        }  # fmt: skip
        assert memo.user_long_term_memory.get_raw_user_profile("tom") == "None"
        assert memo.user_long_term_memory.get_user_knowledge() == []
        assert memo.assistant_long_term_memory.get_assistant_knowledge() == [entry]
        with pytest.raises(errors.InvalidInputError, match="not a date"):
            memo.add_memory("hello", "hi", timestamp="next Tuesday-ish")
        assert memo.get_memory_stats()["short_term_count"] == 1
    finally:
        memo.close()


def test_one_encrypted_vault_per_user_with_a_passphrase(tmp_path, fail_keyring):
    data = tmp_path / "data"
    memo = make(tmp_path, "http://127.0.0.1:9/v1", passphrase="correct horse battery")
    memo.add_memory("My bank PIN hint is the blue heron", "I will keep that private.")
    memo.close()
    path = vault_path(data, "tom")
    assert path == data.resolve() / "users" / "tom" / "vault.memoryos" and path.exists()
    assert b"blue heron" not in raw_bytes(path)
    with pytest.raises(errors.WrongKeyError):
        make(tmp_path, "http://127.0.0.1:9/v1", passphrase="wrong passphrase")
    again = make(tmp_path, "http://127.0.0.1:9/v1", passphrase="correct horse battery")
    try:
        assert again.short_term_entries()[0]["user_input"] == "My bank PIN hint is the blue heron"
    finally:
        again.close()


@pytest.mark.parametrize("user_id", ["../escape", "a/b", "", ".hidden", 7])
def test_user_ids_that_cannot_name_a_folder_are_refused(tmp_path, user_id):
    with pytest.raises(errors.InvalidInputError, match="user_id"):
        vault_path(tmp_path, user_id)


def test_reasoning_is_removed_and_style_goes_into_the_system_prompt():
    assert strip_thinking("<think>the user wants x</think>\n\nX it is.").strip() == "X it is."
    assert strip_thinking("<think>never closed") == ""
    assert strip_thinking("plain") == "plain"
    messages = [{"role": "system", "content": "Base."}, {"role": "user", "content": "hi"}]
    styled = with_conversation_style(messages, "friend", "", None)
    assert styled[0]["content"] == "Base.\n\nSpeak to the user as their friend."
    assert messages[0]["content"] == "Base."  # the input is not changed
    assert with_conversation_style(messages, "", "", None) == messages


def test_a_reasoning_models_thinking_is_not_stored(memory, chat):
    chat.queue("<think>The user wants their job. Checking memory.</think>\n\nYou are a nurse.")
    stream = memory.get_response("What is my job?")
    "".join(stream)  # the app gets every chunk and folds the thinking apart (engine.thinking)
    assert stream.text.strip() == "You are a nurse."
    assert stream.thinking == "The user wants their job. Checking memory."
    assert stream.raw.startswith("<think>")
    assert memory.page(stream.page.id).agent_response == "You are a nurse."


def test_the_reference_similarity_threshold_keeps_its_strictness(tmp_path, memory_keyring):
    """The reference's mid_term_similarity_threshold is on plain cos + Jaccard; ours takes the
    cos without what all pages share, 0.2 lower for the same strictness (engine/settings.py)."""
    memo = make(tmp_path, "http://127.0.0.1:9/v1", mid_term_similarity_threshold=0.6)
    try:
        assert memo.memory.settings.segment_threshold == 0.4  # our default: the paper's 0.6
        again = Memoryos.from_memory(memo.memory, user_id="tom")
        assert again.mid_term_similarity_threshold == 0.6  # reported on the reference's scale
    finally:
        memo.close()


def test_the_profile_summary_reads_each_entry_as_the_app_shows_it(tmp_path, memory_keyring):
    """One line per entry, as Privacy shows it: "cat: Miso", not "cat: Miso: cat: Miso", and
    "likes hiking", not "hiking: likes hiking"."""
    memo = make(tmp_path, "http://127.0.0.1:9/v1")  # no call reaches the model here
    try:
        memo.add_memory("My cat is called Miso and I love hiking.", "Lovely!")
        memo.memory.run_consolidation()
        lines = memo.get_user_profile_summary().splitlines()
        assert "cat: Miso" in lines and "likes hiking" in lines, lines
    finally:
        memo.close()
