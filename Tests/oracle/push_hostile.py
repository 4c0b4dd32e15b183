"""Web Push against push services that misbehave and endpoints that point where they must not.

A real `crossmate serve` (CROSSMATE_PUSH_ALLOW_LOOPBACK=1: plain http to loopback stands in for
a push service; https endpoints are checked as in production) calls players back. Ana writes in
a game; Ben, a bystander, has a push service that answers at once; Mal's devices name endpoints
that misbehave:
- a tarpit (accepts the connection, never answers),
- a drip (answers 201 and then sends its body a byte a second, forever),
- a closed port (connection refused),
- one URL named by six devices of one account.
Ben's notification must arrive in time through all of it, the drip must be let go within the
push deadline, a failing endpoint is asked again only after a rest, and one URL gets one push
per message. Endpoints whose host is loopback in any spelling (or a name that resolves to it)
are refused. A subscribe or a chat whose body is still arriving when its device is revoked is
refused, and leaves nothing behind.

Usage: python push_hostile.py CROSSMATE_BINARY WORK_DIR
Prints one line per check and a closing "N passed, M failed" line; exits 1 on any failure.
"""
import base64
import json
import os
import queue
import socket
import sys
import threading
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from oracle import Api, Checks, PushEndpoint, free_port, start_server

crossmate, work = sys.argv[1:3]
check = Checks()
DEADLINE = 5  # Limits.pushDeadlineSeconds


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()



class Listener:
    """A TCP service that misbehaves: `tarpit` holds connections without a word; `drip`
    answers 201 with a long body and sends it a byte a second. Counts connections and notes how
    long each was kept open by the server."""

    def __init__(self, kind):
        self.kind = kind
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        self.held = []  # seconds each connection lasted, once the server let go
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
            threading.Thread(target=self.hold, args=(connection,), daemon=True).start()

    def hold(self, connection):
        start = time.monotonic()
        try:
            if self.kind == "drip":
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 201 Created\r\nContent-Length: 1000000\r\n\r\n")
                for _ in range(120):
                    connection.sendall(b"x")
                    time.sleep(1)
            else:
                connection.settimeout(120)
                while connection.recv(65536):
                    pass
        except OSError:
            pass
        with self.lock:
            self.held.append(time.monotonic() - start)
        connection.close()


# A push service that answers at once, noting when each push arrived.
service = PushEndpoint()
good = service.origin
tarpit = Listener("tarpit")
drip = Listener("drip")
closed = socket.socket()
closed.bind(("127.0.0.1", 0))
closed_port = closed.getsockname()[1]
closed.close()  # nothing listens there: connection refused

port = free_port()
# The server runs in a mount namespace of its own whose /etc/hosts maps names to loopback and
# private addresses: the system's resolver answers for them as DNS would for an attacker's names.
hosts = os.path.join(work, "hosts")
with open(hosts, "w") as file:
    file.write("127.0.0.1 push.attacker.example\n169.254.169.254 metadata.attacker.example\n::1 six.attacker.example\n")
    file.write("10.1.2.3 intranet.attacker.example\n127.0.0.1 push.flip.example\n")
    file.write(open("/etc/hosts").read())
serve = [crossmate, "serve", "--port", str(port), "--data", os.path.join(work, "data"), "--log-level", "warning"]
server, url = start_server(
    ["unshare", "--mount", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hosts] + serve, port,
    {**os.environ, "CROSSMATE_PUSH_ALLOW_LOOPBACK": "1", "CROSSMATE_ACCOUNT_RATE_LIMIT_BURST": "100"})
api = Api(url)


def subscription(endpoint):
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"endpoint": endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(os.urandom(16))}}


def subscribe(token, endpoint):
    return api("POST", "/v1/push/subscriptions", subscription(endpoint), token)


message_number = 0


def chat(token, text="hello"):
    global message_number
    message_number += 1
    status, _ = api(
        "POST", f"/v1/games/{game_id}/messages",
        {"messageID": f"m{message_number}", "text": text, "timestamp": {"wallMillis": int(time.time() * 1000), "counter": 0}}, token)
    return status


def link(owner):
    _, code = api("POST", "/v1/devices/link-codes", {}, owner["token"])
    status, device = api("POST", "/v1/devices", {"code": code["code"]})
    return device


def bens_push_after(sent, within=15):
    """How long after `sent` Ben's next push arrived (None: not within `within` s)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            push = service.received.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            return None
        if push.path == "/push/ben":
            return push.arrived - sent
    return None


def raw_request_with_revocation(method, path, token, body, revoke):
    """Sends a request's head and half its body, calls `revoke`, then the rest: the status."""
    data = json.dumps(body).encode()
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data[: len(data) // 2])
    time.sleep(0.3)
    revoke()
    connection.sendall(data[len(data) // 2:])
    answer = b""
    connection.settimeout(10)
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        answer += chunk
    connection.close()
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


try:
    _, ana = api("POST", "/v1/accounts", {"displayName": "Ana"})
    _, ben = api("POST", "/v1/accounts", {"displayName": "Ben"})
    _, mal = api("POST", "/v1/accounts", {"displayName": "Mal"})
    _, cleo = api("POST", "/v1/accounts", {"displayName": "Cleo"})
    # Mal's accomplice: an account links five devices at once, then one a minute (Limits.linkCode).
    _, mel = api("POST", "/v1/accounts", {"displayName": "Mel"})
    _, game = api("POST", "/v1/games", {"bundled": "green-light"}, ana["token"])
    game_id = game["game"]["gameID"] if "game" in game else game["gameID"]
    _, invitation = api("POST", f"/v1/games/{game_id}/invitations", {}, ana["token"])
    for player in (ben, mal, cleo, mel):
        api("POST", f"/v1/invitations/{invitation['token']}/accept", {}, player["token"])
    status, _ = subscribe(ben["token"], good + "/push/ben")
    check("Ben subscribes", status in (200, 201), str(status))
    mals = [mal] + [link(mal) for _ in range(5)]
    check("a sixth link code at once is refused", api("POST", "/v1/devices/link-codes", {}, mal["token"])[0] == 429)
    mals += [mel, link(mel)]
    check("Mal and Mel have eight devices", all(device and "token" in device for device in mals), str(mals[-1]))

    # Endpoints on loopback, spelled every way, and names that resolve to it: refused at once.
    spellings = [
        "0177.0.0.1", "0x7f.1", "127.1", "0.0", "2130706433", "0x7f000001", "017700000001", "[0::1]", "[0::]",
        "[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "localhost.", "127.0.0.1.",
        "100.64.0.1", "169.254.169.254", "[fe80::1]", "[::]",
    ]
    spellings += ["push.attacker.example", "metadata.attacker.example", "six.attacker.example", "intranet.attacker.example"]
    let_through = []
    for spelling in spellings:
        status, answer = subscribe(mal["token"], f"https://{spelling}:{service.port}/push/ssrf")
        if status != 400:
            let_through.append((spelling, status))
    check(f"endpoints on loopback or private addresses, in {len(spellings)} spellings, are refused", not let_through, str(let_through))
    status, answer = subscribe(mal["token"], "https://push.attacker.example/push")
    check("the refusal says which address the name resolved to", "127.0.0.1" in (answer or {}).get("message", ""), str(answer))
    status, answer = subscribe(mal["token"], "https://no-such-host.invalid/push")
    check("a host that does not resolve is refused in words", status == 400 and "resolve" in (answer or {}).get("message", ""), str(answer))

    # A tarpit on four of Mal's devices: Ben's notifications still come at once, and the tarpit
    # is asked again only after a rest.
    for device in mals[:4]:
        subscribe(device["token"], f"http://127.0.0.1:{tarpit.port}/push/{device['deviceID']}")
    for device in mals[4:]:
        subscribe(device["token"], f"http://127.0.0.1:{closed_port}/push/{device['deviceID']}")
    delays = []
    for round in range(3):
        sent = time.monotonic()
        check(f"Ana writes (tarpit round {round + 1})", chat(ana["token"]) in (200, 201))
        delays.append(bens_push_after(sent))
    check("Ben's notifications arrive within 1 s beside a tarpit and refused connections",
          all(delay is not None and delay < 1.0 for delay in delays), str(delays))
    time.sleep(DEADLINE + 1)
    check("the tarpit is asked at most once per endpoint (then it rests)", tarpit.accepted <= 4, str(tarpit.accepted))
    check("the server let go of the tarpit within the deadline", tarpit.held and max(tarpit.held) < DEADLINE + 2, str(tarpit.held))

    # A drip: a 2xx head and a body that never ends. The server does not wait for the body.
    for device in mals[:4]:
        subscribe(device["token"], f"http://127.0.0.1:{drip.port}/push/{device['deviceID']}")
    delays = []
    for round in range(3):
        sent = time.monotonic()
        chat(ana["token"])
        delays.append(bens_push_after(sent))
    check("Ben's notifications arrive within 1 s beside a dripping endpoint",
          all(delay is not None and delay < 1.0 for delay in delays), str(delays))
    end = time.monotonic() + DEADLINE + 5
    while time.monotonic() < end and len(drip.held) < drip.accepted:
        time.sleep(0.1)
    check("the dripping connections were closed within the deadline",
          drip.accepted > 0 and len(drip.held) == drip.accepted and max(drip.held) < DEADLINE + 2, f"{drip.accepted} {drip.held}")
    sent = time.monotonic()
    chat(ana["token"])
    delay = bens_push_after(sent)
    check("after the drip, pushes still go out", delay is not None and delay < 1.0, str(delay))

    # One URL named by all six of Mal's devices: one push per message, not six.
    for device in mals[:6]:
        subscribe(device["token"], good + "/push/shared")
    for number in range(10):
        chat(cleo["token"], f"number {number}")
    end = time.monotonic() + 5
    while time.monotonic() < end and service.counts.get("/push/shared", 0) < 10:
        time.sleep(0.05)
    time.sleep(0.5)
    check("an endpoint named by six devices gets one push per message", service.counts.get("/push/shared", 0) == 10,
          str(service.counts.get("/push/shared")))

    # A name that resolved to an allowed address at the subscribe and to a forbidden one at the
    # push: checked again, not sent, and the subscription dropped.
    status, _ = subscribe(cleo["token"], f"http://push.flip.example:{service.port}/push/flip")
    check("Cleo subscribes through a name", status in (200, 201), str(status))
    sent = time.monotonic()
    chat(ana["token"], "through the name")
    bens_push_after(sent)
    end = time.monotonic() + 3
    while time.monotonic() < end and service.counts.get("/push/flip", 0) == 0:
        time.sleep(0.05)
    check("a push goes to the name while it resolves to the stand-in service", service.counts.get("/push/flip", 0) == 1)
    with open(hosts) as file:
        flipped = file.read().replace("127.0.0.1 push.flip.example", "0.0.0.0 push.flip.example")
    with open(hosts, "r+") as file:  # in place: the namespace's /etc/hosts is this file
        file.write(flipped)
        file.truncate()
    sent = time.monotonic()
    chat(ana["token"], "after the flip")
    delay = bens_push_after(sent)
    time.sleep(1)
    check("once the name resolves elsewhere, nothing is sent to it", service.counts.get("/push/flip", 0) == 1 and delay is not None)

    # A subscribe whose body is still arriving when its device is revoked: refused, and the
    # endpoint never hears of the account.
    victim = mals[5]
    revoke = lambda: api("DELETE", f"/v1/devices/{victim['deviceID']}", token=mal["token"])
    status = raw_request_with_revocation("POST", "/v1/push/subscriptions", victim["token"], subscription(good + "/push/revoked"), revoke)
    check("a subscribe finished after its device was revoked is refused", status == 401, str(status))
    victim = mals[4]
    revoke = lambda: api("DELETE", f"/v1/devices/{victim['deviceID']}", token=mal["token"])
    status = raw_request_with_revocation(
        "POST", f"/v1/games/{game_id}/messages", victim["token"],
        {"messageID": "late", "text": "from the grave", "timestamp": {"wallMillis": int(time.time() * 1000), "counter": 0}}, revoke)
    check("a chat finished after its device was revoked is refused", status == 401, str(status))
    _, changes = api("GET", f"/v1/games/{game_id}/changes", token=ana["token"])
    check("the late chat is not in the game", "from the grave" not in json.dumps(changes))
    sent = time.monotonic()
    chat(ana["token"], "after the revocation")
    bens_push_after(sent)
    time.sleep(0.5)
    check("the revoked device's endpoint gets nothing", service.counts.get("/push/revoked", 0) == 0)

finally:
    server.kill()
    server.wait()
    service.close()

check.finish()
