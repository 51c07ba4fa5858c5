"""The main window's actions, menus and toolbar (labels beside the icons where they fit).

A mixin of MainWindow (kept apart so the window's own module stays small); the actions call
the window's own methods and those of its other mixins.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSizePolicy, QToolBar, QWidget

from app.icons import themed
from app.theme import pixels


class ActionsWindowMixin:
    """Makes the window's actions, its menu bar and its toolbar."""


    # --- building ----------------------------------------------------------------------
    def _action(self, text: str, slot: Any, shortcut: str = "", icon_name: str = "", tip: str = "") -> QAction:
        action = QAction(text, self)
        if icon_name:
            action.setIcon(themed(icon_name))
            action.setProperty("icon_name", icon_name)  # drawn again when the scheme changes
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(f"{tip or text.replace('…', '')} ({shortcut})" if shortcut else tip or text)
        action.triggered.connect(slot)
        return action

    def _make_actions(self) -> None:
        self.new_action = self._action("&New conversation", self.new_conversation, "Ctrl+N", "new",
                                       "Start a new conversation")
        self.temporary_action = self._action("&Temporary chat", self.set_temporary, "Ctrl+T",
                                             "temporary", "Chat without saving anything")
        self.temporary_action.setCheckable(True)
        self.import_action = self._action("&Import conversations…", self.import_conversations, "",
                                          "", "Add conversation transcripts (JSON) to memory")
        self.import_reference_action = self._action(
            "Import from the &reference MemoryOS…", self.import_reference, "", "",
            "Bring in the memory of the reference MemoryOS (BAI-LAB): its data folder")
        self.export_action = self._action("&Export memory…", self.export_memory, "Ctrl+E", "export",
                                          "Save everything MemoryOS remembers to a JSON file")
        self.backup_action = self._action("&Back up memory…", self.backup_memory, "", "",
                                          "Save an encrypted copy of this memory's vault file")
        self.lock_action = self._action("&Lock now", self.lock_now, "Ctrl+L", "lock",
                                        "Close the vault now; its key is asked for again")
        # from Privacy and the inspector too: they show everything remembered
        self.lock_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.switch_action = self._action("S&witch memory…", self.switch_vault, "Ctrl+Shift+O",
                                          "", "Open another person's or purpose's memory, or "
                                          "start a new one")
        self.quit_action = self._action("&Quit", self.close, "Ctrl+Q")
        self.settings_action = self._action("&Settings…", self.open_settings, "Ctrl+,", "settings",
                                            "Model and memory settings")
        # Ctrl+M is this window action's (Tools menu, listed by F1), whether or not the demo
        # banner, whose button opens the same step, is showing.
        self.model_action = self._action("Choose a &model…", self.open_model_step, "Ctrl+M",
                                         "model", "Models on this computer, local servers, "
                                         "downloads")
        self.inspector_action = self._action("Memory &inspector", self.open_inspector, "Ctrl+I",
                                             "inspector", "See the memory tiers")
        self.privacy_action = self._action("&Privacy…", self.open_privacy, "Ctrl+P", "privacy",
                                           "See, correct and erase what MemoryOS knows about you")
        self.about_action = self._action("&About MemoryOS", self.about)
        self.shortcuts_action = self._action("&Keyboard shortcuts and commands",
                                             self.show_shortcuts, "F1")
        self._make_memory_actions()  # sidebar, search, chat, text size (window_memory.py)
        self.vault_actions = [self.new_action, self.temporary_action, self.export_action,
                              self.backup_action,
                              self.import_action, self.import_reference_action,
                              self.inspector_action, self.privacy_action, self.search_action,
                              self.lock_action, self.switch_action]

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.setToolTipsVisible(True)  # why an entry is greyed out (the policy's file)
        file_menu.addActions([self.new_action, self.temporary_action])
        file_menu.addSeparator()
        file_menu.addAction(self.import_action)
        file_menu.addAction(self.import_reference_action)
        file_menu.addAction(self.export_action)
        file_menu.addAction(self.backup_action)
        file_menu.addSeparator()
        file_menu.addAction(self.switch_action)
        file_menu.addAction(self.lock_action)
        file_menu.addAction(self.quit_action)
        self._add_memory_menus(bar)
        memory_menu = bar.addMenu("&Memory")
        memory_menu.addActions([self.inspector_action, self.privacy_action])
        tools = bar.addMenu("&Tools")
        tools.addActions([self.model_action, self.settings_action])
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.shortcuts_action)
        help_menu.addSeparator()
        help_menu.addAction(self.about_action)

    def _make_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setMovable(False)
        bar.setIconSize(QSize(18, 18))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addActions([self.new_action, self.temporary_action])
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addActions([self.inspector_action, self.privacy_action, self.settings_action])
        self.addToolBar(bar)
        self.toolbar = bar
        self._labelled_width = 0  # the bar's width with labels, at the text size measured

    def fit_toolbar(self, measure: bool = True) -> None:
        """Labels beside the icons where they fit, icons alone (names in tooltips) where they
        do not: at large text sizes Privacy and Settings fell off the end of the bar. The
        labelled width is measured when the text size changes (`measure`), not on every step
        of a resize, which only compares it with the window's width."""
        bar = getattr(self, "toolbar", None)
        if bar is None:  # the look is applied before the bar is made
            return
        if measure or not self._labelled_width:
            bar.setIconSize(QSize(pixels(18), pixels(18)))
            bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self._labelled_width = bar.sizeHint().width()
        style = (
            Qt.ToolButtonStyle.ToolButtonTextBesideIcon
            if self._labelled_width <= self.width()
            else Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        if bar.toolButtonStyle() != style:
            bar.setToolButtonStyle(style)
