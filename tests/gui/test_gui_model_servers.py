"""Served models: the banner for a server's tiny model, and a server added by its address in the
model step (another port, another computer), against real HTTP servers."""

from __future__ import annotations

import dataclasses
import socket
import threading
from http.server import ThreadingHTTPServer

import pytest
from PySide6.QtCore import Qt

from tests.local_servers import ChatServer, FileHost

pytestmark = pytest.mark.gui


def closed_port() -> int:
    """A port nothing listens on (bound, read, released): connecting there is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def names(rows) -> list[str]:
    return [row.text(0) for row in rows]


# -- the banner for a served tiny model -----------------------------------------------------


def test_a_served_tiny_model_gets_the_banner_a_larger_or_unknown_one_does_not(
    qtbot, memory, chat, tmp_path
):
    """llama-cpp-python's server names its model by the GGUF's path: once it has loaded, the
    app knows the model is 135M parameters and says so, as it does for the bundled one. A
    model of 1B parameters, or of a size nobody knows (Ollama's names), gets no banner."""
    from app.main_window import MainWindow
    from app.session import READY
    from models.catalogue import bundled_gguf_path
    from tests.test_backends_llama import write_gguf

    tiny = str(bundled_gguf_path())
    large = str(write_gguf(tmp_path / "Large-1B.gguf", tensors=[(32768, 32768)]))  # 1.07B
    window = MainWindow.for_memory(memory, chat)  # the app's own loader: a real OpenAIChat
    qtbot.addWidget(window)
    window.show()
    banner = window.demo_banner
    assert banner.isVisible() and "demo model" in banner.text.text()  # the bundled one

    def use(server: ChatServer, model: str) -> None:
        window._settings_applied(dataclasses.replace(
            window.settings, model_source="openai", server_url=server.url, server_model=model,
        ), True)  # fmt: skip
        qtbot.waitUntil(
            lambda: window.session.state == READY
            and getattr(window.session.mem.chat, "model", None) == model,
            timeout=10_000,
        )

    with ChatServer([tiny], ["Hi"]) as small, ChatServer([large], ["Hi"]) as big, \
            ChatServer(["llama3.1:8b"], ["Hi"]) as unknown:  # fmt: skip
        use(small, tiny)
        assert banner.isVisible()
        text = banner.text.text()
        assert "SmolLM2-135M-Instruct.Q4_1" in text and "135M parameters" in text
        assert "server" in text and "demo model" not in text and ".gguf" not in text
        with qtbot.waitSignal(banner.choose_requested):
            banner.button.click()
        assert "model_step" in window.panels
        window.panels["model_step"].reject()
        use(big, large)
        assert not banner.isVisible()
        use(small, tiny)
        assert banner.isVisible()
        use(unknown, "llama3.1:8b")
        assert not banner.isVisible()
        # the bundled model again: its own banner, at once
        window._settings_applied(dataclasses.replace(window.settings, model_source="bundled"),
                                 True)  # fmt: skip
        assert banner.isVisible() and "demo model" in banner.text.text()
    window.close()


def test_the_served_tiny_models_banner_comes_back_after_unlocking(qtbot, memory, chat, embedder):
    """Locked, no banner; the vault opened again on the same tiny served model: the banner
    shows once its model has loaded."""
    from app.main_window import MainWindow
    from app.session import READY, Session
    from app.settings_store import AppSettings
    from engine.api import MemoryOS
    from models.catalogue import bundled_gguf_path

    tiny = str(bundled_gguf_path())
    with ChatServer([tiny], ["Hi"]) as server:
        settings = AppSettings(model_source="openai", server_url=server.url, server_model=tiny)
        window = MainWindow(settings)
        qtbot.addWidget(window)
        window.show()
        session = Session(memory, window.pool, window.settings, parent=window)
        window.attach(session)
        assert not window.demo_banner.isVisible()  # its size is not known before it loads
        session.load_model()
        qtbot.waitUntil(lambda: session.state == READY, timeout=10_000)
        assert window.demo_banner.isVisible()
        window.detach()
        assert not window.demo_banner.isVisible()
        again = MemoryOS.open(memory.path, embedder=embedder, background=False)  # unlocked
        session = Session(again, window.pool, window.settings, parent=window)
        window.attach(session)
        assert not window.demo_banner.isVisible()
        session.load_model()
        qtbot.waitUntil(lambda: session.state == READY, timeout=10_000)
        assert window.demo_banner.isVisible() and "135M" in window.demo_banner.text.text()
        window.close()


# -- a server added by its address ------------------------------------------------------------


@pytest.fixture
def servers(tmp_path, monkeypatch):
    """An empty home; the probe scans one port, where a server answers; another server runs on
    a port the probe does not scan."""
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))  # no other app's models
    for name in ("XDG_DATA_HOME", "HF_HOME", "HF_HUB_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    with ChatServer(["probed-model"], ["Hi"]) as probed, \
            ChatServer(["qwen2.5:7b", "llama3.1:8b"], ["Hello"]) as other:  # fmt: skip
        monkeypatch.setattr("models.probe.DEFAULT_PORTS", {probed.port: "llama.cpp server"})
        yield probed, other


def open_step(qtbot, window):
    dialog = window.open_model_step()
    qtbot.waitUntil(lambda: dialog.picker.overview is not None, timeout=20_000)
    return dialog


def test_a_server_on_another_port_is_added_by_its_address_and_chosen(
    qtbot, memory, chat, loads, servers
):
    from app.main_window import MainWindow
    from app.model_picker import SERVERS
    from models.probe import ports_to_probe

    probed, other = servers
    assert other.port not in ports_to_probe()
    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    window.show()
    dialog = open_step(qtbot, window)
    picker, address = dialog.picker, dialog.address
    assert names(picker.rows(SERVERS)) == ["probed-model"]
    assert not address.isVisible()
    address.open_button.click()
    assert address.isVisible() and address.address.hasFocus()
    # typed as people do: no scheme, no /v1; Enter lists its models (it chooses nothing)
    address.address.setText(f"127.0.0.1:{other.port}")
    with qtbot.waitSignal(address.answered, timeout=10_000):
        qtbot.keyClick(address.address, Qt.Key.Key_Return)
    assert dialog.isVisible()
    assert names(picker.rows(SERVERS)) == ["probed-model", "qwen2.5:7b", "llama3.1:8b"]
    added = picker.rows(SERVERS)[1]
    assert added.text(1) == f"127.0.0.1:{other.port}" and added.text(2) == other.url
    assert picker.table.currentItem() is added and picker.use_button.isEnabled()
    assert "on this computer" in picker.why.text()
    assert other.url in address.message.text() and not address.busy.isVisible()
    # Look again keeps what was added
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.refresh_button.click()
    assert names(picker.rows(SERVERS)) == ["probed-model", "qwen2.5:7b", "llama3.1:8b"]
    other.models.append("gemma3:4b")  # loaded in the server since: asked again, listed once
    with qtbot.waitSignal(address.answered, timeout=10_000):
        address.ask()
    assert names(picker.rows(SERVERS)) == [
        "probed-model", "qwen2.5:7b", "llama3.1:8b", "gemma3:4b"
    ]
    picker.table.setCurrentItem(picker.rows(SERVERS)[2])
    with qtbot.waitSignal(dialog.finished):
        picker.use_button.click()
    assert (window.settings.model_source, window.settings.server_url,
            window.settings.server_model) == ("openai", other.url, "llama3.1:8b")  # fmt: skip
    qtbot.waitUntil(lambda: bool(loads.asked) and loads.asked[-1].server_url == other.url)
    assert not window.settings.allow_plain_http
    window.close()


def test_an_address_where_nothing_answers_is_explained_and_the_step_stays_usable(
    qtbot, memory, chat, loads, servers, tmp_path
):
    from app.main_window import MainWindow
    from app.model_picker import SERVERS

    probed, _other = servers
    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    window.show()
    dialog = open_step(qtbot, window)
    picker, address = dialog.picker, dialog.address
    picker.table.setCurrentItem(picker.rows(SERVERS)[0])
    address.open_button.click()
    url = f"http://127.0.0.1:{closed_port()}/v1"
    address.address.setText(url)
    with qtbot.waitSignal(address.answered, timeout=10_000):
        address.ask()
        assert address.busy.isVisible() and not address.ask_button.isEnabled()  # asking
    message = address.message
    assert message.isVisible() and message.objectName() == "error"
    assert f"Nothing answered at {url}" in message.text() and "running" in message.text()
    assert address.ask_button.isEnabled() and not address.busy.isVisible()
    assert address.address.text() == url  # to be corrected, not typed again
    # nothing lost: the table and the selection as they were, the dialog open and usable
    assert dialog.isVisible() and names(picker.rows(SERVERS)) == ["probed-model"]
    assert picker.table.currentItem() is picker.rows(SERVERS)[0]
    # something that is not an OpenAI-compatible server (a web server with no model list)
    page = tmp_path / "index.html"
    page.write_text("<html></html>")
    with FileHost(page) as host:
        address.address.setText(host.endpoint)
        with qtbot.waitSignal(address.answered, timeout=10_000):
            address.ask()
    assert "not as an OpenAI-compatible server" in message.text()
    assert names(picker.rows(SERVERS)) == ["probed-model"]
    with qtbot.waitSignal(dialog.finished):
        picker.use_button.click()
    assert (window.settings.server_url, window.settings.server_model) == (
        probed.url, "probed-model"
    )
    window.close()


def this_computers_network_address() -> str:
    """An address of this computer that is not loopback (as another computer would reach it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is looked up
            host = probe.getsockname()[0]
        except OSError:
            host = ""
    if not host or host.startswith("127."):
        pytest.skip("this computer has no network address besides loopback")
    return host


def test_a_server_on_another_computer_over_plain_http_is_used_only_once_allowed(
    qtbot, memory, chat, loads, servers
):
    """http://<LAN address>:port/v1: what is said would cross the network unencrypted, which the
    engine refuses unless allowed; the row says so and is used once the person ticks it."""
    from app.main_window import MainWindow
    from app.model_picker import SERVERS

    _probed, other = servers
    host = this_computers_network_address()
    lan = ThreadingHTTPServer((host, 0), other.server.RequestHandlerClass)  # the same API
    lan.daemon_threads = True
    threading.Thread(target=lan.serve_forever, daemon=True).start()
    url = f"http://{host}:{lan.server_address[1]}/v1"
    try:
        window = MainWindow.for_memory(memory, chat, chat_factory=loads)
        qtbot.addWidget(window)
        window.show()
        dialog = open_step(qtbot, window)
        picker, address = dialog.picker, dialog.address
        address.open_button.click()
        address.address.setText(url)
        with qtbot.waitSignal(address.answered, timeout=10_000):
            address.ask()
        assert names(picker.rows(SERVERS))[1:] == ["qwen2.5:7b", "llama3.1:8b"]
        assert picker.table.currentItem() is picker.rows(SERVERS)[1]
        why = picker.why.text()
        assert f"{host}:{lan.server_address[1]}" in why and "unencrypted" in why
        assert picker.plain_http.isVisible() and not picker.use_button.isEnabled()
        picker.use()  # Enter or a double-click choose nothing either
        assert dialog.isVisible()
        picker.plain_http.click()
        assert picker.use_button.isEnabled()
        with qtbot.waitSignal(dialog.finished):
            picker.use_button.click()
        settings = window.settings
        assert (settings.server_url, settings.server_model, settings.allow_plain_http) == (
            url, "qwen2.5:7b", True
        )
        window.close()
    finally:
        lan.shutdown()
        lan.server_close()


def test_the_models_page_in_settings_adds_a_server_by_address_too(qtbot, servers):
    from app.model_picker import SERVERS
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    _probed, other = servers
    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    page = dialog.models_page
    qtbot.waitUntil(lambda: page.picker.overview is not None, timeout=20_000)
    page.address.open_button.click()
    page.address.address.setText(other.url)
    with qtbot.waitSignal(page.address.answered, timeout=10_000):
        page.address.ask()
    assert names(page.picker.rows(SERVERS))[1:] == ["qwen2.5:7b", "llama3.1:8b"]
    with qtbot.waitSignal(dialog.applied, timeout=10_000):  # used at once, the server asked
        page.picker.use_button.click()
    assert dialog.server.isChecked() and dialog.server_url.text() == other.url
    assert dialog.server_model.text() == "qwen2.5:7b"
    dialog.close()


# -- a llama.cpp server, whose model id is the GGUF's path ------------------------------------


def test_a_served_file_is_listed_by_its_name_and_marked_in_use_in_settings(
    qtbot, tmp_path, monkeypatch
):
    """llama.cpp's server names its model by the GGUF's whole path: the table showed the path
    (squeezing the other columns), and Settings → Models did not mark the server's model as
    the one in use. The row shows the file's name, the path is in its tooltip, Use still
    chooses the server's own id, and the model in use says so (localhost is 127.0.0.1)."""
    from app.model_picker import SERVERS
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    path = "/home/dana/models/Qwen2.5-1.5B-Instruct-Q4_K_M.gguf"
    with ChatServer([path], ["Hi"]) as server:
        monkeypatch.setattr("models.probe.DEFAULT_PORTS", {server.port: "llama.cpp server"})
        settings = AppSettings(
            model_source="openai", server_url=f"http://localhost:{server.port}/v1/",
            server_model=path,
        )  # fmt: skip
        dialog = SettingsDialog(settings)
        qtbot.addWidget(dialog)
        picker = dialog.models_page.picker
        qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
        (row,) = picker.rows(SERVERS)
        assert "/" not in row.text(0) and "Qwen2.5-1.5B-Instruct-Q4_K_M" in row.text(0)
        assert path in row.toolTip(0)
        assert row.text(3).startswith("in use")
        picker.table.setCurrentItem(row)
        picker.use_button.click()
        assert dialog.server_model.text() == path
        dialog.reject()
        dialog.pool.wait(5000)
