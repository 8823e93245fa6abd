"""Every code block of README.md and docs/*.md runs, as a new user would run
it, and shows the output it really has (the convention: docblocks.py and
CONTRIBUTING.md). ``SYMDIFF_UPDATE_DOCS=1 python -m pytest tests/test_docs.py``
rewrites the shown outputs with the real ones: read the diff."""
import json
import os
import re
import subprocess
import sys

import pytest

import symdiff
from docblocks import ROOT, blocks, documents, file_name, normalise

RUNNER = os.path.join(os.path.dirname(__file__), "doc_runner.py")
# Written by the lead alongside this; linked to from README and docs/ already.
PENDING = set()


def _setup(tmp_path):
    work, home, bin_dir = tmp_path / "work", tmp_path / "home", tmp_path / "bin"
    for d in (work, home, bin_dir):
        d.mkdir()
    # `python` and `symdiff` are this interpreter and this checkout's symdiff
    # (scripts, not links: a virtual environment's python finds its packages
    # from where it is called)
    for name, args in (("python", ""), ("symdiff", " -m symdiff")):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec "{sys.executable}"{args} "$@"\n')
        (bin_dir / name).chmod(0o755)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(symdiff.__file__)))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SYMDIFF_", "PYTEST_", "XDG_CACHE")) and k != "COLUMNS"}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=package_parent, PYTHONDONTWRITEBYTECODE="1", COLUMNS="80")
    return work, home, env


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run_and_show_their_real_output(path, tmp_path):
    found = blocks(path)
    steps, checked, n = [], [], 0
    for block in found:
        if block.skipped or block.kind == "output":
            continue
        if block.kind == "python":
            n += 1
            steps.append(("python", file_name(block, n, path.stem.lower()), block.text))
            checked.append((block, block.output))
        elif block.kind in ("console", "sh"):
            steps.append((block.kind, None, block.text))
            checked.append((block, block if block.kind == "console" else None))
        else:
            pytest.fail(f"{block.where()}: a ```{block.info} block: give it a language the "
                        "doc tests run (python, console, sh, text), or mark it "
                        "<!-- not run: why -->")
    if not steps:
        return
    work, home, env = _setup(tmp_path)
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    done = subprocess.run([sys.executable, RUNNER, str(tmp_path / "steps.json"),
                           str(tmp_path / "results.json")], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results) == len(steps), done.stderr
    failures, updates = [], []
    for (block, shown), got in zip(checked, results):
        got = normalise(got, work, home)
        expected = normalise(shown.text, work, home) if shown is not None else ""
        if got != expected:
            if shown is not None and os.environ.get("SYMDIFF_UPDATE_DOCS"):
                updates.append((shown, got))
                continue
            failures.append(f"{block.where()}: shown\n{expected}---- but it gives\n{got}")
    if updates:
        _rewrite(path, updates)
    assert not failures, "\n\n".join(failures)


def _rewrite(path, updates):
    lines = path.read_text(encoding="utf-8").splitlines()
    for shown, got in sorted(updates, key=lambda u: -u[0].line):
        end = shown.line + shown.length
        lines[shown.line:end] = got.splitlines()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_readme_set_up_is_what_ci_runs():
    """The README's set-up commands, exactly, are what .ci/run does."""
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set-up"):]
    commands = [line for line in setup[setup.index("```sh"):].split("```")[1].splitlines()[1:]
                if line.strip()]
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands:
        command = command.split("  #")[0].strip()
        assert command in ci, command


def test_links_between_documents_resolve():
    for path in documents() + [ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            resolved = (path.parent / target).resolve()
            if str(resolved.relative_to(ROOT)) in PENDING:
                continue
            assert resolved.exists(), f"{path.name}: a link to {target}, which is missing"


def test_few_blocks_are_excluded():
    found = [b for path in documents() for b in blocks(path)]
    skipped = [b.where() for b in found if b.skipped]
    assert len(skipped) <= max(3, len(found) // 20), skipped
