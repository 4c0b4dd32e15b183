"""An independent check of Crossmate's Web Push against PyPI's http-ece and py-vapid.

A real `crossmate serve` (with CROSSMATE_PUSH_ALLOW_LOOPBACK=1) calls players back through a
local endpoint standing in for a push service. Each push that arrives must carry a VAPID token
that py-vapid verifies against the key `GET /v1/push/key` gives, for the endpoint's origin, and
a body that http-ece decrypts (aes128gcm) with the subscription's own keys, made here with
`cryptography`. Then the rule: a nudge calls Ben; a chat message calls him while he is away and
not once he is in the game; an endpoint that answers 410 loses its subscription.

Usage: python webpush_oracle.py CROSSMATE_BINARY WORK_DIR
Prints one line per check and a closing "N passed, M failed" line; exits 1 on any failure.
"""
import base64
import json
import os
import queue
import re
import sys
import time

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from py_vapid.utils import b64urldecode as vapid_b64urldecode

from oracle import Api, Checks, PushEndpoint, free_port, start_server

crossmate, work = sys.argv[1:3]
check = Checks()


def b64urldecode(text):
    """Unpadded base64url text (or bytes) to bytes, through py-vapid's own decoder."""
    return vapid_b64urldecode(text.encode() if isinstance(text, str) else text)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


service = PushEndpoint()
service_origin = service.origin

port = free_port()
server, url = start_server(
    [crossmate, "serve", "--port", str(port), "--data", os.path.join(work, "data"), "--log-level", "warning"], port,
    # A game's moves are weighed for call-backs at most once per window: 3 s here, not 30.
    {**os.environ, "CROSSMATE_PUSH_ALLOW_LOOPBACK": "1", "CROSSMATE_TEST_PUSH_MOVES_WINDOW_MS": "3000"})
api = Api(url)


def next_push(within=15):
    try:
        return service.received.get(timeout=within)
    except queue.Empty:
        return None


def subscribe(token, path):
    """A subscription of our own making: its private key stays here, to decrypt with."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    status, answer = api(
        "POST", "/v1/push/subscriptions", {"endpoint": service_origin + path, "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}, token)
    return status, answer, private, auth


def opened(push, private, auth, server_key):
    """The payload of a push, after checking its headers and VAPID token; None if they fail."""
    headers, body = push.headers, push.body
    headers = {name.lower(): value for name, value in headers.items()}
    check("the push is aes128gcm", headers.get("content-encoding") == "aes128gcm", str(headers))
    check("the push has a TTL", headers.get("ttl", "").isdigit(), str(headers))
    authorization = headers.get("authorization", "")
    match = re.fullmatch(r"vapid t=([^,]+), k=(\S+)", authorization)
    check("the push carries a VAPID authorization", match is not None, authorization)
    if match:
        token, key = match.groups()
        check("the VAPID key is the server's published key", key == server_key)
        header, claims, signature = token.split(".")
        # RFC 8292's header has ", " between its parameters; py-vapid's parser splits on the
        # last space, so it is handed the same two parameters joined by "," alone.
        verified = Vapid02.verify(f"vapid t={token},k={key}")
        check("py-vapid verifies the VAPID token's signature", verified)
        decoded = json.loads(b64urldecode(claims))
        check("the token is for the push service's origin", decoded.get("aud") == service_origin, str(decoded))
        check("the token expires within a day", 0 < decoded.get("exp", 0) - time.time() <= 24 * 3600, str(decoded))
        check("the token names a contact", str(decoded.get("sub", "")).startswith(("mailto:", "https:")), str(decoded))
    plaintext = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
    return json.loads(plaintext)


try:
    status, ana = api("POST", "/v1/accounts", {"displayName": "Ana"})
    check("Ana has an account", status in (200, 201), str(ana))
    status, ben = api("POST", "/v1/accounts", {"displayName": "Ben"})
    check("Ben has an account", status in (200, 201), str(ben))
    status, key = api("GET", "/v1/push/key", token=ben["token"])
    server_key = key["publicKey"]
    check("the server publishes a 65-byte P-256 VAPID key", len(b64urldecode(server_key)) == 65 and b64urldecode(server_key)[0] == 4)
    _, again = api("GET", "/v1/push/key", token=ana["token"])
    check("the VAPID key is the same for everyone", again["publicKey"] == server_key)

    status, game = api("POST", "/v1/games", {"bundled": "green-light"}, ana["token"])
    game_id = game["game"]["gameID"] if "game" in game else game["gameID"]
    status, invitation = api("POST", f"/v1/games/{game_id}/invitations", {}, ana["token"])
    status, _ = api("POST", f"/v1/invitations/{invitation['token']}/accept", {}, ben["token"])
    check("Ben joins Ana's game", status in (200, 201))

    status, refusal = api(
        "POST", "/v1/push/subscriptions", {"endpoint": "https://10.0.0.1/push", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}, ben["token"])
    check("an endpoint into a private network is refused in words", status == 400 and "public" in refusal.get("message", ""), str(refusal))
    status, answer, private, auth = subscribe(ben["token"], "/push/ben")
    check("Ben's phone subscribes", status in (200, 201) and answer.get("subscribed") is True, str(answer))

    status, _ = api("POST", f"/v1/games/{game_id}/nudges", {"message": "your turn!"}, ana["token"])
    check("Ana nudges Ben", status in (200, 201))
    push = next_push()
    check("a push reaches Ben's endpoint", push is not None and push[0] == "/push/ben")
    if push:
        message = opened(push, private, auth, server_key)
        check("http-ece decrypts it to the nudge", message.get("type") == "nudge" and message.get("gameID") == game_id, str(message))
        check("it names the sender and the game", "Ana" in message.get("body", "") and message.get("title"), str(message))
        check("it links to the game", message.get("url") == f"/games/{game_id}", str(message))

    now = int(time.time() * 1000)
    status, _ = api(
        "POST", f"/v1/games/{game_id}/messages",
        {"messageID": "m1", "text": "are you coming?", "timestamp": {"wallMillis": now, "counter": 0}}, ana["token"])
    check("Ana writes in the chat", status in (200, 201))
    push = next_push()
    check("chat calls Ben back while he is away", push is not None)
    if push:
        message = opened(push, private, auth, server_key)
        check("http-ece decrypts it to the message", message.get("type") == "chat" and "are you coming?" in message.get("body", ""), str(message))

    # Ben comes in: his device holds the game's lease, so chat no longer calls him; after he
    # leaves it does again. The next push he gets is the message written after he left.
    status, _ = api("POST", f"/v1/games/{game_id}/presence", {"action": "enter"}, ben["token"])
    check("Ben enters the game", status in (200, 201, 204), str(status))
    api("POST", f"/v1/games/{game_id}/messages",
        {"messageID": "m2", "text": "oh, hi", "timestamp": {"wallMillis": now + 1, "counter": 0}}, ana["token"])
    status, _ = api("POST", f"/v1/games/{game_id}/presence", {"action": "leave"}, ben["token"])
    check("Ben leaves the game", status in (200, 201, 204), str(status))
    api("POST", f"/v1/games/{game_id}/messages",
        {"messageID": "m3", "text": "bye", "timestamp": {"wallMillis": now + 2, "counter": 0}}, ana["token"])
    push = next_push()
    message = opened(push, private, auth, server_key) if push else {}
    check("no push while Ben was in the game; the next is after he left", "bye" in message.get("body", ""), str(message))

    # Cleo joins and subscribes. Ben's push service forgets him (410): his subscription is
    # dropped, and the next message reaches Cleo alone.
    status, cleo = api("POST", "/v1/accounts", {"displayName": "Cleo"})
    status, _ = api("POST", f"/v1/invitations/{invitation['token']}/accept", {}, cleo["token"])
    status, _, cleo_private, cleo_auth = subscribe(cleo["token"], "/push/cleo")
    check("Cleo's phone subscribes", status in (200, 201))
    service.answers["/push/ben"] = 410
    api("POST", f"/v1/games/{game_id}/messages",
        {"messageID": "m4", "text": "anyone?", "timestamp": {"wallMillis": now + 3, "counter": 0}}, ana["token"])
    api("POST", f"/v1/games/{game_id}/messages",
        {"messageID": "m5", "text": "still there?", "timestamp": {"wallMillis": now + 4, "counter": 0}}, ana["token"])
    paths = []
    while True:
        push = next_push()
        if push is None:
            break
        paths.append(push[0])
        if push[0] == "/push/cleo" and "still there?" in opened(push, cleo_private, cleo_auth, server_key).get("body", ""):
            break
    check("the push service that answered 410 is asked once", paths.count("/push/ben") == 1, str(paths))
    check("Cleo gets both messages", paths.count("/push/cleo") == 2, str(paths))

    # Moves weighed while Dee is in the game call nobody and open the game's window; the few
    # Ana makes after Dee left, inside that window, are weighed again when it ends and call
    # Dee back (before, they were passed over for good).
    status, dee = api("POST", "/v1/accounts", {"displayName": "Dee"})
    status, second = api("POST", "/v1/games", {"bundled": "green-light"}, ana["token"])
    second_id = second["game"]["gameID"] if "game" in second else second["gameID"]
    _, second_invitation = api("POST", f"/v1/games/{second_id}/invitations", {}, ana["token"])
    api("POST", f"/v1/invitations/{second_invitation['token']}/accept", {}, dee["token"])
    status, _, dee_private, dee_auth = subscribe(dee["token"], "/push/dee")
    check("Dee's phone subscribes", status in (200, 201))
    api("POST", f"/v1/games/{second_id}/presence", {"action": "enter"}, dee["token"])
    squares = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 0)]
    clock = [0]

    def type_moves(moves):
        records = []
        for row, col in moves:
            clock[0] = max(clock[0] + 1, int(time.time() * 1000) << 16)
            seq = len(type_moves.made) + 1
            type_moves.made.append(seq)
            records.append({
                "gameID": second_id, "replicaID": ana["deviceID"], "authorID": ana["account"]["authorID"], "seq": seq,
                "timestamp": {"wallMillis": clock[0] >> 16, "counter": clock[0] & 0xFFFF}, "row": row, "col": col, "letter": "A",
                "mark": 0, "cellAuthorID": ana["account"]["authorID"], "kind": "input", "batchID": f"{ana['deviceID']}:{seq}"})
        status, answer = api("POST", f"/v1/games/{second_id}/moves", {"moves": records}, ana["token"])
        return status, answer
    type_moves.made = []

    status, answer = type_moves(squares[:1])
    check("Ana types while Dee is in the game", status == 200 and answer["results"][0]["status"] == "saved", str(answer))
    status, _ = api("POST", f"/v1/games/{second_id}/presence", {"action": "leave"}, dee["token"])
    status, answer = type_moves(squares[1:])
    check("Ana types four more after Dee left", status == 200 and all(r["status"] == "saved" for r in answer["results"]), str(answer))
    called = None
    while True:
        push = next_push(within=15)
        if push is None or push[0] == "/push/dee":
            called = push
            break
    message = opened(called, dee_private, dee_auth, server_key) if called else {}
    check("the moves after Dee left call her back when the window ends", message.get("type") == "moves" and message.get("gameID") == second_id,
          str(message))

finally:
    server.kill()
    server.wait()
    service.close()

check.finish()
