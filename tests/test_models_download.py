"""Downloads against a real HTTP server on 127.0.0.1 serving the bundled GGUF."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from models.catalogue import bundled_gguf_path
from models.discovery import find_models
from models.download import (
    ChecksumError,
    Download,
    DownloadStopped,
    NotEnoughSpaceError,
    OfflineError,
    hub_url,
    partial_downloads,
    plain_url,
)
from tests.local_servers import FileHost

MB = 1024 * 1024
REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("served") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shutil.copyfile(bundled_gguf_path(), copy)
    return copy


@pytest.fixture(scope="module")
def model_sha(model_file) -> str:
    return hashlib.sha256(model_file.read_bytes()).hexdigest()


def listed(folder: Path) -> list[str]:
    return [
        model.name for model in find_models(home=folder / "nohome", environ={}, downloads=folder)
    ]


def test_hub_download_is_verified_against_the_published_hash(tmp_path, model_file, model_sha):
    target = tmp_path / "models" / model_file.name
    reports = []
    with FileHost(model_file, repo=REPO) as host:
        result = Download(hub_url(REPO, model_file.name, endpoint=host.endpoint), target).run(
            reports.append
        )
    assert result.verified and result.sha256 == model_sha
    assert target.read_bytes() == model_file.read_bytes()
    assert sorted(p.name for p in target.parent.iterdir()) == [model_file.name]  # no .part left
    downloading = [r for r in reports if r.stage == "downloading"]
    assert downloading[-1].done == downloading[-1].total == model_file.stat().st_size
    assert all(r.speed >= 0 for r in reports)
    assert listed(target.parent) == ["SmolLM2-135M-Instruct.Q4_1"]


def test_a_dropped_connection_resumes_where_it_stopped(tmp_path, model_file, model_sha):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO) as host:
        host.drop_after = 30 * MB
        download = Download(hub_url(REPO, model_file.name, endpoint=host.endpoint), target)
        result = download.run()
        assert host.ranges == [None, f"bytes={30 * MB}-"]
    assert download.requests == [0, 30 * MB]
    assert result.verified and result.sha256 == model_sha


def test_pause_then_resume_after_a_restart(tmp_path, model_file, model_sha):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO) as host:
        # progress is reported ten times a second: on a fast loopback the whole file could
        # arrive between two reports, so the link is slowed to about 1 s for the file
        host.block_delay = 0.01
        url = hub_url(REPO, model_file.name, endpoint=host.endpoint)
        first = Download(url, target)

        def pause_after_20_mb(progress):
            if progress.done >= 20 * MB:
                first.pause()

        with pytest.raises(DownloadStopped) as stopped:
            first.run(pause_after_20_mb)
        assert not stopped.value.cancelled
        part = target.with_name(target.name + ".part")
        kept = part.stat().st_size
        assert 20 * MB <= kept < model_file.stat().st_size
        assert listed(target.parent) == []  # a partial file is never a model
        sidecar = json.loads(target.with_name(target.name + ".part.json").read_text())
        assert sidecar == {"url": url, "size": model_file.stat().st_size, "sha256": model_sha}
        assert [(p["dest"], p["done"]) for p in partial_downloads(target.parent)] == [
            (str(target), kept)
        ]
        # A new process: a fresh Download object for the same file picks up the .part.
        second = Download(url, target)
        result = second.run()
        assert second.requests == [kept]
        assert host.ranges[-1] == f"bytes={kept}-"
    assert result.verified and result.sha256 == model_sha
    assert listed(target.parent) == ["SmolLM2-135M-Instruct.Q4_1"]


def test_a_bad_checksum_is_rejected_and_nothing_is_left(tmp_path, model_file):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO, sha256="0" * 64) as host:
        with pytest.raises(ChecksumError, match="arrived damaged"):
            Download(hub_url(REPO, model_file.name, endpoint=host.endpoint), target).run()
    assert list(target.parent.iterdir()) == []
    assert listed(target.parent) == []


def test_not_enough_disk_space_is_said_before_starting(tmp_path, model_file):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO) as host:
        download = Download(
            hub_url(REPO, model_file.name, endpoint=host.endpoint),
            target,
            free_space=lambda _folder: 10 * MB,
        )
        with pytest.raises(NotEnoughSpaceError) as error:
            download.run()
        assert host.ranges == []  # not one byte was asked for
    size = model_file.stat().st_size
    assert str(error.value).startswith(
        f"Not enough disk space for {model_file.name}: it needs {(size + 64 * MB) / 1e6:.1f} MB "
        f"more and {target.parent} has 10.5 MB free."
    )
    assert not target.with_name(target.name + ".part").exists()


def test_cancel_deletes_the_partial_file(tmp_path, model_file):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO) as host:
        download = Download(hub_url(REPO, model_file.name, endpoint=host.endpoint), target)

        def cancel_after_10_mb(progress):
            if progress.done >= 10 * MB:
                download.cancel()

        with pytest.raises(DownloadStopped) as stopped:
            download.run(cancel_after_10_mb)
    assert stopped.value.cancelled
    assert list(target.parent.iterdir()) == []
    assert listed(target.parent) == []


def test_offline_gives_a_clear_message(tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(
        OfflineError, match="Models already on this computer and local servers still work"
    ):
        Download(f"http://127.0.0.1:{port}/model.gguf", tmp_path / "model.gguf", timeout=2).run()
    assert list(tmp_path.iterdir()) == []


def test_hub_page_links_become_download_links():
    assert plain_url(
        "https://huggingface.co/Qwen/Qwen3-8B-GGUF/blob/main/Qwen3-8B-Q4_K_M.gguf"
    ) == ("https://huggingface.co/Qwen/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf")
    assert plain_url("hf://Qwen/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf") == (
        "https://huggingface.co/Qwen/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf"
    )


def test_a_server_that_ignores_range_gets_the_whole_file_again(tmp_path, model_file, model_sha):
    target = tmp_path / "models" / model_file.name
    with FileHost(model_file, repo=REPO) as host:
        host.drop_after = 30 * MB
        host.honour_range = False
        download = Download(hub_url(REPO, model_file.name, endpoint=host.endpoint), target)
        result = download.run()
    assert download.requests == [0, 30 * MB]  # asked to resume; the 200 answer restarted it
    assert result.verified and result.sha256 == model_sha
    assert target.stat().st_size == model_file.stat().st_size


def test_a_refused_download_says_what_the_app_offers_instead(tmp_path, model_file):
    """The app has no field for a link: a file gone from the hub, or one behind a login, is
    explained with what can be done here (another model; the browser, then Add a folder…)."""
    from models.download import DownloadError

    with FileHost(model_file, repo=REPO) as host:
        url = hub_url(REPO, "missing.gguf", endpoint=host.endpoint)
        with pytest.raises(DownloadError, match=r"\(404\)") as gone:
            Download(url, tmp_path / "missing.gguf").run()
        host.refuse = 403
        url = hub_url(REPO, model_file.name, endpoint=host.endpoint)
        with pytest.raises(DownloadError, match=r"\(403\)") as gated:
            Download(url, tmp_path / "m.gguf").run()
    with pytest.raises(DownloadError) as typed:
        plain_url("models/m.gguf")
    for error in (gone, gated, typed):
        said = str(error.value).lower()
        assert "link" not in said and "paste" not in said
    assert "choose another model" in str(gone.value).lower()
    assert "add a folder" in str(gated.value).lower()
    assert list(tmp_path.iterdir()) == []
