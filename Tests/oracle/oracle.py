"""What the oracle scripts share (and the browser tests): checks counted into the closing
"N passed, M failed" line, a real `crossmate serve` on a free loopback port, its JSON API, and a
push endpoint on loopback standing in for a push service."""
import collections
import http.server
import json
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


class Checks:
    """One line per check; `finish` prints the closing line and exits 1 on any failure."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def __call__(self, name, condition, detail=""):
        if condition:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name} {detail}")

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def start_server(command, port, env):
    """Runs `command` (a `crossmate serve` line, perhaps wrapped) and waits for the URL it
    prints; (the process, the URL). Exits with a FAIL line when it does not start in 30 s."""
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        match = re.search(r"serving at (http://\S+)/", line)
        if match:
            return server, match.group(1)
        if not line and server.poll() is not None:
            break
    print("FAIL the server did not start")
    server.kill()
    sys.exit(1)


class Api:
    """The server's JSON API: (status, decoded body) for each call, errors included."""

    def __init__(self, url):
        self.url = url

    def __call__(self, method, path, body=None, token=None):
        request = urllib.request.Request(self.url + path, method=method, data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read().decode() or "null")


Push = collections.namedtuple("Push", "path headers body arrived")


class PushEndpoint:
    """Takes pushes on loopback as a push service would, answering each 201 unless `answers`
    names another status for its path. Each push is kept in `received` (path, headers, body and
    when it arrived, `time.monotonic()`), and counted by path in `counts`."""

    def __init__(self):
        self.received = queue.Queue()
        self.answers = {}
        self.counts = collections.Counter()
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                endpoint.received.put(Push(self.path, dict(self.headers), body, time.monotonic()))
                endpoint.counts[self.path] += 1
                self.send_response(endpoint.answers.get(self.path, 201))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
