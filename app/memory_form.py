"""The memory parameters form, declared as data over the MemorySettings dataclass fields."""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import pairwise
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QWidget,
)

from app.theme import pixels
from app.widgets import TallLabel

# The person's privacy choices, not parameters of the paper: "Reset to the paper's defaults"
# keeps them (a reset that silently turned retention off, or on, was a surprise).
KEPT_ON_RESET = ("retention_days", "retention_keeps_facts")


@dataclass(frozen=True)
class Field:
    """How one MemorySettings field is shown: label, help, range and group."""

    group: str
    label: str
    help: str = ""
    minimum: float = 0
    maximum: float = 1_000_000
    step: float = 1
    decimals: int = 2
    suffix: str = ""
    choices: tuple[str, ...] = ()
    unit: float = 1  # the setting's value per shown unit: 3600 shows seconds as hours
    special: str = ""  # what the minimum is shown as ("Never" for 0 days)
    check: str = "Allowed"  # a check box's own text


FIELDS: dict[str, Field] = {
    "stm_capacity": Field("Short-term memory", "Capacity", "Recent exchanges kept word for word", 1, 200),
    "stm_evict_batch": Field("Short-term memory", "Move out in batches of",
                             "Exchanges that leave together for mid-term memory", 1, 100),
    "chain_similarity": Field("Dialogue chains", "Continuity similarity",
                              "How similar two exchanges must be to continue a thread", 0, 1, 0.05),
    "chain_max_gap_seconds": Field("Dialogue chains", "Longest pause", "A longer pause starts a "
                                   "new thread", 0, 30 * 24, 0.5, 1, " h", unit=3600),
    "segment_threshold": Field("Mid-term memory", "Topic join threshold",
                               "cosine (without what all exchanges share) + keyword overlap "
                               "needed to join a topic (0.4; the paper's 0.6 is on plain cosine)",
                               0, 2, 0.05),
    "mtm_capacity": Field("Mid-term memory", "Capacity", "Topics kept (paper: 200); the coldest "
                          "leaves first", 1, 100_000),
    "segment_keywords": Field("Mid-term memory", "Keywords per topic", "", 1, 100),
    "heat_alpha": Field("Heat", "α (visits)", "Weight of how often a topic is recalled", 0, 100, 0.1),
    "heat_beta": Field("Heat", "β (length)", "Weight of how many exchanges a topic holds", 0, 100, 0.1),
    "heat_gamma": Field("Heat", "γ (recency)", "Weight of how recently a topic was used", 0, 100, 0.1),
    "heat_mu_seconds": Field("Heat", "μ (recency scale)", "Paper: 10⁷ s (about 116 days)",
                             0.1, 100_000, 1, 1, " days", unit=86400),
    "heat_threshold": Field("Heat", "Analysis threshold", "A topic hotter than this updates the "
                            "profile and facts (paper: 5)", 0, 1000, 0.5),
    "top_segments": Field("Retrieval", "Topics per answer", "", 0, 100),
    "top_pages": Field("Retrieval", "Exchanges per answer", "", 0, 200),
    "top_facts": Field("Retrieval", "Facts per answer", "", 0, 200),
    "top_knowledge": Field("Retrieval", "Knowledge per answer", "", 0, 200),
    "context_budget_tokens": Field("Retrieval", "Memory budget", "Tokens of memory given to the "
                                   "model with each question", 100, 200_000, 100, 0, " tokens"),
    "llm_consolidation": Field("Consolidation", "Model consolidation",
                               "auto: only a model capable enough; never: rules only; always: any "
                               "model", choices=("auto", "never", "always")),
    "remote_consolidation": Field("Consolidation", "Send to a remote model",
                                  "Let background memory work (summaries, facts) use a model that "
                                  "is not on this computer. Off: it never receives your memories "
                                  "in the background; the rules do that work instead."),
    "retention_days": Field("Retention", "Forget exchanges after", "Exchanges older than this "
                            "are forgotten by consolidation; Never (0) keeps them for ever", 0,
                            36500, suffix=" days", special="Never"),
    "retention_keeps_facts": Field("Retention", "Keep what was learned",
                                   "Keep the facts and profile learned from forgotten exchanges",
                                   check="Yes"),
}


def field_for(name: str, default: Any) -> Field:
    """The declared field, or a plain one for a setting added to the dataclass later."""
    if name in FIELDS:
        return FIELDS[name]
    return Field("Other", name.replace("_", " ").capitalize(), decimals=3 if isinstance(default, float) else 0)


class MemoryForm(QWidget):
    """One input per MemorySettings field, grouped; reads and writes MemorySettings objects."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from engine.settings import MemorySettings

        self.settings_class = MemorySettings
        defaults = MemorySettings()
        self.inputs: dict[str, QWidget] = {}
        self.specs: dict[str, Field] = {}
        self.problems: dict[str, QLabel] = {}  # name -> why its value cannot be saved
        self._rows: dict[str, QFormLayout] = {}
        self._exact: dict[str, tuple[float, Any]] = {}  # name -> (shown, the setting's value)
        groups: dict[str, QFormLayout] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(10)
        for item in fields(MemorySettings):
            default = getattr(defaults, item.name)
            spec = field_for(item.name, default)
            if spec.group not in groups:
                box = QGroupBox(spec.group)
                form = QFormLayout(box)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
                form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
                groups[spec.group] = form
                index = len(groups) - 1
                grid.addWidget(box, index // 2, index % 2)
            widget = _input(spec, default)
            shown = f"{default / spec.unit:g}{spec.suffix}" if spec.unit != 1 else default
            widget.setToolTip(f"{spec.help}\nDefault: {shown}" if spec.help else f"Default: {shown}")
            widget.setObjectName(item.name)
            self.inputs[item.name] = widget
            self.specs[item.name] = spec
            label = QLabel(spec.label)
            label.setToolTip(widget.toolTip())  # the label is where a person hovers
            label.setBuddy(widget)
            groups[spec.group].addRow(label, widget)
            problem = TallLabel(objectName="error")  # shown under its field when Save refuses
            problem.setWordWrap(True)
            groups[spec.group].addRow(problem)
            groups[spec.group].setRowVisible(problem, False)
            self.problems[item.name] = problem
            self._rows[item.name] = groups[spec.group]
        for widget in self.inputs.values():  # lined up, and as wide as the text is large
            widget.setFixedWidth(pixels(130))
        # Tab reads the boxes as the eye does, each box whole, left to right and down: in the
        # settings' own order it went through all of Heat before Mid-term's last fields
        shown = [self.inputs[name] for group in groups for name in self.inputs
                 if self.specs[name].group == group]
        for first, second in pairwise(shown):
            QWidget.setTabOrder(first, second)
        self.boxes = [form.parentWidget() for form in groups.values()]
        self.columns = 2
        grid.setRowStretch(grid.rowCount(), 1)

    def set_columns(self, columns: int) -> None:
        """The boxes in `columns` columns, in the same order (left to right, then down)."""
        if columns == self.columns:
            return
        grid = self.layout()
        grid.setRowStretch(-(-len(self.boxes) // self.columns), 0)  # the room under them
        for box in self.boxes:
            grid.removeWidget(box)
        for index, box in enumerate(self.boxes):
            grid.addWidget(box, index // columns, index % columns)
        grid.setRowStretch(-(-len(self.boxes) // columns), 1)
        self.columns = columns

    def set_settings(self, settings: Any) -> None:
        for name, widget in self.inputs.items():
            value = getattr(settings, name)
            if isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findText(str(value))))
            elif isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            else:
                widget.setValue(value / self.specs[name].unit)  # type: ignore[attr-defined]
                # 10⁷ s shows as 115.7 days: unless that is changed, 10⁷ s is what is saved
                self._exact[name] = (widget.value(), value)  # type: ignore[attr-defined]

    def settings(self) -> Any:
        """A MemorySettings from the inputs (validate() is the caller's)."""
        values: dict[str, Any] = {}
        for name, widget in self.inputs.items():
            if isinstance(widget, QCheckBox):
                values[name] = widget.isChecked()
                continue
            if isinstance(widget, QComboBox):
                values[name] = widget.currentText()
            else:
                shown, exact = self._exact.get(name, (None, None))
                value = widget.value()  # type: ignore[attr-defined]
                values[name] = exact if value == shown else value * self.specs[name].unit
        return self.settings_class.from_dict(values)

    def reset(self) -> str:
        """Back to the paper's defaults, but for the person's retention choice (KEPT_ON_RESET),
        which stays as it is. Returns that choice in words, to say it was kept."""
        kept = {name: getattr(self.settings(), name) for name in KEPT_ON_RESET}
        self.set_settings(self.settings_class(**kept))
        days = kept["retention_days"]
        return f"forget exchanges after {count(days, 'day')}" if days else "never forget exchanges"

    def show_problems(self, problems: dict[str, str]) -> QWidget | None:
        """Say under each field why its value cannot be saved (and hide the rest); the first
        field with a problem, for the caller to show."""
        first = None
        for name, label in self.problems.items():
            text = problems.get(name, "")
            label.setText(text)
            self._rows[name].setRowVisible(label, bool(text))
            if text and first is None:
                first = self.inputs[name]
        return first


def count(number: float, unit: str) -> str:
    """'1 day', '2 days', '0.5 days'."""
    return f"{number:g} {unit}" + ("" if number == 1 else "s")


def _input(spec: Field, default: Any) -> QWidget:
    if isinstance(default, bool):
        return QCheckBox(spec.check)
    if spec.choices or isinstance(default, str):
        combo = QComboBox()
        combo.addItems(list(spec.choices) or [str(default)])
        return combo
    if isinstance(default, int) and spec.unit == 1:
        spin = QSpinBox()
        spin.setRange(int(spec.minimum), int(min(spec.maximum, 2**31 - 1)))
        spin.setSingleStep(int(spec.step) or 1)
        spin.setSpecialValueText(spec.special)
        _plural_suffix(spin, spec.suffix)
        return spin
    double = QDoubleSpinBox()
    double.setDecimals(spec.decimals)
    double.setRange(spec.minimum, spec.maximum)
    double.setSingleStep(spec.step)
    _plural_suffix(double, spec.suffix)
    return double


def _plural_suffix(spin: Any, suffix: str) -> None:
    """" days" after every value but 1: "1 day"."""
    one = suffix[:-1] if suffix.endswith("days") else suffix

    def follow(value: float) -> None:
        spin.setSuffix(one if value == 1 else suffix)

    spin.setSuffix(suffix)
    spin.valueChanged.connect(follow)
