"""The Model tab's server: the note under its address, its API key (where a key in use comes
from, a refusal of it, a keyring that cannot keep it) and the models the server lists.

A mixin of ModelTab (kept apart so the tab's own module stays small); it uses the tab's
fields, its worker pool and its signals.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt

from app.errors import describe
from app.outgoing import url_note
from app.settings_added_models import elided
from app.settings_lookups import (
    KEY_FOR_SESSION,
    KEY_FROM_ENVIRONMENT,
    KEY_FROM_KEYRING,
    KeyRefused,
    ask_server,
    key_source,
)
from app.theme import in_red
from app.workers import while_open
from engine.api_keys import API_KEY_ENV


class ServerMixin:
    """Methods ModelTab gets for an OpenAI-compatible server and its API key."""

    def _keyring_checked(self, status: Any) -> None:
        self.keyring_usable = bool(status.usable)
        if status.usable:
            return
        # Said before the key is typed. The field stays open: a key typed is used for this
        # session only (engine/api_keys.py holds it in memory); with the field disabled, a
        # server needing a key could not be used from the app on a headless Linux box. A hint,
        # not an error: many servers need no key. Not "servers on this computer need none": a
        # llama.cpp server on 127.0.0.1 started with an API key refuses requests without it.
        self.key_note.setObjectName("hint")
        self.key_note.setText("This computer has no usable system keyring, so a key typed here "
                              "is kept for this session only: never written to disk, and asked "
                              "for again the next time MemoryOS starts. A server needs a key "
                              "only when it was started or issued with one, on this computer "
                              "or not.")
        self.key_note.style().unpolish(self.key_note)
        self.key_note.style().polish(self.key_note)
        self._key_placeholder = "For this session only (no system keyring)"
        if not self.key_source.text():  # "keep the key in use" says more
            self.api_key.setPlaceholderText(self._key_placeholder)

    def _show_url_note(self, *_args: Any) -> None:
        """Under the Base URL: a malformed address said plainly (not judged "remote"), else
        where it points, and for plain http:// to another computer, the box just below."""
        from engine.network import is_loopback, plain_http_refused, url_problem

        url = self.server_url.text()
        problem = url_problem(url) if url.strip() else ""
        if problem:
            self.url_note.setText(in_red(f"{escape(problem)}."))
            return
        if url.strip() and self.policy.remote_forbidden and not is_loopback(url):
            # Said as it is typed, not only once Save refuses it.
            self.url_note.setText(in_red(
                "Not allowed: models that are not on this computer are turned off by your "
                f"administrator ({escape(self.policy.source)}). Use an address on this computer."))
            return
        note = url_note(url)
        if url.strip() and plain_http_refused(url, allow_plain_http=self.allow_plain_http
                                               .isChecked()):
            note += "<br>" + in_red("Plain http:// to it is refused: use https://, or tick "
                                    "the box below.")
        self.url_note.setText(note)

    def show_key_problem(self, problem: str) -> None:
        """Why the server refused the key, under the key's field ("" hides it)."""
        self.key_problem.setText(problem)
        self.server_form.setRowVisible(self.key_problem, bool(problem))

    def ask_key_source(self) -> None:
        """Ask (in a worker: the keyring can be slow) whether a key is in use for the address
        typed, and from where: said under the key's field once known."""
        from engine.network import url_problem

        url = self.server_url.text().strip()
        if url and not url_problem(url):
            self.pool.run(key_source, url, on_result=while_open(self, self._key_source_known))

    def _key_source_known(self, answer: tuple) -> None:
        url, source = answer
        if url == self.server_url.text().strip():  # else the address changed meanwhile
            self._show_key_source(source)

    def _show_key_source(self, source: str | None) -> None:
        """Under the key's field: that a key is in use for this address, and where it comes
        from (None or "": none known, the note hidden). The key itself is never shown."""
        where = {
            KEY_FROM_KEYRING: "the system keyring",
            KEY_FOR_SESSION: "this session only (typed earlier, not stored)",
            KEY_FROM_ENVIRONMENT: f"the {API_KEY_ENV} environment variable",
        }.get(source or "")
        self.key_source.setText(f"A key is in use for this address, from {where}. Leave the "
                                "field empty to keep it; a key typed replaces it."
                                if where else "")
        self.server_form.setRowVisible(self.key_source, bool(where))
        self.api_key.setPlaceholderText("Leave empty to keep the key in use" if where
                                        else self._key_placeholder)

    # --- a server's models -------------------------------------------------------------
    def list_server_models(self, again: bool = False) -> None:
        """Ask the server at the URL typed for its models (in a worker, a short timeout): the
        model-name box offers them, and takes the only one when there is one."""
        from engine.errors import MemoryOSError
        from engine.network import check_url

        url = self.server_url.text().strip()
        if not url or (url == self._listed_url and not again):
            return
        try:  # a URL that would be refused at Save is not asked either
            check_url(url, allow_plain_http=self.allow_plain_http.isChecked())
        except MemoryOSError:
            return
        self._listed_url = url
        self.ask_key_source()
        self.server_models_note.setText("Asking the server which models it has…")
        self.server_models_note.show()
        self.pool.run(ask_server, url, self.api_key.text().strip(),
                      on_result=self._server_listed)

    def _server_listed(self, answer: tuple) -> None:
        url, ids, error = answer
        if url != self.server_url.text().strip():
            return  # the URL changed while the server was asked
        typed = self.server_model.text().strip()
        self.show_key_problem("")  # shown again below when the key was refused
        self.server_model_box.clear()
        if ids:
            self.server_model_box.addItems(ids)
            for index, model in enumerate(ids):
                self.server_model_box.setItemData(index, model, Qt.ItemDataRole.ToolTipRole)
        self.server_model_box.setCurrentIndex(-1)
        # a name this server does not have (the last server's) is replaced by its only model
        missing = bool(ids) and bool(typed) and typed not in ids
        self.server_model.setText(ids[0] if ids and len(ids) == 1 and (missing or not typed)
                                  else typed)
        if missing and len(ids) == 1:
            note = (f"The server has one model, {elided(ids[0], 60)}: it replaces "
                    f"{elided(typed, 60)}, which this server does not have.")
        elif missing:
            note = (f"This server has no model named {elided(typed, 60)}: pick one of its "
                    f"{len(ids)} models from the list.")
        elif isinstance(error, OSError):
            note = f"The server at {url} does not answer: is it running?"
        elif isinstance(error, KeyRefused):
            note = "The server lists its models only with the right API key: see below."
            self.show_key_problem(str(error))
        elif error is not None:
            note = describe(error)
        elif ids is None:
            note = ("The server answered but did not list its models (it may need the API "
                    "key): type the model name it knows.")
        elif not ids:
            note = "The server lists no models: load one in it, then type its name here."
        elif len(ids) == 1:
            note = f"The server has one model: {elided(ids[0], 60)}."
        else:
            note = f"The server has {len(ids)} models: pick one from the list."
        self.server_models_note.setObjectName("error" if missing and len(ids) > 1 else "hint")
        self.server_models_note.style().unpolish(self.server_models_note)
        self.server_models_note.style().polish(self.server_models_note)
        self.server_models_note.setText(note)
        self.models_listed.emit()
