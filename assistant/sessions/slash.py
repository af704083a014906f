"""Slash commands: direct tool calls (`/memory model=llama-3-8b workload=lora`) and the
session commands `/help`, `/report [path]`, `/sources`, `/reset`, `/session NAME`."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clusterplan import locations
from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.report.document import SourceList
from clusterplan.assistant.report.sections import sections
from clusterplan.assistant.report.tables import escape, fmt
from clusterplan.tools.contract import Step, ToolError, ToolResult, q
from clusterplan.tools.registry import get, invoke, tools

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.session import Assistant

SESSION_COMMANDS = {
    "help": "this list",
    "report": "write the session's planning report to PATH (default: a file here)",
    "sources": "the notes cited so far in this session, numbered",
    "reset": "forget the follow-up context; the next question starts afresh",
    "session": "switch to the session NAME (made if new); without NAME, list sessions",
}
# The question a tool answers, so that a follow-up ("and on H200?") continues a direct call.
INTENT_OF_TOOL = {"parallelism": "layout", "notes": "concept"}
# The figures a direct tool call leads with, when its result has them.
HEADLINE = ("per_gpu_gb", "fits", "headroom_gb", "time_s", "value", "unit", "ratio",
            "monthly_usd", "break_even_utilization", "egress_usd", "run_usd",
            "training_days", "gpu_hours")


MAX_ARGUMENT_CHARS = 4000  # key=value arguments are short; shlex on 1 MB took 19 s


# Session commands typed without their slash, alone on the line: "report", "help".
BARE = ("help", "report", "sources", "reset")


def with_slash(text: str) -> str:
    """'report' typed alone is /report; anything else is left as typed."""
    word = text.strip().lower().rstrip("?.!")
    return f"/{word}" if word in BARE else text


def is_session_command(text: str) -> bool:
    """True for /help, /report and the like, which are not planning questions."""
    stripped = text.strip()
    words = stripped[1:].split(maxsplit=1)
    return stripped.startswith("/") and bool(words) and words[0].lower() in SESSION_COMMANDS


def run_command(assistant: Assistant, text: str) -> Answer:
    """Answer one slash command; every problem is a one-line answer naming the valid choices."""
    word, rest = (text.strip()[1:].split(maxsplit=1) + ["", ""])[:2]
    name = word.lower()
    if name in SESSION_COMMANDS:
        return _SESSION_HANDLERS[name](assistant, text, rest.strip())

    if name in tools():
        return call_tool(text, name, rest)
    valid = [*SESSION_COMMANDS, *tools()]
    near = difflib.get_close_matches(name, valid, n=1)
    hint = f"did you mean /{near[0]}? " if near else ""
    return failure(text, f"unknown command /{word}; {hint}commands: "
                   + ", ".join(f"/{v}" for v in valid))


def call_tool(text: str, name: str, args: str) -> Answer:
    """Run tool `name` on `key=value` arguments and turn its result into an Answer."""

    keys = list(get(name).input_model.model_fields)
    try:
        payload = parse_arguments(args)
    except ValueError as exc:
        return failure(text, f"/{name}: {exc}; valid keys: {', '.join(keys)}")
    unknown = [k for k in payload if k not in keys]
    if unknown:
        return failure(text, f"/{name}: unknown key {unknown[0]!r}; valid keys: {', '.join(keys)}")
    try:
        result = invoke(name, payload)
    except ToolError as exc:
        return failure(text, f"/{name}: {exc}")
    return tool_answer(text, name, payload, result)


def parse_arguments(args: str) -> dict[str, Any]:
    """`key=value` pairs; each value read as JSON when it is JSON, else kept as text.

    Words without `=` continue the value before them, so `model=llama 3 70b` needs no quotes.
    """
    if len(args) > MAX_ARGUMENT_CHARS:
        raise ValueError(f"the arguments are {len(args):,} characters; at most "
                         f"{MAX_ARGUMENT_CHARS:,} are read")
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()  # an unbalanced quote: read the words as they are
    raw: dict[str, str] = {}
    last = ""
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key:
            raw[key], last = value, key
        elif last:
            raw[last] = f"{raw[last]} {word}".strip()
        else:
            raise ValueError(f"expected key=value, got {word[:40]!r}")
    return {key: _value(value) for key, value in raw.items()}


def tool_answer(text: str, name: str, payload: dict[str, Any], result: ToolResult) -> Answer:
    """A direct tool call as an Answer: its figures, its steps as trace, its citations."""
    data = result.model_dump(mode="json")
    call = Step(label=f"call tool {name}", formula="direct call (slash command)",
                inputs={k: q(v if isinstance(v, str | int | float | bool) or v is None
                             else json.dumps(v)) for k, v in payload.items()})
    return Answer(
        question=text, intent=Intent(kind=INTENT_OF_TOOL.get(name, name), slots=payload),
        markdown="\n\n".join([_headline(name, payload, data), *_tables(name, data)]),
        data={name: data}, trace=[call, *result.steps], citations=list(result.citations),
        assumptions=list(result.assumptions), warnings=list(result.warnings))


def _tables(name: str, data: dict[str, Any]) -> list[str]:
    """The result as the report shows it: tables with their units, charts."""

    return sections({name: data}, gpu_name)


def failure(text: str, message: str) -> Answer:
    """A one-line answer saying what was wrong."""
    return Answer(question=text, markdown=escape(message), error=message)


def _headline(name: str, payload: dict[str, Any], data: dict[str, Any]) -> str:
    given = ", ".join(f"{k} = {fmt(v)}" for k, v in payload.items())
    figures = ", ".join(_figure(k, data[k]) for k in HEADLINE if data.get(k) is not None)
    line = f"**{name}**" + (f" ({escape(given)})" if given else "")
    return line + (f": {escape(figures)}." if figures else ": the result is below.")


def _figure(key: str, value: Any) -> str:
    """`per_gpu_gb` 37.2 as "per GPU 37.2 GB": the unit moves from the name to the number."""
    for suffix, unit in _UNITS.items():
        if key.endswith(suffix):
            return f"{_words(key.removesuffix(suffix))} {fmt(value)} {unit}"
    return f"{_words(key)} {fmt(value)}"


def _words(key: str) -> str:
    return key.replace("_", " ").replace("gpu", "GPU")


_UNITS = {"_gb_s": "GB/s", "_gbps": "Gb/s", "_gb": "GB", "_usd": "USD", "_s": "s"}


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _help(assistant: Assistant, text: str, rest: str) -> Answer:
    lines = [f"- `/{name}` — {about}" for name, about in SESSION_COMMANDS.items()]
    for tool in tools().values():
        keys = " ".join(f"{k}=" for k in tool.input_model.model_fields)
        lines.append(f"- `/{tool.name} {keys}` — {escape(tool.description)}")
    markdown = "Ask in plain words, or use a command:\n\n" + "\n".join(lines)
    return Answer(question=text, markdown=markdown, data={"command": "help"})


def _report(assistant: Assistant, text: str, rest: str) -> Answer:
    if not assistant.writes_files:
        return failure(text, "/report writes a file, which a question read from a file may "
                       "not do; use `clusterplan batch FILE --out PATH` or `clusterplan report`")
    default = f"clusterplan-report-{dt.date.today().isoformat()}.md"
    path = Path(rest).expanduser() if rest else locations.reports_dir() / default
    try:
        path.write_text(assistant.report(), encoding="utf-8")
    except OSError as exc:
        return failure(text, f"cannot write the report to {path}: {exc.strerror or exc}")
    return Answer(question=text, markdown=f"Wrote the report to {escape(path)}.",
                  data={"command": "report", "path": str(path)})


def _sources(assistant: Assistant, text: str, rest: str) -> Answer:
    answers = [a for a in assistant.history() if not is_session_command(a.question)]
    sources = SourceList(answers)
    cited = [ref for a in answers for ref in a.citations]
    unique = list({ref.key: ref for ref in cited}.values())
    return Answer(question=text, markdown="Sources cited in this session:\n\n" + sources.render(),
                  citations=unique, data={"command": "sources"})


def _reset(assistant: Assistant, text: str, rest: str) -> Answer:
    assistant.reset()
    return Answer(question=text, markdown="Cleared the follow-up context; the next question "
                  "starts afresh.", data={"command": "reset"})


def _session(assistant: Assistant, text: str, rest: str) -> Answer:
    if not rest:
        listed = [f"- {escape(s.name or s.id)} — {_questions(s.questions)}, last used "
                  f"{s.updated_at[:16]}" for s in assistant.sessions()]
        body = "\n".join(listed) or "No saved sessions yet."
        return Answer(question=text, markdown="Sessions:\n\n" + body, data={"command": "session"})
    info = assistant.open_session(rest)
    return Answer(question=text, markdown=f"Now in session {escape(rest)} "
                  f"({_questions(info.questions)} so far).",
                  data={"command": "session", "session": info.id})


def _questions(n: int) -> str:
    return f"{n} question" + ("" if n == 1 else "s")


_SESSION_HANDLERS = {"help": _help, "report": _report, "sources": _sources, "reset": _reset,
                     "session": _session}
