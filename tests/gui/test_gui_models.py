"""The model step, the Models page and the demo banner, against a real disk layout and server."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engine.terminal import wording
from tests.gui_steps import (
    download_stopped_by,
    listed_picker,
    settings_on_models_page,
    shown_model_step,
)
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


def row_named(rows, name):
    return next(row for row in rows if row.text(0) == name)


def test_the_model_step_drives_the_choice_into_settings(qtbot, memory, chat, loads, person):
    from app.main_window import MainWindow
    from app.model_picker import FILES, SERVERS
    from app.settings_store import load_settings

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    window.show()
    assert window.demo_banner.isVisible()
    with qtbot.waitSignal(window.demo_banner.choose_requested):
        window.demo_banner.button.click()
    dialog = window.panels["model_step"]
    picker = dialog.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    files = [(row.text(0), row.text(1)) for row in picker.rows(FILES)]
    assert files == [
        ("SmolLM2-135M Instruct (bundled demo)", "Built in"),
        ("SmolLM2-135M-Instruct-Q4_1", "LM Studio"),
    ]
    assert "llama · 135M parameters · Q4_1" in picker.rows(FILES)[1].text(2)
    assert picker.rows(FILES)[1].text(3).startswith("yes · 8,192 tokens on ")
    assert [row.text(0) for row in picker.rows(SERVERS)] == ["smollm2-135m"]
    # The server's model: Use puts its URL and name into the settings, saved at once.
    picker.table.setCurrentItem(row_named(picker.rows(SERVERS), "smollm2-135m"))
    with qtbot.waitSignal(dialog.finished):
        picker.use_button.click()
    server = person["server"]
    assert (
        window.settings.model_source,
        window.settings.server_url,
        window.settings.server_model,
    ) == (
        "openai",
        server.url,
        "smollm2-135m",
    )
    saved = load_settings()
    assert (saved.model_source, saved.server_url, saved.server_model) == (
        "openai",
        server.url,
        "smollm2-135m",
    )
    assert not window.demo_banner.isVisible()
    qtbot.waitUntil(lambda: bool(loads.asked) and loads.asked[-1].model_source == "openai")
    window.close()


def test_a_file_on_disk_comes_with_fitted_settings(qtbot, memory, chat, loads, person):
    from app.main_window import MainWindow
    from app.model_picker import FILES

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    dialog = window.open_model_step()
    picker = dialog.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    with qtbot.waitSignal(picker.fitted, timeout=10_000):
        picker.table.setCurrentItem(row_named(picker.rows(FILES), "SmolLM2-135M-Instruct-Q4_1"))
    assert "8,192 tokens: the model was trained for 8,192" in picker.why.text()
    assert picker.use_button.isEnabled()
    picker.use_button.click()
    settings = window.settings
    assert (
        settings.model_source,
        settings.gguf_path,
        settings.context_size,
        settings.gpu_layers,
    ) == (
        "gguf",
        person["gguf"],
        8192,
        0,
    )
    assert settings.threads == picker.fit.n_threads >= 1
    assert not window.demo_banner.isVisible()
    window.close()


def test_the_banner_shows_only_with_the_bundled_model(qtbot, memory, chat, loads):
    import dataclasses

    from app.demo_banner import DEMO_MAX_TOKENS, answer_limit
    from app.main_window import MainWindow
    from app.settings_store import AppSettings

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    window.show()
    assert window.settings.model_source == "bundled" and window.demo_banner.isVisible()
    other = dataclasses.replace(
        window.settings, model_source="openai", server_url="http://127.0.0.1:9/v1", server_model="m"
    )
    window._settings_applied(other, True)
    assert not window.demo_banner.isVisible()
    window._settings_applied(dataclasses.replace(other, model_source="bundled"), True)
    assert window.demo_banner.isVisible()
    assert answer_limit(AppSettings(max_tokens=512)) == DEMO_MAX_TOKENS == 160
    assert answer_limit(AppSettings(model_source="gguf", gguf_path="x", max_tokens=512)) == 512
    window.close()


def test_settings_say_the_demo_model_stops_short(qtbot):
    """"Longest answer 512 tokens" is not what the demo model does: Settings says so."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings(max_tokens=512))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.demo_limit.isVisible() and "160" in dialog.demo_limit.text()
    dialog.gguf.setChecked(True)
    assert not dialog.demo_limit.isVisible()
    dialog.bundled.setChecked(True)
    assert dialog.demo_limit.isVisible()
    dialog.close()


def test_the_models_page_fills_the_model_tab(qtbot, memory, chat, loads, person):
    from app.model_picker import FILES
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == [
        "Model",
        "Models",
        "Memory",
        "Conversation",
    ]
    picker = dialog.models_page.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    with qtbot.waitSignal(picker.fitted, timeout=10_000):
        picker.table.setCurrentItem(row_named(picker.rows(FILES), "SmolLM2-135M-Instruct-Q4_1"))
    with qtbot.waitSignal(dialog.applied) as applied:  # used at once, as in the model step
        picker.use_button.click()
    assert dialog.tabs.currentIndex() == 0
    assert dialog.gguf.isChecked() and dialog.gguf_path.text() == person["gguf"]
    assert dialog.context_size.value() == 8192
    assert "Context</b> 8,192 tokens" in dialog.fit_note.text()
    settings, changed = applied.args
    assert changed and settings.model_source == "gguf" and settings.gguf_path == person["gguf"]


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """The recommended list holds one model, served by a real HTTP server shaped like the hub."""
    import shutil

    from models import recommended
    from models.catalogue import bundled_gguf_path
    from tests.local_servers import FileHost

    served = tmp_path / "served" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    served.parent.mkdir()
    shutil.copyfile(bundled_gguf_path(), served)
    model = recommended.Recommended(
        "SmolLM2 135M (test)", 4, "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", served.name,
        served.stat().st_size, "Apache-2.0", 30, 23040, 8192,
    )  # fmt: skip
    monkeypatch.setattr(recommended, "RECOMMENDED", (model,))
    monkeypatch.setattr("models.probe.DEFAULT_PORTS", {})
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))  # no other app's models
    for name in ("XDG_DATA_HOME", "HF_HOME", "HF_HUB_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    with FileHost(served, repo=model.repo) as host:
        monkeypatch.setattr(recommended, "HUB", host.endpoint)
        yield host


def test_a_download_shows_progress_is_verified_then_chosen(qtbot, hub):
    from app.model_picker import DOWNLOADS, FILES
    from app.workers import WorkerPool
    from models.download import downloads_dir

    pool = WorkerPool()
    picker = listed_picker(qtbot, pool)
    hub.block_delay = 0.01
    picker.table.setCurrentItem(picker.rows(DOWNLOADS)[0])
    assert picker.download_button.isVisible() or not picker.isVisible()
    with qtbot.waitSignal(picker.chosen, timeout=30_000) as chosen:
        picker.download_button.click()
        qtbot.waitUntil(lambda: "MB/s" in picker.progress_text.text(), timeout=10_000)
    target = downloads_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert chosen.args[0].values["gguf_path"] == str(target)
    assert chosen.args[0].values["context_size"] == 8192
    assert picker.progress_text.text().startswith(
        f"SmolLM2-135M-Instruct.Q4_1.gguf downloaded and verified (SHA-256 {hub.sha256[:12]}"
    )
    qtbot.waitUntil(lambda: any(r.text(1) == "Downloaded by MemoryOS" for r in picker.rows(FILES)))
    pool.wait(5000)


def test_cancel_in_the_table_leaves_no_half_model(qtbot, hub):
    from app.model_picker import FILES
    from app.workers import WorkerPool
    from models.download import downloads_dir

    pool = WorkerPool()
    picker = listed_picker(qtbot, pool)
    hub.block_delay = 0.05
    finished = download_stopped_by(qtbot, picker, picker.cancel_button)
    assert finished.cancelled
    assert not picker.download_box.isVisible()
    assert not downloads_dir().exists() or list(downloads_dir().iterdir()) == []
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.refresh()
    assert [r.text(1) for r in picker.rows(FILES)] == ["Built in"]
    pool.wait(5000)


def test_pause_then_resume_after_a_restart_of_the_table(qtbot, hub):
    from app.model_picker import DOWNLOADS
    from app.workers import WorkerPool
    from models.download import downloads_dir

    pool = WorkerPool()
    picker = listed_picker(qtbot, pool)
    hub.block_delay = 0.05
    finished = download_stopped_by(qtbot, picker, picker.pause_button)
    assert not finished.cancelled
    assert picker.pause_button.text() == "Resume"
    part = downloads_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf.part"
    kept = part.stat().st_size
    assert kept > 0
    picker.close()
    # A new table (the app was restarted): the row says it is paused; Download resumes it.
    hub.block_delay = 0.0
    again = listed_picker(qtbot, pool)
    row = again.rows(DOWNLOADS)[0]
    assert row.text(3).startswith("paused at ")
    again.table.setCurrentItem(row)
    assert again.download_button.text() == "Resume download"
    with qtbot.waitSignal(again.chosen, timeout=30_000):
        again.download_button.click()
    assert hub.ranges[-1] == f"bytes={kept}-"
    assert not part.exists()
    pool.wait(5000)


def test_a_folder_the_person_adds_is_searched_and_remembered(qtbot, person, tmp_path):
    import shutil

    from app.model_picker import FILES
    from app.workers import WorkerPool
    from models.catalogue import bundled_gguf_path
    from models.overview import picked_folders

    folder = tmp_path / "my models"
    folder.mkdir()
    shutil.copyfile(bundled_gguf_path(), folder / "my-model.gguf")
    pool = WorkerPool()
    picker = listed_picker(qtbot, pool, probe=False)
    assert [r.text(1) for r in picker.rows(FILES)] == ["Built in", "LM Studio"]
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.add_folder(str(folder))
    qtbot.waitUntil(lambda: len(picker.rows(FILES)) == 3, timeout=20_000)
    assert [(r.text(0), r.text(1)) for r in picker.rows(FILES)][2] == ("my-model", "Chosen folder")
    assert picked_folders() == [str(folder.resolve())]
    pool.wait(5000)


def test_resume_in_place_then_cancel_after_a_pause(qtbot, hub):
    from app.model_picker import DOWNLOADS
    from app.workers import WorkerPool
    from models.download import downloads_dir

    pool = WorkerPool()
    picker = listed_picker(qtbot, pool)
    hub.block_delay = 0.05
    picker.table.setCurrentItem(picker.rows(DOWNLOADS)[0])
    for _ in range(2):  # pause, Resume in place, pause again
        with qtbot.waitSignal(picker.download_finished, timeout=30_000):
            if picker.pause_button.text() == "Resume":
                picker.pause_button.click()
            else:
                picker.download_button.click()
            qtbot.waitUntil(lambda: picker.pause_button.text() == "Pause", timeout=5_000)
            qtbot.waitUntil(lambda: "MB/s" in picker.progress_text.text(), timeout=10_000)
            picker.pause_button.click()
        assert picker.pause_button.text() == "Resume"
    assert hub.ranges[0] is None and hub.ranges[1].startswith("bytes=")
    part = downloads_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf.part"
    assert part.exists()
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.cancel_button.click()
    assert not part.exists()
    assert list(downloads_dir().iterdir()) == []
    assert not picker.rows(DOWNLOADS)[0].text(3).startswith("paused")
    pool.wait(5000)


def test_the_demo_model_answers_are_capped_short(qtbot, memory, send):
    import dataclasses

    from app.main_window import MainWindow
    from engine.backends.fake import FakeChat

    limits: list[int] = []

    class Recording(FakeChat):
        def _stream(self, messages, *, max_tokens, temperature):
            limits.append(max_tokens)
            yield from super()._stream(messages, max_tokens=max_tokens, temperature=temperature)

    chat = Recording()
    memory.set_chat(chat)
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    send(window, "Hello")
    window.settings = dataclasses.replace(window.settings, model_source="gguf", gguf_path="x.gguf")
    window.session.settings = window.settings
    send(window, "Hello again")
    assert limits == [160, 512]
    window.close()


def test_fits_this_computer_is_shown_whole_in_the_settings_tab(qtbot, person, cell_cut):
    """In Settings → Models (its default size) the verdict column is on screen, not past a
    horizontal scroll bar, and read whole (on more lines where it needs them)."""
    from app.model_picker import DOWNLOADS

    dialog = settings_on_models_page(qtbot)
    picker = dialog.models_page.picker
    table, header = picker.table, picker.table.header()
    qtbot.waitUntil(lambda: header.sectionSize(3) > 0)
    right_edge = header.sectionViewportPosition(3) + header.sectionSize(3)
    assert right_edge <= table.viewport().width()
    cut = [cell_cut(table, row, 3) for row in picker.rows(DOWNLOADS)]
    assert not any(cut), [why for why in cut if why]
    assert not table.horizontalScrollBar().isVisible()


def test_a_failed_download_is_explained_whole_and_enter_keeps_the_step_open(
    qtbot, hub, monkeypatch
):
    """Offline: the message saying what to do wraps instead of being cut; focus that lands on
    "Keep the demo model" does not make Enter dismiss the step."""
    from PySide6.QtCore import Qt

    from app.model_picker import DOWNLOADS
    from app.workers import WorkerPool
    from models import recommended

    monkeypatch.setattr(recommended, "HUB", "http://127.0.0.1:9")  # nothing listens there
    pool = WorkerPool()
    dialog = shown_model_step(qtbot, pool, probe=False)
    picker = dialog.picker
    picker.table.setCurrentItem(picker.rows(DOWNLOADS)[0])
    with qtbot.waitSignal(picker.download_finished, timeout=30_000):
        picker.download_button.click()
    label = picker.progress_text
    qtbot.waitUntil(lambda: label.isVisible() and label.text() != "")
    assert label.wordWrap()
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()))
    dialog.later_button.setFocus()
    assert not dialog.later_button.isDefault()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.result() == 0
    pool.wait(5000)


def test_the_banner_waits_for_an_open_vault(qtbot, memory, chat, loads):
    """Locked (first start, wrong passphrase, auto-lock) nobody is talking to any model: the
    demo banner shows once the vault is open, and goes when it closes."""
    from app.main_window import MainWindow
    from app.session import Session
    from app.settings_store import AppSettings

    window = MainWindow(AppSettings())
    qtbot.addWidget(window)
    window.show()
    assert window.settings.model_source == "bundled"
    assert not window.demo_banner.isVisible()
    window.attach(Session(memory, window.pool, window.settings, chat=chat, parent=window,
                          chat_factory=loads))  # fmt: skip
    assert window.demo_banner.isVisible()
    window.detach()
    assert not window.demo_banner.isVisible()
    window.close()


def test_each_model_says_how_fast_it_would_write_here(qtbot, person, monkeypatch):
    """On a CPU-only laptop reading memory at 20 GB/s: the small models are marked with their
    speed, the big ones that fit in RAM are marked slow (amber, with the reason), and a
    selected row gives the arithmetic."""
    from app.model_picker import DOWNLOADS
    from app.workers import WorkerPool
    from models.machine import Machine

    GiB = 1024**3
    laptop = Machine(32 * GiB, 28 * GiB, 0, "", 4, 8, memory_bandwidth=20 * 10**9)
    monkeypatch.setattr("models.overview.this_machine", lambda: laptop)
    monkeypatch.setattr("models.overview.gpu_offload", lambda: False)
    pool = WorkerPool()
    picker = listed_picker(qtbot, pool, probe=False)
    assert "memory read at 20.0 GB/s" in picker.machine.text()
    assert "Suggested download for it: <b>Llama 3.2 3B Instruct</b>" in picker.machine.text()
    rows = picker.rows(DOWNLOADS)
    small, big = row_named(rows, "Qwen2.5 1.5B Instruct"), row_named(rows, "Qwen2.5 32B Instruct")
    assert small.text(3).startswith("yes · 16,384 tokens on CPU · ~")
    assert small.text(3).endswith(" words/s")
    assert " · slow: ~" in big.text(3)
    assert big.foreground(3).color().name().lower() == "#b54708"
    assert small.foreground(3).color().name().lower() != "#b54708"
    assert "slower than you read" in big.toolTip(3)
    suggested = row_named(rows, "Llama 3.2 3B Instruct")
    assert suggested.font(0).bold() and not big.font(0).bold()
    assert suggested.toolTip(0).startswith("Suggested for this computer: the largest that writes")
    with qtbot.waitSignal(picker.fitted, timeout=10_000):
        picker.table.setCurrentItem(big)
    assert "<b>Speed</b> about 0.6 words a second" in picker.why.text()
    pool.wait(5000)


def _shown(picker) -> list[str]:
    """The download actions on screen: the row's button and the download box's buttons."""
    buttons = [picker.download_button, picker.pause_button, picker.cancel_button]
    return [button.text() for button in buttons if button.isVisibleTo(picker)]


def test_after_a_failed_download_only_the_action_that_makes_sense_shows(qtbot, hub, monkeypatch):
    """Offline before a byte came: nothing to resume, only Download (again). A paused part, or
    a resume that failed with the part kept: Resume and Discard in the download box, and no
    second Download button for the same row."""
    from app.model_picker import DOWNLOADS
    from app.workers import WorkerPool
    from models import recommended
    from models.download import downloads_dir

    served = recommended.HUB
    monkeypatch.setattr(recommended, "HUB", "http://127.0.0.1:9")  # nothing listens there
    pool = WorkerPool()
    picker = listed_picker(qtbot, pool)
    picker.table.setCurrentItem(picker.rows(DOWNLOADS)[0])
    assert _shown(picker) == ["Download"]
    with qtbot.waitSignal(picker.download_finished, timeout=30_000):
        picker.download_button.click()
    assert "cannot be reached" in picker.progress_text.text()
    assert _shown(picker) == ["Download"] and picker.download_button.isEnabled()

    monkeypatch.setattr(recommended, "HUB", served)
    hub.block_delay = 0.05
    with qtbot.waitSignal(picker.download_finished, timeout=30_000):
        picker.download_button.click()
        qtbot.waitUntil(lambda: "MB/s" in picker.progress_text.text(), timeout=10_000)
        assert _shown(picker) == ["Pause", "Cancel download"]
        picker.pause_button.click()
    part = downloads_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf.part"
    assert part.stat().st_size > 0
    assert _shown(picker) == ["Resume", "Discard download"]

    monkeypatch.setattr(recommended, "HUB", "http://127.0.0.1:9")  # the resume fails offline
    with qtbot.waitSignal(picker.download_finished, timeout=30_000):
        picker.pause_button.click()
    assert "cannot be reached" in picker.progress_text.text()
    assert _shown(picker) == ["Resume", "Discard download"]
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.cancel_button.click()
    assert not part.exists()
    pool.wait(5000)


def test_the_model_step_reads_whole_at_its_default_size(
    qtbot, person, cell_cut, laptop_screen
):
    """Names and where they are were cut ("SmolLM2-135M Instruct (…", "Download · Apa…"):
    at the step's default size they are whole on their line, the verdict and the details
    whole too (on more lines where they need them), with no horizontal scroll bar; the
    details' tooltip has all of them and where they come from."""
    from app.model_picker import DOWNLOADS, FILES, GROUP_TITLES
    from app.workers import WorkerPool

    pool = WorkerPool()
    dialog = shown_model_step(qtbot, pool)
    picker = dialog.picker
    table, header = picker.table, picker.table.header()
    qtbot.waitUntil(lambda: header.sectionSize(3) > 0)
    rows = [row for group in GROUP_TITLES for row in picker.rows(group)]
    rows = [row for row in rows if not row.isFirstColumnSpanned()]
    cut = [cell_cut(table, row, column, one_line=column < 2) for row in rows
           for column in range(4)]
    assert not any(cut), [why for why in cut if why]
    assert {row.text(1) for row in rows} >= {"Built in", "LM Studio", "Download"}
    assert header.sectionViewportPosition(3) + header.sectionSize(3) <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible()
    assert picker.rows(FILES)[0].toolTip(0) == "SmolLM2-135M Instruct (bundled demo)"
    for row in picker.rows(DOWNLOADS):
        model = row.data(0, Qt.ItemDataRole.UserRole)[1][0]
        assert row.text(2).startswith(f"{wording.size(model.size_bytes)} · {model.licence}")
        assert row.text(2) in row.toolTip(2) and model.url in row.toolTip(2)
        assert model.licence in row.toolTip(1)
    dialog.close()
    pool.wait(5000)


def test_an_incomplete_file_is_listed_as_unusable_and_settings_refuse_it(qtbot, person):
    """The first 3 MB of a model (header whole, weights missing): the table says it cannot be
    loaded and why, it cannot be used, and Settings' Save refuses it at once."""
    from app.model_picker import FILES
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings
    from app.workers import WorkerPool
    from models.catalogue import bundled_gguf_path

    folder = person["home"] / ".lmstudio/models/someone/Cut-GGUF"
    folder.mkdir(parents=True)
    cut = folder / "Cut-Q4_1.gguf"
    with open(bundled_gguf_path(), "rb") as whole:
        cut.write_bytes(whole.read(3_000_000))
    pool = WorkerPool()
    picker = listed_picker(qtbot, pool, probe=False)
    row = row_named(picker.rows(FILES), "Cut-Q4_1")
    assert row.text(3).startswith("no") and "yes" not in row.text(3)
    assert "incomplete" in row.text(2) and "Download it again" in row.toolTip(3)
    assert row.isDisabled()
    picker.table.setCurrentItem(row)
    assert not picker.use_button.isEnabled()

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    applied: list = []
    dialog.applied.connect(lambda *args: applied.append(args))
    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(cut))
    dialog.save()  # at once: before the file's inline description has been read
    assert applied == [] and "incomplete" in dialog.gguf_info.text()  # said under the field
    assert not dialog.error.isVisible()  # and only there
    dialog.reject()
    dialog.pool.wait(5000)
    pool.wait(5000)


def test_the_model_step_marks_the_model_in_use_and_offers_to_keep_it(
    qtbot, memory, chat, loads, person
):
    import dataclasses

    from app.main_window import MainWindow
    from app.model_picker import FILES, SERVERS

    def step_for(settings):
        window._settings_applied(settings, True)
        dialog = window.open_model_step()
        qtbot.waitUntil(lambda: dialog.picker.overview is not None, timeout=20_000)
        rows = dialog.picker.rows(FILES) + dialog.picker.rows(SERVERS)
        marked = [row.text(0) for row in rows if row.text(3).startswith("in use")]
        keep = dialog.later_button.text()
        dialog.reject()
        return marked, keep

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    bundled = window.settings
    port = person["server"].port
    server = dataclasses.replace(  # localhost, where the table found 127.0.0.1
        bundled, model_source="openai", server_url=f"http://localhost:{port}/v1",
        server_model="smollm2-135m",
    )  # fmt: skip
    assert step_for(server) == (["smollm2-135m"], "Keep smollm2-135m")
    on_disk = dataclasses.replace(bundled, model_source="gguf", gguf_path=person["gguf"])
    assert step_for(on_disk) == (
        ["SmolLM2-135M-Instruct-Q4_1"], "Keep SmolLM2-135M-Instruct-Q4_1"
    )
    assert step_for(bundled) == (
        ["SmolLM2-135M Instruct (bundled demo)"], "Keep the demo model for now"
    )
    window.close()


def test_the_status_line_names_a_served_file_by_its_short_name(qtbot, memory, chat):
    """llama-cpp-python's server calls its model by the GGUF's whole path: the status line
    shows the file's name, the whole id is in its tooltip."""
    import dataclasses

    from app.main_window import MainWindow
    from app.session import READY
    from models.catalogue import bundled_gguf_path

    served = str(bundled_gguf_path())
    with ChatServer([served], ["Hi"]) as server:
        window = MainWindow.for_memory(memory, chat)  # the app's own loader: a real OpenAIChat
        qtbot.addWidget(window)
        settings = dataclasses.replace(
            window.settings, model_source="openai", server_url=server.url, server_model=served
        )
        window._settings_applied(settings, True)
        label = window.status.model
        qtbot.waitUntil(lambda: window.session.state == READY, timeout=10_000)
        assert "SmolLM2-135M-Instruct.Q4_1" in label.text()
        assert "site-packages" not in label.text() and ".gguf" not in label.text()
        assert label.toolTip() == served
        window.close()
