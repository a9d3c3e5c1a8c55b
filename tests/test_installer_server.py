"""Static checks of the office GPU server recipe (installer/server/): nothing here runs vLLM or systemd.

- the shell scripts parse; vLLM is pinned to one exact version in its own venv;
- the serve command carries HunyuanOCR's recipe flags (no prefix caching, no multimodal processor
  cache, one image per prompt) and keeps the API key off the command line;
- the systemd unit is a template (one instance per GPU) that runs serve.sh with the instance number.
"""
from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent.parent / "installer" / "server"


@pytest.mark.parametrize("name", ["install.sh", "serve.sh", "healthcheck.sh"])
def test_scripts_parse(name):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    subprocess.run([bash, "-n", str(SERVER / name)], check=True)


def test_vllm_is_pinned_in_its_own_environment():
    text = (SERVER / "install.sh").read_text()
    assert re.search(r"^VLLM_VERSION=\d+\.\d+\.\d+$", text, re.M)
    assert '"vllm==$VLLM_VERSION"' in text
    assert '"$PREFIX/venv/bin/python" -m pip install' in text
    assert not re.search(r"pip install[^\n]*\bvllm\b(?!==)", text.replace('"vllm==$VLLM_VERSION"', ""))


def test_serve_command_has_the_recipe_flags():
    text = (SERVER / "serve.sh").read_text()
    for flag in ("--no-enable-prefix-caching", "--mm-processor-cache-gb 0", "--limit-mm-per-prompt '{\"image\": 1}'",
                 "--served-model-name", "--max-model-len"):
        assert flag in text, flag
    assert "--api-key" not in text.split("exec", 1)[1]  # the key comes from $VLLM_API_KEY
    assert "HF_HUB_OFFLINE=1" in text


def test_systemd_unit_is_one_instance_per_gpu():
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str
    unit.read(SERVER / "shoebox-ocr@.service")
    assert unit["Service"]["ExecStart"] == "/opt/shoebox-ocr-server/serve.sh %i"
    assert unit["Service"]["EnvironmentFile"] == "/etc/shoebox-ocr.env"
    assert unit["Service"]["Restart"] == "on-failure"
    assert "%i" in unit["Unit"]["Description"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "GPU=${1" in (SERVER / "serve.sh").read_text() and "CUDA_VISIBLE_DEVICES=$GPU" in (SERVER / "serve.sh").read_text()


def test_readme_tells_the_desktops_what_to_set():
    text = (SERVER / "README.md").read_text()
    for word in ("SHOEBOX_SERVER_URL", "SHOEBOX_SERVER_API_KEY", "shoebox server-check", "healthcheck.sh"):
        assert word in text
