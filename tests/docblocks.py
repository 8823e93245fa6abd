"""The code blocks of README.md and docs/*.md, as the doc tests read them.

The convention (CONTRIBUTING.md says it for writers):

- A ```python block is run. The blocks of one document run in order, in one
  interpreter and one namespace (like cells of a notebook), in an empty
  directory. Each is first saved as a file, so that symdiff can read the
  functions it defines: ``name.py`` if its first line is the comment
  ``# name.py``, else ``<document>_<n>.py``. A later block can import it.
- A ```console block is a shell session: each ``$ command`` is run (bash, in
  the same directory) and the lines up to the next ``$`` are its output,
  standard output and standard error together.
- A ```sh block is run with bash and must succeed; it shows no output.
- A ```text block, or a block whose info string is ``<language> output``
  (```python output, to keep highlighting), is the output of the nearest
  python block above it: what it prints, then, if it raises,
  ``ErrorClass: message``, as the last line of a traceback shows it.
  A python block followed by no output block must print nothing.
- The comment ``<!-- not run: why -->`` on the line just above a block
  excludes it. Use it rarely.

Outputs are compared line by line, trailing spaces ignored, with the
document's directory removed from paths (``/tmp/.../model.py`` reads
``model.py``), its home directory written ``~``, and the lines of carets
(``^^^^``, ``~~^^``: two or more) under a traceback's source line dropped: Python
versions differ in those.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(.*)$")
NOT_RUN = re.compile(r"^<!-- not run: .+ -->$")
FILE_COMMENT = re.compile(r"^# ([A-Za-z_][\w]*\.py)\s*$")
CARETS = re.compile(r"^\s*(?=[~^]*\^)[~^]{2,}\s*$")  # a SymdiffError's one ^ stays


@dataclass
class Block:
    path: Path
    line: int            # of the opening fence, 1-based
    info: str
    text: str
    skipped: bool = False
    length: int = 0      # lines between the fences
    output: Block | None = field(default=None, repr=False)  # python: its output block

    @property
    def kind(self):
        words = self.info.split()
        if not words:
            return "bare"
        if words[-1] == "output" or words[0] == "text":
            return "output"
        return words[0]

    def where(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def blocks(path):
    """The fenced blocks of ``path``, outputs attached to their python blocks."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, info = i, match.group(1).strip()
        i += 1
        body = []
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{path}:{start + 1}: a code block is not closed")
        skipped = start > 0 and bool(NOT_RUN.match(lines[start - 1].strip()))
        found.append(Block(Path(path), start + 1, info, "\n".join(body) + "\n", skipped,
                           len(body)))
        i += 1
    last_python = None
    for block in found:
        if block.skipped:
            continue
        if block.kind == "python":
            last_python = block
        elif block.kind == "output":
            if last_python is None or last_python.output is not None:
                raise ValueError(f"{block.where()}: an output block with no python block "
                                 "above it to be the output of")
            last_python.output = block
    return found


def file_name(block, n, stem):
    first = block.text.splitlines()[0] if block.text.strip() else ""
    match = FILE_COMMENT.match(first)
    return match.group(1) if match else f"{stem}_{n}.py"


def normalise(text, workdir, home):
    out = []
    for line in text.replace(str(home), "~").replace(str(workdir) + "/", "").splitlines():
        if CARETS.match(line):
            continue
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + ("\n" if out else "")
