import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import tempfile

# Derivatives symdiff derives are cached per user; keep test runs hermetic.
os.environ.setdefault("SYMDIFF_CACHE_DIR", tempfile.mkdtemp(prefix="symdiff-cache-"))
