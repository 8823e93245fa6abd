"""The README shows real output: its example's generated code is what symdiff emits."""
import pathlib
import re

import symdiff

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_example_shows_the_generated_code():
    import importlib.util
    spec = importlib.util.spec_from_file_location("quickstart", ROOT / "examples" / "quickstart.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (ROOT / "README.md").read_text()
    shown = re.findall(r"```python\n(def grad_loss.*?)```", readme, re.S)[0]
    assert symdiff.source(module.loss) == shown
