"""``scripts/system-deps.sh`` waits for the package manager's lock instead of failing, and shows progress.

The script runs against stand-ins on ``PATH`` (``dpkg-query`` says the packages are missing, ``id``
says root, ``apt-get`` says another process holds the lock a few times before it succeeds), so no
package is installed and nothing is downloaded.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "system-deps.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _stand_ins(tmp_path: Path, busy: int) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "busy").write_text(str(busy))
    scripts = {
        "dpkg-query": "#!/bin/sh\nexit 1\n",  # nothing installed
        "id": "#!/bin/sh\necho 0\n",  # root: no sudo
        "sleep": "#!/bin/sh\nexit 0\n",  # the wait between two tries, without waiting
        "apt-get": f"""#!/bin/bash
echo "apt-get $*" >> {tmp_path}/calls
left=$(cat {tmp_path}/busy)
if [ "$left" -gt 0 ]; then
  echo $((left - 1)) > {tmp_path}/busy
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
  exit 100
fi
echo "Get:1 http://deb.debian.org/debian bookworm/main amd64 fonts-noto-cjk all 1:20220127 [61.2 MB]"
exit 0
""",
    }
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(0o755)
    return bin_dir


def _run(tmp_path: Path, busy: int, wait: int = 900) -> subprocess.CompletedProcess[str]:
    bin_dir = _stand_ins(tmp_path, busy)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "SHOEBOX_APT_WAIT": str(wait),
           "SHOEBOX_APT_RETRY": "0"}
    return subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def test_waits_for_another_installation_then_installs(tmp_path: Path) -> None:
    done = _run(tmp_path, busy=2)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert all("-o DPkg::Lock::Timeout=900" in c for c in calls)  # apt itself waits for dpkg's lock
    assert " install " in calls[-1]
    assert sum(" update " in f"{c} " for c in calls) == 3  # two refusals, then the lists were updated
    assert done.stderr.count("another installation is running; waiting for it to finish") == 2
    assert "installing" in done.stderr and "[61.2 MB]" in done.stderr  # apt's own progress is shown
    assert not any(" -q " in f"{c} " for c in calls if " install " in f"{c} ")


def test_gives_up_when_the_lock_is_held_too_long(tmp_path: Path) -> None:
    done = _run(tmp_path, busy=10_000, wait=0)
    assert done.returncode == 100
    assert "Could not get lock" in done.stderr


def test_a_redirected_log_keeps_every_apt_call(tmp_path: Path) -> None:
    """``2>install.log``: each apt call's output is appended to the log, not written over the last."""
    bin_dir = _stand_ins(tmp_path, busy=1)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "SHOEBOX_APT_WAIT": "900",
           "SHOEBOX_APT_RETRY": "0"}
    log = tmp_path / "install.log"
    with log.open("w") as err:
        done = subprocess.run(["bash", str(SCRIPT)], env=env, stdout=subprocess.DEVNULL, stderr=err, text=True, timeout=60)
    assert done.returncode == 0
    text = log.read_text()
    assert "\0" not in text
    assert "installing" in text and "Could not get lock" in text and "[61.2 MB]" in text
