"""The Trace tab: the last answer's steps as a tree; expand a step to see how it was computed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

if TYPE_CHECKING:  # the core loads behind the first screen, not before it
    from clusterplan.assistant.answer import Step


def step_label(number: int, step: Step, width: int | None = None) -> Text:
    """A step's one-line label: its number, what it computed and the result with its unit.
    Given a width, a short result stays whole and what was computed is cut at a word."""
    label = Text(f"{number}. ", style="dim")
    result = Text("")
    if step.result is not None:
        result = Text(" = ")
        result.append(str(step.result), style="bold")
    name = Text(step.label)
    if width is not None and result.cell_len <= width // 2:
        name = fitted(name, width - label.cell_len - result.cell_len)
    whole = label + name + result
    return whole if width is None else fitted(whole, width)  # a long result: cut at a word


def fitted(label: Text, width: int) -> Text:
    """`label` cut at a word to `width` cells, ' …' marking the cut: a number is never cut."""
    if label.cell_len <= width or width < 8:
        return label
    plain = label.plain
    cut = plain[:width - 2]
    if plain[len(cut)] != " " and " " in cut.strip():
        cut = cut[:cut.rstrip().rfind(" ")]  # it ended inside a word: end on the one before
    short = label[:len(cut)]
    short.rstrip()
    short.append(" …", style="dim")
    return short


class TracePanel(Tree["Step"]):
    """Every step of the last answer: formula, inputs with units, result and notes underneath.
    Step labels are cut at a word to the panel's width (a tree line does not wrap), so no
    number is cut at the edge; expand a step to see its parts whole."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("Steps", **kwargs)  # type: ignore[arg-type]
        self.show_root = False
        self.guide_depth = 2
        # filled here, not on mount: an answer may arrive before this panel is mounted
        self.root.add_leaf(Text("Ask a question to see the steps behind its answer.", "dim"))
        self.root.expand()

    def show_steps(self, steps: list[Step] | None) -> None:
        """Replace the tree with `steps` (None: no answer yet), collapsed until expanded."""
        self.clear()
        if steps is None:
            self.root.add_leaf(Text("Ask a question to see the steps behind its answer.", "dim"))
        elif not steps:
            self.root.add_leaf(Text("This answer needed no calculation.", "dim"))
        steps = steps or []
        for number, step in enumerate(steps, start=1):
            node = self.root.add(step_label(number, step), data=step, expand=False)
            _add_details(node, step)
        self.root.expand()
        self.cursor_line = 0
        self._fit_labels()

    def on_resize(self) -> None:
        self._fit_labels()

    def _fit_labels(self) -> None:
        """Cut each step's label at a word to fit the width, its result kept whole when short.
        A step's parts (formula, inputs) stay whole: the tree scrolls sideways for them."""
        width = self.scrollable_content_region.width
        if not width:
            return
        for number, node in enumerate(self.root.children, start=1):
            if node.data is not None:
                node.set_label(step_label(number, node.data, width - 2))


def _add_details(node: TreeNode[Step], step: Step) -> None:
    """The parts of a step a person checks: formula, each input, the result, the notes."""
    if step.formula:
        node.add_leaf(_field("formula", step.formula))
    if step.inputs:
        inputs = node.add(Text("inputs", style="italic"), expand=True)
        for name, value in step.inputs.items():
            inputs.add_leaf(_field(name, str(value)))
    if step.result is not None:
        node.add_leaf(_field("result", str(step.result)))
    if step.notes:
        node.add_leaf(_field("notes", ", ".join(step.notes)))


def _field(name: str, value: str) -> Text:
    # Text, never markup: formulas and inputs may hold brackets a person typed
    text = Text(f"{name}: ", style="bold")
    text.append(value)
    return text
