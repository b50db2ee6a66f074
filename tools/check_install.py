"""What users install, checked as they get it: build the wheel, install it (not editable) into a fresh
virtual environment, and run the commands a new user runs from a folder outside the clone.

    python3 tools/check_install.py            # build, check contents, install, run (what .ci/run does)
    python3 tools/check_install.py --contents # build and check the wheel's contents only

The checks: the wheel holds every file of `kbdsl/` (modules, grammar, web pages), of `rules/` and of
`schemas/`; in the fresh environment `kbdsl --version` answers, the README's first command runs exactly
as written (it installs from the clone), `kbdsl test NAME` passes for every shipped rule set, and
`kbdsl serve --http` answers its first page. Any failure exits non-zero with what failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where each source folder lands inside the installed package (pyproject.toml's package-dir).
SHIPPED = {"kbdsl": "kbdsl", "rules": "kbdsl/rules", "schemas": "kbdsl/schemas"}
SKIP = {"__pycache__", ".pytest_cache", ".hypothesis"}


class Failed(Exception):
    """One check of the installed package failed; the message says which and why."""


def expected_files(root: Path = ROOT) -> set[str]:
    """Every file the wheel must hold, as its path inside the wheel."""
    out = set()
    for folder, inside in SHIPPED.items():
        for path in (root / folder).rglob("*"):
            if path.is_file() and not SKIP & set(path.parts) and path.suffix != ".pyc":
                out.add(f"{inside}/{path.relative_to(root / folder).as_posix()}")
    return out


def build_wheel(out: Path, root: Path = ROOT) -> Path:
    """Build the wheel from a clean copy of the tree (a stale build/ folder must not fill gaps)."""
    src = out / "src"
    shutil.copytree(root, src, ignore=shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", *SKIP))
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)], cwd=out)
    wheels = sorted(out.glob("kbdsl-*.whl"))
    if len(wheels) != 1:
        raise Failed(f"building the wheel made {len(wheels)} wheel files in {out}")
    return wheels[0]


def missing_from(wheel: Path, root: Path = ROOT) -> list[str]:
    """Files of the package that the wheel lacks."""
    with zipfile.ZipFile(wheel) as z:
        held = set(z.namelist())
    return sorted(expected_files(root) - held)


def run(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """Run a command; its output, or Failed naming the command and the end of what it printed."""
    shown = " ".join(cmd)
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failed(f"`{shown}` did not finish in {timeout:.0f} s") from None
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise Failed(f"`{shown}` (in {cwd}) exited {done.returncode}:\n  " + "\n  ".join(tail))
    return done.stdout


def readme_first_command() -> str:
    """The README quickstart's first line: what a new user types."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quickstart\n\n```sh\n(.*?)```", text, re.S)
    if block is None:
        raise Failed("README.md has no Quickstart block")
    return block.group(1).strip().splitlines()[0]


def fresh_env(where: Path) -> tuple[Path, dict[str, str]]:
    """A new virtual environment: its bin folder, and an environment that puts it first on PATH."""
    venv.create(where, with_pip=True)
    bin_dir = where / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(where)
    return bin_dir, env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_page(kbdsl: Path, cwd: Path, env: dict[str, str]) -> str:
    """Start `kbdsl serve --http`, fetch `/` and stop it; the page's text."""
    port = free_port()
    server = subprocess.Popen(
        [str(kbdsl), "serve", "--http", "--port", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    return answer.read().decode("utf-8")
            except OSError:
                if server.poll() is not None:
                    raise Failed(f"kbdsl serve --http exited {server.returncode}: {server.stderr.read()}") from None
                if time.monotonic() > deadline:
                    raise Failed("kbdsl serve --http did not answer / within 60 s") from None
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def check_installed(wheel: Path, work: Path) -> list[str]:
    """Install the wheel in a fresh environment and run what users run from outside the clone."""
    outside = work / "elsewhere"
    outside.mkdir()
    bin_dir, env = fresh_env(work / "venv")
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", f"{wheel}[web]"], cwd=outside, env=env)
    kbdsl = bin_dir / "kbdsl"
    done = []
    version = run([str(kbdsl), "--version"], cwd=outside, env=env).strip()
    if not version.startswith("kbdsl "):
        raise Failed(f"kbdsl --version printed {version!r}")
    done.append(f"kbdsl --version: {version}")
    names = run([str(bin_dir / "python"), "-c", SHIPPED_NAMES], cwd=outside, env=env).split()
    if not names:
        raise Failed("the installed package lists no shipped rule set")
    for name in names:
        out = run([str(kbdsl), "test", name], cwd=outside, env=env)
        done.append(f"kbdsl test {name}: {out.strip().splitlines()[-1]}")
    page = first_page(kbdsl, outside, env)
    if "<html" not in page.lower():
        raise Failed("kbdsl serve --http answered / with something that is not a page")
    done.append(f"kbdsl serve --http: / answered ({len(page)} characters)")
    # The README's first command exactly, in another fresh environment: it installs from the clone.
    bin2, env2 = fresh_env(work / "venv-readme")
    first = readme_first_command()
    out = run(["bash", "-c", first], cwd=ROOT, env=env2, timeout=900)
    if "gold" not in out.lower():
        raise Failed(f"`{first}` did not reach the final score table")
    done.append(f"README's first command: ran to the final score ({len(out.splitlines())} lines)")
    out = run([str(bin2 / "kbdsl"), "play", "--bots", "random,random", "--seed", "2", "--quiet"], cwd=outside, env=env2)
    done.append("kbdsl play from outside the clone: finished")
    return done


SHIPPED_NAMES = "from kbdsl.resources import shipped; print(' '.join(shipped()))"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", action="store_true", help="build and check the wheel's contents only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kbdsl-install-") as tmp:
        work = Path(tmp)
        try:
            wheel = build_wheel(work)
            missing = missing_from(wheel)
            if missing:
                raise Failed(f"the wheel lacks {len(missing)} file(s): {', '.join(missing[:20])}")
            print(f"wheel {wheel.name}: holds all {len(expected_files())} files of kbdsl/, rules/ and schemas/")
            if not args.contents:
                for line in check_installed(wheel, work):
                    print(line)
        except Failed as e:
            print(f"check_install: FAILED: {e}", file=sys.stderr)
            return 1
    print("check_install: the installed package works")
    return 0


if __name__ == "__main__":
    sys.exit(main())
