#!/usr/bin/env python3
"""Crossmate as it is hosted: two `crossmate serve --postgres` instances behind Caddy with TLS
(Caddy's own authority, `tls internal`), reached over https:// and wss:// by two browsers and two
terminals (`crossmate play` in tmux), one of each on each instance; then one instance killed with
kill -9 while the other keeps serving everyone through the proxy.

Caddy serves two sites, one preferring each instance (`lb_policy first`, failing over to the
other), so that which instance each player reaches is known; README's "Hosting Crossmate" gives
the one-site configuration for real use.

Usage (under scripts/with-postgres.sh, which sets CROSSMATE_TEST_POSTGRES_URL):
    python Tests/deploy/test_deploy.py path/to/crossmate ARTIFACT_DIR
Needs caddy, tmux, chromium and chromium-driver; selenium and cryptography in the venv.
"""
import base64
import hashlib
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "browser"))
import test_web as web  # noqa: E402  (the browser helpers: Player, until, free_port)

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

until = web.until


class Instance:
    """One `crossmate serve --postgres` on a loopback port of its own."""

    def __init__(self, postgres, public_url, log):
        self.log = open(log, "w")
        self.process = subprocess.Popen(
            [web.CROSSMATE, "serve", "--port", "0", "--postgres", postgres, "--public-url", public_url,
             "--trusted-proxy", "127.0.0.1", "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            match = re.search(r"serving at http://127\.0\.0\.1:(\d+)/ \(players reach it at (\S+)/\)", line)
            if match:
                self.port = int(match.group(1))
                assert match.group(2) == public_url, line
                return
            if self.process.poll() is not None:
                raise RuntimeError("crossmate serve exited: " + line)
        raise RuntimeError("crossmate serve did not start in time")

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process.stdout.close()
        self.log.close()


class Caddy:
    """Debian's caddy with TLS from its own authority: site `https://localhost:first` prefers
    instance A, `https://localhost:second` instance B, each falling over to the other."""

    def __init__(self, directory, first, second):
        self.directory = directory
        self.first, self.second = first, second

    def start(self, a, b):
        sites = []
        for port, order in ((self.first, (a, b)), (self.second, (b, a))):
            upstreams = " ".join(f"127.0.0.1:{upstream}" for upstream in order)
            sites.append(f"""https://localhost:{port} {{
\ttls internal
\treverse_proxy {upstreams} {{
\t\tlb_policy first
\t\tlb_try_duration 10s
\t\tfail_duration 30s
\t\t# A request that failed on a dead upstream goes again to the other: its body must still
\t\t# be there (without this, Caddy counted the retry as a failure of the healthy one too).
\t\tbuffer_requests
\t}}
\t# What is buffered is bounded: the largest puzzle file (8 MB) as base64 JSON fits.
\trequest_body {{
\t\tmax_size 16MB
\t}}
}}
""")
        config = os.path.join(self.directory, "Caddyfile")
        with open(config, "w") as handle:
            handle.write(f"""{{
\tadmin off
\tskip_install_trust
\tauto_https disable_redirects
\thttp_port {web.free_port()}
\tstorage file_system {self.directory}/caddy
}}
""" + "".join(sites))
        self.log = open(os.path.join(self.directory, "caddy.log"), "w")
        environment = {**os.environ, "HOME": self.directory, "XDG_DATA_HOME": self.directory, "XDG_CONFIG_HOME": self.directory}
        self.process = subprocess.Popen(["caddy", "run", "--config", config, "--adapter", "caddyfile"],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        self.root = os.path.join(self.directory, "caddy", "pki", "authorities", "local", "root.crt")
        until("Caddy's authority and both sites", lambda: os.path.exists(self.root) and all(self.handshake(p) for p in (self.first, self.second)), 60)

    def handshake(self, port):
        """The site's certificate, verified against Caddy's root (None until it answers)."""
        context = ssl.create_default_context(cafile=self.root)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
                with context.wrap_socket(raw, server_hostname="localhost") as secure:
                    return secure.getpeercert(binary_form=True)
        except (OSError, ssl.SSLError):
            return None

    def spki(self, port):
        """The base64 SHA-256 of the site's public key, for Chromium's
        --ignore-certificate-errors-spki-list (Chromium does not read Caddy's root from a file)."""
        certificate = x509.load_der_x509_certificate(self.handshake(port))
        key = certificate.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return base64.b64encode(hashlib.sha256(key).digest()).decode()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.log.close()


class Tmux:
    """tmux on a socket of its own."""

    def __init__(self, directory):
        self.socket = os.path.join(directory, "tmux.socket")

    def __call__(self, *arguments):
        return subprocess.run(["tmux", "-S", self.socket, *arguments], check=True, capture_output=True, text=True).stdout

    def screen(self, session):
        return self("capture-pane", "-p", "-t", session)

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


class Site:
    """What web.Player needs of a server: its URL."""

    def __init__(self, url):
        self.url = url


class DeploymentTests(unittest.TestCase):
    def setUp(self):
        self.postgres = os.environ.get("CROSSMATE_TEST_POSTGRES_URL")
        if not self.postgres:
            self.fail("CROSSMATE_TEST_POSTGRES_URL is not set: run under scripts/with-postgres.sh")
        self.directory = tempfile.mkdtemp(prefix="crossmate-deploy-")
        self.cleanups = []

    def tearDown(self):
        for cleanup in reversed(self.cleanups):
            try:
                cleanup()
            except Exception as error:  # noqa: BLE001 (tear everything down whatever failed)
                print("cleanup:", error)
        shutil.rmtree(self.directory, ignore_errors=True)

    def native(self, name, site, caddy):
        """A terminal player's profile, signed in through the proxy, trusting Caddy's authority."""
        environment = {**os.environ, "XDG_DATA_HOME": os.path.join(self.directory, name), "CROSSMATE_CA_FILE": caddy.root}
        run = lambda *arguments: subprocess.run([web.CROSSMATE, *arguments], env=environment, check=True, capture_output=True, text=True, timeout=60).stdout
        run("login", "--server", site, "--name", name)
        return environment, run

    def test_two_instances_behind_caddy_over_tls(self):
        first, second = web.free_port(), web.free_port()
        public = f"https://localhost:{first}"
        a = Instance(self.postgres, public, os.path.join(self.directory, "a.log"))
        self.cleanups.append(a.kill)
        b = Instance(self.postgres, public, os.path.join(self.directory, "b.log"))
        self.cleanups.append(b.kill)
        caddy = Caddy(self.directory, first, second)
        caddy.start(a.port, b.port)
        self.cleanups.append(caddy.stop)
        one, two = Site(f"https://localhost:{first}"), Site(f"https://localhost:{second}")
        trust = [f"--ignore-certificate-errors-spki-list={caddy.spki(first)},{caddy.spki(second)}"]

        # Ana, in a browser, reaches instance A through the proxy and starts a game; the link
        # she shares names the public address.
        ana = web.Player(one, "Ana", arguments=trust)
        self.cleanups.append(ana.quit)
        ana.sign_up()
        game = ana.start_bundled()
        self.assertTrue(ana.driver.execute_script("return window.isSecureContext && location.protocol === 'https:'"))
        link = ana.share_link()
        self.assertTrue(link.startswith(public + "/join/"), link)
        token = link.rsplit("/", 1)[1]
        # Ben, on a phone, takes the link through the other site (instance B).
        ben = web.Player(two, "Ben", width=390, height=844, mobile=True, arguments=trust)
        self.cleanups.append(ben.quit)
        ben.sign_up("/join/" + token)
        until("Ben is in the game", lambda: re.search(r"/games/[^/]+$", ben.driver.current_url), 30)
        ben.wait_live()

        # Carl (instance A) and Dan (instance B) play in terminals, over https and wss.
        tmux = Tmux(self.directory)
        self.cleanups.append(tmux.close)
        sessions = {}
        for name, site in (("Carl", one.url), ("Dan", two.url)):
            environment, run = self.native(name, site, caddy)
            run("join", token)
            sessions[name] = name.lower()
            command = (f"XDG_DATA_HOME='{environment['XDG_DATA_HOME']}' CROSSMATE_CA_FILE='{caddy.root}' TERM=xterm-256color "
                       f"'{web.CROSSMATE}' play Green; echo play exited $?; sleep 600")
            tmux("new-session", "-d", "-s", sessions[name], "-x", "100", "-y", "30", command)
        # (Who is "here" is told per instance: each terminal is online and shows the game.)
        for name, session in sessions.items():
            until(f"{name}'s terminal is online", lambda: "online" in tmux.screen(session) and "Green Light" in tmux.screen(session), 45)
            # The puzzle's notes show on a first opening; the key that puts them away does nothing else.
            if "Notes:" in tmux.screen(session):
                tmux("send-keys", "-t", session, "Escape")
                until(f"{name}'s notes put away", lambda: "Notes:" not in tmux.screen(session), 10)

        # Letters cross every way (a terminal's clue list shows each word's fill: "[ALSO]"): browser to browser and to both terminals, terminal to browsers.
        ana.type("ALSO")
        until("Ben sees Ana's letters", lambda: ben.row(0).endswith("ALSO"), 20)
        for name, session in sessions.items():
            try:
                until(f"{name} sees Ana's letters", lambda: "[ALSO]" in tmux.screen(session), 20)
            except AssertionError:
                print(tmux.screen(session))
                raise
        # Dan opened on 1 Across; Tab takes him to 5 Across.
        tmux("send-keys", "-t", sessions["Dan"], "Tab")
        tmux("send-keys", "-t", sessions["Dan"], "-l", "GREEN")
        until("Ana sees Dan's letters", lambda: "GREEN" in ana.row(1), 20)
        until("Carl sees Dan's letters", lambda: "[GREEN]" in tmux.screen(sessions["Carl"]), 20)
        ana.screenshot("deploy-ana-https")
        ben.screenshot("deploy-ben-https-phone")

        # Instance A dies (kill -9): Caddy sends everyone to B, the browsers and terminals that
        # were on A reconnect there, and nothing typed is lost.
        a.kill()
        try:
            until("Ana's page is live again (through B)", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") == "live", 45)
        except AssertionError:
            print("DEBUG", ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync"), ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text)
            shutil.copy(os.path.join(self.directory, "caddy.log"), "/tmp/deployout/caddy.log")
            shutil.copy(os.path.join(self.directory, "b.log"), "/tmp/deployout/b.log")
            raise
        ana.click_square(2, 0, "across")
        ana.type("LEGAL")
        until("Ben sees what Ana typed after the failover", lambda: ben.row(2) == "LEGAL", 30)
        until("Carl (was on A) sees it too", lambda: "[LEGAL]" in tmux.screen(sessions["Carl"]), 45)
        for name, session in sessions.items():
            self.assertNotIn("play exited", tmux.screen(session), f"{name}'s terminal gave up")
        self.assertIsNone(b.process.poll(), "instance B stopped")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: test_deploy.py path/to/crossmate ARTIFACT_DIR")
    web.CROSSMATE = os.path.abspath(sys.argv[1])
    web.ARTIFACTS = sys.argv[2]
    for tool in ("caddy", "tmux", "chromium", "chromedriver"):
        if not shutil.which(tool):
            sys.exit(f"test_deploy: {tool} is missing (scripts/test-all.sh installs it)")
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
