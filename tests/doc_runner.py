"""Runs the steps of one document (see docblocks.py) and writes what each
printed: ``python doc_runner.py STEPS.json RESULTS.json``, in the document's
directory."""
import contextlib
import io
import json
import os
import subprocess
import sys
import traceback


def run_python(name, code, namespace):
    path = os.path.abspath(name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(code)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, path, "exec"), namespace)
        except Exception as exc:  # shown as the last line of a traceback shows it
            print(f"{type(exc).__name__}: {exc}")
        except SystemExit as exc:
            print(f"SystemExit: {exc}")
    return out.getvalue()


def run_console(code):
    """Each ``$ command`` in bash; ``$?`` is the status of the one before."""
    output, status = [], 0
    for line in code.splitlines():
        if line.startswith("$ "):
            done = subprocess.run(["bash", "-c", f"(exit {status}); {line[2:]}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=300)
            status = done.returncode
            output.append(line + "\n" + done.stdout)
    return "".join(output)


def run_sh(code):
    done = subprocess.run(["bash", "-e", "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    return done.stdout if done.returncode else ""


def main(steps_path, results_path):
    sys.path.insert(0, os.getcwd())
    with open(steps_path, encoding="utf-8") as handle:
        steps = json.load(handle)
    namespace = {"__name__": "__main__"}
    results = []
    for kind, name, code in steps:
        try:
            if kind == "python":
                results.append(run_python(name, code, namespace))
            elif kind == "console":
                results.append(run_console(code))
            else:
                results.append(run_sh(code))
        except BaseException:  # the runner itself: report, go on
            results.append("RUNNER FAILED\n" + traceback.format_exc())
        with open(results_path, "w", encoding="utf-8") as handle:
            json.dump(results, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
