#!/usr/bin/python3
"""The release archive as a self-hoster installs it (deploy/INSTALL.md), run as shipped:

- it unpacks into a clean directory with the binary, the units, the Caddyfile and INSTALL.md;
- the binary is stripped, under a size, links no Swift library and no path of the build machine;
- with the Swift toolchain and the checkout hidden (a mount namespace over their folders), the
  binary installed at /usr/local/bin/crossmate runs under crossmate.service's own confinement
  (`unit_sandbox.py`: its system-call filter, dynamic user, read-only system, hidden homes and
  /tmp...) and two players play a game through it: the web app comes from inside the binary,
  accounts are made by invitation (the unit ships CROSSMATE_SIGNUPS=invite), letters cross;
- the unit as it was before (no SystemCallErrorNumber=) is killed at start under the same
  sandbox: the check would catch that defect;
- the shipped Caddyfile (its name and port changed, Caddy's own authority) serves the app over
  HTTPS and answers /metrics with 404;
- crossmate-backup.service, confined as shipped (no network at all), copies the running
  server's database; SIGTERM stops the server within 5 s.

Usage (as root; Debian's python3-seccomp): /usr/bin/python3 Tests/deploy/test_release.py ARCHIVE WORKDIR [--largest-mb N]
Prints one line per check and "N passed, M failed".
"""
import argparse
import os
import re
import shutil
import signal
import ssl
import sqlite3
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from oracle import Api, Checks, free_port  # noqa: E402

SANDBOX = os.path.join(HERE, "unit_sandbox.py")


def toolchain():
    """The Swift toolchain's root folder (…/usr/bin/swift's grandparent's parent)."""
    swift = shutil.which("swift")
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(swift)))) if swift else None


def confined(unit, state, binary, hide, settings, **popen):
    command = [sys.executable, SANDBOX, unit, "--state", state, "--install", f"/usr/local/bin/crossmate={binary}"]
    for path in hide:
        command += ["--hide", path]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    return subprocess.Popen(command, **popen)


def serving(process, within=60):
    """The URL the server prints, or None when it exits (or says nothing in time)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        match = re.search(r"serving at (http://\S+)/", line or "")
        if match:
            return match.group(1)
        if not line and process.poll() is not None:
            return None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("archive")
    parser.add_argument("work")
    parser.add_argument("--largest-mb", type=int, default=110)
    options = parser.parse_args()
    check = Checks()
    work = os.path.abspath(options.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # Unpacked into a clean directory.
    with tarfile.open(options.archive) as archive:
        archive.extractall(work)  # our own archive; Debian 12's Python has no extraction filters
    (folder,) = os.listdir(work)
    unpacked = os.path.join(work, folder)
    expected = {"crossmate", "crossmate.service", "crossmate@.service", "crossmate-backup.service", "crossmate-backup.timer",
                "Caddyfile", "INSTALL.md"}
    check("the archive holds the binary, the units, the Caddyfile and INSTALL.md", set(os.listdir(unpacked)) == expected,
          str(sorted(os.listdir(unpacked))))
    binary = os.path.join(unpacked, "crossmate")
    size = os.path.getsize(binary)
    print(f"     the binary is {size / 1e6:.1f} MB, the archive {os.path.getsize(options.archive) / 1e6:.1f} MB")
    check(f"the binary is at most {options.largest_mb} MB", size <= options.largest_mb * 1_000_000, str(size))
    sections = subprocess.run(["readelf", "-S", binary], capture_output=True, text=True).stdout
    check("the binary is stripped", ".symtab" not in sections and ".debug_info" not in sections)
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout
    needed = set(re.findall(r"Shared library: \[([^\]]+)\]", dynamic))
    allowed = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1", "libsqlite3.so.0", "libxml2.so.2",
               "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
    check("it links only the C and C++ libraries, zlib, SQLite and libxml2 (no Swift library)", needed <= allowed,
          str(sorted(needed - allowed)))
    paths = re.findall(r"(?:RUNPATH|RPATH).*\[(.*)\]", dynamic)
    check("no library path into the build machine", all(path in ("$ORIGIN", "") for path in paths), str(paths))

    swift_root = toolchain()
    hide = [path for path in (swift_root, ROOT) if path]
    check("the toolchain is found, to hide it", swift_root is not None and os.path.isdir(swift_root), str(swift_root))
    unit = os.path.join(unpacked, "crossmate.service")
    state = os.path.join(work, "state")
    os.makedirs(state)

    # The unit as it was: no SystemCallErrorNumber=, so the first forbidden call kills.
    old_unit = os.path.join(work, "crossmate-old.service")
    with open(unit) as shipped, open(old_unit, "w") as old:
        old.write("".join(line for line in shipped if not line.startswith("SystemCallErrorNumber=")))
    old_state = os.path.join(work, "old-state")
    os.makedirs(old_state)
    process = confined(old_unit, old_state, binary, hide, {"CROSSMATE_PORT": "0"}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = serving(process, within=30)
    if url:
        process.send_signal(signal.SIGTERM)
    status = process.wait(timeout=30)
    check("the sandbox bites: the unit without SystemCallErrorNumber= is killed at start (SIGSYS)",
          url is None and status in (-signal.SIGSYS, 128 + signal.SIGSYS), f"url={url} status={status}")

    # The shipped unit, the shipped binary, nothing of the build machine.
    log = open(os.path.join(work, "server.log"), "w")
    server = confined(unit, state, binary, hide, {"CROSSMATE_PORT": "0"}, stdout=subprocess.PIPE, stderr=log, text=True)
    url = serving(server)
    check("crossmate.service starts the installed binary under its confinement, toolchain and checkout hidden", url is not None)
    if url is None:
        log.flush()
        print(open(log.name).read()[-3000:])
        check.finish()
    api = Api(url)
    try:
        with urllib.request.urlopen(url + "/", timeout=10) as page:
            html = page.read().decode()
        with urllib.request.urlopen(url + "/app/app.js", timeout=10) as script:
            script_status = script.status
        check("the web app comes from inside the binary", "<html" in html and script_status == 200)
    except Exception as error:  # noqa: BLE001 (any failure to load the page is the finding)
        check("the web app comes from inside the binary", False, repr(error))
    status, info = api("GET", "/v1")
    check("the server says its version and that sign-ups are by invitation (the first account open)",
          status == 200 and info.get("signups") == "first" and re.fullmatch(r"\d+\.\d+\.\d+", info.get("version", "")), str(info))

    status, ana = api("POST", "/v1/accounts", {"displayName": "Ana"})
    check("the host makes the first account", status == 201, str(ana))
    status, refused = api("POST", "/v1/accounts", {"displayName": "Stranger"})
    check("a stranger without an invitation is refused, in words", status == 403 and "invitation" in refused.get("message", ""),
          str(refused))
    status, game = api("POST", "/v1/games", {"bundled": "green-light"}, ana["token"])
    game_id = game["gameID"]
    status, invitation = api("POST", f"/v1/games/{game_id}/invitations", {}, ana["token"])
    status, ben = api("POST", "/v1/accounts", {"displayName": "Ben", "invitation": invitation["token"]})
    check("a friend with the invitation makes an account", status == 201, str(ben))
    status, _ = api("POST", f"/v1/invitations/{invitation['token']}/accept", {}, ben["token"])
    check("and joins the game", status == 200)
    records = []
    for seq, (col, letter) in enumerate(zip(range(1, 5), "ALSO"), start=1):
        stamp = int(time.time() * 1000)
        records.append({
            "gameID": game_id, "replicaID": ana["deviceID"], "authorID": ana["account"]["authorID"], "seq": seq,
            "timestamp": {"wallMillis": stamp, "counter": seq}, "row": 0, "col": col, "letter": letter, "mark": 0,
            "cellAuthorID": ana["account"]["authorID"], "kind": "input", "batchID": f"{ana['deviceID']}:{seq}"})
    status, answer = api("POST", f"/v1/games/{game_id}/moves", {"moves": records}, ana["token"])
    check("Ana types ALSO", status == 200 and all(result["status"] == "saved" for result in answer["results"]), str(answer))
    status, changes = api("GET", f"/v1/games/{game_id}/changes", token=ben["token"])
    letters = [change["record"]["letter"] for change in changes.get("changes", []) if change.get("record", {}).get("letter")]
    check("Ben reads Ana's letters", status == 200 and "".join(letters) == "ALSO", str(letters))
    with urllib.request.urlopen(url + "/metrics", timeout=10) as metrics:
        exposition = metrics.read().decode()
    check("/metrics names the build and the engine", 'crossmate_build_info{version="' in exposition and 'engine="sqlite"' in exposition)

    # The backup unit, confined as shipped, beside the running server.
    backup = subprocess.run(
        [sys.executable, SANDBOX, os.path.join(unpacked, "crossmate-backup.service"), "--state", state,
         "--install", f"/usr/local/bin/crossmate={binary}"] + sum((["--hide", path] for path in hide), []),
        capture_output=True, text=True, timeout=120)
    copies = sorted(os.listdir(os.path.join(state, "backups"))) if os.path.isdir(os.path.join(state, "backups")) else []
    check("crossmate-backup.service, confined as shipped, copies the running server's database",
          backup.returncode == 0 and len(copies) == 1, f"{backup.returncode} {backup.stderr[-500:]} {copies}")
    if copies:
        copy = sqlite3.connect(os.path.join(state, "backups", copies[0]))
        moves = copy.execute("SELECT COUNT(*) FROM records WHERE record_type = 'move'").fetchone()[0]
        copy.close()
        check("the copy holds Ana's four letters", moves == 4, str(moves))

    # The shipped Caddyfile in front, as shipped but for its name (localhost, with Caddy's own
    # authority) and the server's port: the site serves the app and keeps /metrics to itself.
    caddy_dir = os.path.join(work, "caddy")
    os.makedirs(caddy_dir)
    site = free_port()
    with open(os.path.join(unpacked, "Caddyfile")) as shipped:
        config = shipped.read()
    port = url.rsplit(":", 1)[1]
    config = config.replace("crossmate.example.org {", f"https://localhost:{site} {{\n\ttls internal").replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    config = f"{{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n\thttp_port {free_port()}\n\tstorage file_system {caddy_dir}\n}}\n" + config
    with open(os.path.join(caddy_dir, "Caddyfile"), "w") as handle:
        handle.write(config)
    environment = {**os.environ, "HOME": caddy_dir, "XDG_DATA_HOME": caddy_dir, "XDG_CONFIG_HOME": caddy_dir}
    caddy = subprocess.Popen(["caddy", "run", "--config", os.path.join(caddy_dir, "Caddyfile"), "--adapter", "caddyfile"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    root = os.path.join(caddy_dir, "pki", "authorities", "local", "root.crt")

    def through_caddy(path):
        try:
            context = ssl.create_default_context(cafile=root)
            with urllib.request.urlopen(f"https://localhost:{site}{path}", timeout=5, context=context) as answer:
                return answer.status, answer.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, ""
        except (OSError, ssl.SSLError):
            return None, ""

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (os.path.exists(root) and through_caddy("/healthz")[0] == 200):
        time.sleep(0.2)
    status, page = through_caddy("/")
    check("the shipped Caddyfile serves the app over HTTPS", status == 200 and "<html" in page, str(status))
    status, _ = through_caddy("/metrics")
    check("and keeps /metrics off the public site", status == 404, str(status))
    caddy.terminate()
    caddy.wait(timeout=20)

    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    status = server.wait(timeout=30)
    stopped = time.monotonic() - started
    check("SIGTERM stops it within 5 s, cleanly", status == 0 and stopped < 5, f"status {status} after {stopped:.1f} s")
    check("its data stayed in the state directory, owned by the service's own user", os.stat(os.path.join(state, "crossmate.sqlite")).st_uid != 0)
    check.finish()


if __name__ == "__main__":
    main()
