"""The service works with only ``runners/`` and ``webapp/`` present, as in its Docker image.

docker/service.Dockerfile copies runners/ (installed) and webapp/ but not suite/, so nothing
the service needs may be found through the repository layout. Here both trees are copied to
an empty directory and a fresh interpreter, importing the service's validation code the way
the worker does, must validate a result.json against the schema: the example passes and a
schema violation is refused (an interpreter that could not find the schema would accept it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "suite" / "schema" / "examples" / "short-run-np2.result.json"

CHECK = """
import json, sys
from pathlib import Path

import django

django.setup()
import ioscore
from validation import pipeline  # the worker's import path into the library

image = Path(sys.argv[1]).resolve()
assert Path(ioscore.__file__).resolve().is_relative_to(image), ioscore.__file__
assert not (image / "suite").exists()
run = Path(sys.argv[2])
print("good:", pipeline.load_run(run).format)
document = json.loads((run / "result.json").read_text("utf-8"))
document["not_in_schema"] = 1
(run / "result.json").write_text(json.dumps(document), encoding="utf-8")
try:
    pipeline.load_run(run)
except pipeline.ResultFormatError as exc:
    print("refused:", exc.reason)
else:
    print("accepted a schema violation")
"""


def _image_layout(root: Path) -> Path:
    image = root / "app"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "media", "var")
    for tree in ("runners", "webapp"):
        shutil.copytree(REPO_ROOT / tree, image / tree, ignore=ignore)
    return image


def test_service_validates_result_json_without_the_suite_tree(tmp_path: Path) -> None:
    image = _image_layout(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.json").write_bytes(EXAMPLE.read_bytes())
    env = {
        key: value
        for key, value in os.environ.items()
        if key in ("PATH", "HOME", "LANG", "DATABASE_URL", "CELERY_BROKER_URL", "IOSCORE_VAR")
        or key.startswith("IOSCORE_INSTANCE")
    }
    # The copies come first: the venv's editable install points at another checkout.
    env |= {
        "PYTHONPATH": f"{image / 'runners'}{os.pathsep}{image / 'webapp'}",
        "DJANGO_SETTINGS_MODULE": "ioscore_site.settings",
        "IOSCORE_INSECURE_DEV_KEY": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, str(image), str(run)],
        cwd=image / "webapp",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "good: ioscore-json", proc.stdout
    assert lines[1].startswith("refused: schema violation at (top level)"), proc.stdout
    assert "not_in_schema" in lines[1]
    assert json.loads((run / "result.json").read_text("utf-8"))["not_in_schema"] == 1
