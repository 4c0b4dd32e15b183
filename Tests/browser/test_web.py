"""The web app in real Chromium against a real `crossmate serve` on a temporary database.

Run by scripts/test-all.sh (which installs chromium, chromium-driver and Selenium):
    python Tests/browser/test_web.py PATH/TO/crossmate ARTIFACTS_DIR
Screenshots of the main screens, desktop and phone size, are written to ARTIFACTS_DIR, and the
keystroke-to-other-screen latency and page weight to ARTIFACTS_DIR/web-bench.json.
"""

import base64
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle"))
from oracle import PushEndpoint, free_port  # noqa: E402  (shared with the oracle scripts)

CROSSMATE = None
ARTIFACTS = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Server:
    """`crossmate serve` on a port of its own with a data directory that outlives restarts."""

    def __init__(self, data):
        self.data = data
        self.port = free_port()
        self.process = None

    def start(self, environment=None):
        self.process = subprocess.Popen(
            [CROSSMATE, "serve", "--port", str(self.port), "--data", self.data, "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(environment or {})})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            match = re.search(r"serving at (http://\S+)/", line)
            if match:
                self.url = match.group(1)
                return self
            if self.process.poll() is not None:
                raise RuntimeError("crossmate serve exited: " + line)
        raise RuntimeError("crossmate serve did not start in time")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        if self.process:
            self.process.stdout.close()

    def metric(self, name):
        text = urllib.request.urlopen(self.url + "/metrics", timeout=10).read().decode()
        line = next((line for line in text.splitlines() if line.startswith(name + " ")), None)
        return float(line.split(" ")[1]) if line else None

    def api(self, method, path, body=None, token=None):
        request = urllib.request.Request(self.url + path, method=method, data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (loopback only)
            return json.loads(response.read() or b"null")


def chrome(width=1280, height=900, mobile=False, pixel_ratio=1, arguments=()):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--force-device-scale-factor=1", *arguments]:
        options.add_argument(argument)
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": pixel_ratio, "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Mobile Safari/537.36"})
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(30)
    return driver


def until(what, condition, timeout=15.0):
    """Waits for `condition()` to be truthy (retrying through stale elements); its value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except (StaleElementReferenceException, WebDriverException) as error:
            last = error
        time.sleep(0.02)
    raise AssertionError(f"not in time: {what}" + (f" ({last})" if last else ""))


def png_pixels(data):
    """A PNG screenshot's pixels (8-bit RGB or RGBA, not interlaced, as Chromium writes them):
    (width, height, pixel(x, y) -> (r, g, b)). Decoded here so the test venv needs no imaging
    package."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    return width, height, lambda x, y: tuple(rows[y][x * channels:x * channels + 3])


# The grid has the keys: on a wide screen its input (whose active descendant is the current
# square), on a touch screen the current square itself (a roving tabindex).
GRID_HAS_KEYS = """
    const active = document.activeElement;
    return active.dataset.keys !== undefined || (active.closest('.grid') !== null && active.classList.contains('current'));
"""


class Player:
    """One person in one browser."""

    def __init__(self, server, name, width=1280, height=900, mobile=False, pixel_ratio=1, arguments=()):
        self.server = server
        self.name = name
        self.driver = chrome(width, height, mobile, pixel_ratio, arguments)

    def quit(self):
        self.driver.quit()

    def open(self, path="/"):
        self.driver.get(self.server.url + path)

    def sign_up(self, path="/"):
        self.open(path)
        field = until("the name field", lambda: self.driver.find_element(By.NAME, "displayName"))
        field.send_keys(self.name)
        field.send_keys(Keys.ENTER)
        until("signed in", lambda: self.driver.execute_script("return localStorage.getItem('crossmate.identity')"))

    def identity(self):
        return json.loads(self.driver.execute_script("return localStorage.getItem('crossmate.identity')"))

    def token(self):
        return json.loads(self.driver.execute_script("return localStorage.getItem('crossmate.identity')"))["token"]

    def start_bundled(self, name="green-light"):
        until("the bundled puzzles", lambda: self.driver.find_element(By.CSS_SELECTOR, f'[data-bundled="{name}"]')).click()
        until("the game page", lambda: re.search(r"/games/[^/]+$", self.driver.current_url))
        self.wait_live()
        return self.driver.current_url.rsplit("/", 1)[1]

    def wait_live(self):
        until("the game is live", lambda: self.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") == "live")

    def letter(self, row, col):
        return self.driver.find_element(By.CSS_SELECTOR, f'.letter[data-row="{row}"][data-col="{col}"]').text

    def row(self, row, width=5):
        """A row as text: `#` for a block, `.` for an empty square."""
        def square(col):
            found = self.driver.find_elements(By.CSS_SELECTOR, f'.letter[data-row="{row}"][data-col="{col}"]')
            return (found[0].text or ".") if found else "#"
        return "".join(square(col) for col in range(width))

    def click_square(self, row, col, direction=None):
        """Clicks a square; with a direction, clicks again if needed (a click on the current
        square turns the cursor)."""
        cell = self.driver.find_element(By.CSS_SELECTOR, f'.cell[data-r="{row}"][data-c="{col}"]')
        cell.click()
        if direction and not self.cursor().endswith(direction):
            cell.click()
        if direction:
            until("the cursor turns", lambda: self.cursor() == f"{row},{col},{direction}")

    def cursor(self):
        return self.driver.find_element(By.CSS_SELECTOR, ".grid").get_attribute("data-cursor")

    def type(self, text):
        self.driver.find_element(By.CSS_SELECTOR, "[data-keys]").send_keys(text)

    def action(self, name, confirm=True):
        """Runs a check, reveal or clear; a whole-puzzle reveal or clear asks first, and is
        confirmed (or, with confirm=False, left open for the test to read)."""
        kind = name.split("-")[0]
        self.driver.find_element(By.XPATH, f'//details[.//button[@data-action="{name}"]]/summary').click()
        self.driver.find_element(By.CSS_SELECTOR, f'[data-action="{name}"]').click()
        assert kind in ("check", "reveal", "clear")
        if name in ("reveal-puzzle", "clear-puzzle") and confirm:
            until("the confirmation", lambda: self.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-yes]")).click()

    def share_link(self):
        """Opens Share, makes a link (lasting until revoked), reads it from its field, closes it."""
        self.driver.find_element(By.CSS_SELECTOR, "[data-share]").click()
        until("the share dialog", lambda: self.driver.find_element(By.CSS_SELECTOR, "[data-make-link]")).click()
        link = until("the invitation link", lambda: self.driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").get_attribute("value"))
        self.driver.find_element(By.CSS_SELECTOR, "[data-share-close]").click()
        until("the share dialog closes", lambda: not self.driver.find_elements(By.CSS_SELECTOR, "[data-share-dialog]"))
        return link

    def cell_classes(self, row, col):
        return self.driver.find_element(By.CSS_SELECTOR, f'.cell[data-r="{row}"][data-c="{col}"]').get_attribute("class")

    def toast(self):
        return self.driver.find_element(By.ID, "toast").get_attribute("textContent")

    def screenshot(self, name):
        if ARTIFACTS:
            os.makedirs(ARTIFACTS, exist_ok=True)
            self.driver.save_screenshot(os.path.join(ARTIFACTS, name + ".png"))


FIFTEEN_BLOCKS = [
    "....#....#.....",
    "....#....#.....",
    "...............",
    "...#...#....###",
    "###....#.......",
    ".....#....#....",
    "......#...#....",
    "...#.......#...",
    "....#...#......",
    "....#....#.....",
    ".......#....###",
    "###....#...#...",
    "...............",
    ".....#....#....",
    ".....#....#....",
]


def fifteen_xd(seed=7):
    """A 15×15 .xd with a seeded fill (not words: the test solves it from its answers) and
    standard numbering; returns (text, rows of answers)."""
    import random
    rng = random.Random(seed)
    rows = ["".join("#" if c == "#" else rng.choice("ABCDEFGHIJKLMNOPRSTUW") for c in line) for line in FIFTEEN_BLOCKS]
    size = len(rows)
    number = 0
    across, down = [], []
    for r in range(size):
        for c in range(size):
            if rows[r][c] == "#":
                continue
            starts_across = (c == 0 or rows[r][c - 1] == "#") and c + 1 < size and rows[r][c + 1] != "#"
            starts_down = (r == 0 or rows[r - 1][c] == "#") and r + 1 < size and rows[r + 1][c] != "#"
            if not (starts_across or starts_down):
                continue
            number += 1
            if starts_across:
                end = c
                while end < size and rows[r][end] != "#":
                    end += 1
                across.append(f"A{number}. Across clue {number} ~ {rows[r][c:end]}")
            if starts_down:
                end = r
                while end < size and rows[end][c] != "#":
                    end += 1
                down.append(f"D{number}. Down clue {number} ~ {''.join(rows[k][c] for k in range(r, end))}")
    text = "Title: Fifteen\nAuthor: The Crossmate tests\n\n\n" + "\n".join(rows) + "\n\n\n" + "\n".join(across) + "\n\n" + "\n".join(down) + "\n"
    return text, rows


class WebAppTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="crossmate-web-")
        self.server = Server(os.path.join(self.directory, "data")).start()
        self.players = []

    def tearDown(self):
        for player in self.players:
            player.quit()
        self.server.kill()
        shutil.rmtree(self.directory, ignore_errors=True)

    def invited(self, name, game, owner, **size):
        """A new player signed up and in `owner`'s game through an invitation link, live."""
        player = self.player(name, **size)
        player.sign_up()
        invite = self.server.api("POST", f"/v1/games/{game}/invitations", {}, token=owner.token())
        player.open(invite["path"])
        until(f"{name} is in the game", lambda: re.search(r"/games/", player.driver.current_url))
        player.wait_live()
        return player

    def player(self, name, **size):
        player = Player(self.server, name, **size)
        self.players.append(player)
        return player

    def solving_together(self, *names, puzzle="daybreak"):
        """The first player starts `puzzle` and shares it; each other joins by the link and is
        live in the game. The players, then the game's id."""
        first = self.player(names[0])
        first.sign_up()
        game = first.start_bundled(puzzle)
        link = first.share_link()
        players = [first]
        for name in names[1:]:
            player = self.player(name)
            player.sign_up(link[len(self.server.url):])
            player.wait_live()
            players.append(player)
        return players, game

    def test_signups_by_invitation_say_how_to_get_in(self):
        """A server that takes new players by invitation (CROSSMATE_SIGNUPS=invite): its host makes
        the first account from the ordinary first page; a stranger then meets a page that says how
        to get in (no form the server would refuse); a friend with an invitation link makes an
        account from it and lands in the game. Closed: no one new, and the page says so."""
        self.server.kill()
        self.server.start({"CROSSMATE_SIGNUPS": "invite"})
        host = self.player("Ana")
        host.sign_up()
        game = host.start_bundled()
        stranger = self.player("Stranger", width=390, height=844, mobile=True)
        stranger.open("/")
        door = until("the page for strangers", lambda: stranger.driver.find_element(By.CSS_SELECTOR, '[data-signups="invite"]'))
        self.assertIn("by invitation", door.text)
        self.assertFalse(stranger.driver.find_elements(By.NAME, "displayName"), "a name field the server would refuse")
        self.assertTrue(stranger.driver.find_elements(By.NAME, "linkCode"), "a player's own new device still links")
        for theme in ["light", "dark"]:
            stranger.driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
            stranger.screenshot(f"signups-invite-phone-{theme}")
        invite = self.server.api("POST", f"/v1/games/{game}/invitations", {}, token=host.token())
        friend = self.player("Ben", width=390, height=844, mobile=True)
        friend.sign_up(invite["path"])
        until("Ben is in Ana's game", lambda: friend.driver.current_url.endswith(f"/games/{game}"))

        self.server.kill()
        self.server.start({"CROSSMATE_SIGNUPS": "closed"})
        late = self.player("Cy")
        late.open("/")
        door = until("the closed door", lambda: late.driver.find_element(By.CSS_SELECTOR, '[data-signups="closed"]'))
        self.assertIn("no new players", door.text)
        late.screenshot("signups-closed-desktop")

    def test_two_tabs_of_one_browser_show_each_others_letters(self):
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ana.wait_live()
        # The same game in a second tab of the same browser (one device, two pages).
        first = ana.driver.current_window_handle
        ana.driver.switch_to.new_window("tab")
        ana.open("/games/" + game)
        ana.wait_live()
        ana.click_square(1, 0, "across")
        ana.type("GR")
        until("the second tab shows its letters", lambda: ana.row(1).startswith("GR"))
        # Back in the first tab, without a reload: the letters typed in the other are there.
        ana.driver.switch_to.window(first)
        until("the first tab shows them too", lambda: ana.row(1).startswith("GR"))

    def test_two_players_solve_together(self):
        ana = self.player("Ana")
        ana.sign_up()
        until("the empty list", lambda: "No games yet" in ana.driver.find_element(By.CSS_SELECTOR, ".games").text)
        ana.screenshot("first-list-desktop")
        game = ana.start_bundled()
        # The cursor starts on the first empty square of 1-Across (ALSO).
        ana.type("ALSO")
        until("Ana's letters show at once", lambda: ana.row(0) == "#ALSO")
        link = ana.share_link()
        self.assertIn("/join/", link)

        ben = self.player("Ben")
        ben.sign_up(link[len(self.server.url):])
        until("Ben is in the game", lambda: ben.driver.current_url.endswith("/games/" + game))
        ben.wait_live()
        until("Ben sees Ana's letters", lambda: ben.row(0) == "#ALSO")
        ben.click_square(1, 0, "across")
        ben.type("GREEN")
        until("Ana sees Ben's letters", lambda: ana.row(1) == "GREEN")
        # Each letter is in its author's colour: Ana's and Ben's differ.
        colour = lambda p, r, c: p.driver.find_element(By.CSS_SELECTOR, f'.letter[data-row="{r}"][data-col="{c}"]').value_of_css_property("color")
        until("colours settle", lambda: colour(ana, 1, 0) != colour(ana, 0, 1))
        # Ana's roster lists Ben, and Ben's cursor shows on Ana's grid.
        until("roster", lambda: "Ben" in ana.driver.find_element(By.CSS_SELECTOR, ".roster").text)
        until("Ben's cursor on Ana's grid", lambda: ana.driver.find_elements(By.CSS_SELECTOR, ".cell.peer"))
        ana.screenshot("game-two-players-desktop")

        # Check: a wrong letter gets a mark; reveal fixes a square; undo takes the reveal back.
        ben.click_square(2, 0, "across")
        ben.type("LEGAX")
        until("Ana sees LEGAX", lambda: ana.row(2) == "LEGAX")
        ben.click_square(2, 4, "across")
        ben.action("check-word")
        until("the wrong mark", lambda: "wrong" in ben.cell_classes(2, 4))
        until("Ana sees the wrong mark", lambda: "wrong" in ana.cell_classes(2, 4))
        self.assertNotIn("wrong", ben.cell_classes(2, 0))
        ben.action("reveal-square")
        until("revealed", lambda: "revealed" in ben.cell_classes(2, 4) and ben.letter(2, 4) == "L")
        ben.type("Q")
        until("a revealed square refuses a letter", lambda: "revealed" in ben.toast())
        self.assertEqual(ben.letter(2, 4), "L")
        # Undo and redo (checks and reveals are not undone; letters are), seen by both.
        ben.click_square(3, 0, "across")
        ben.type("U")
        until("Ana sees U", lambda: ana.letter(3, 0) == "U")
        ben.driver.find_element(By.CSS_SELECTOR, "[data-undo]").click()
        until("undo takes back the U", lambda: ben.letter(3, 0) == "" and ana.letter(3, 0) == "")
        ben.type(Keys.CONTROL + Keys.SHIFT + "z")
        until("redo brings it back", lambda: ben.letter(3, 0) == "U" and ana.letter(3, 0) == "U")
        # Undo restores what was there: Ana overwrites Ben's G; her undo brings Ben's G back.
        ana.click_square(1, 0)
        ana.type("Q")
        until("Ana's Q", lambda: ben.letter(1, 0) == "Q")
        ana.type(Keys.CONTROL + "z")
        until("Ben's G is back", lambda: ben.letter(1, 0) == "G" and ana.letter(1, 0) == "G")

        # Ana removes Ben: his page turns read-only with a notice, and his typing changes nothing.
        ana.driver.execute_script("window.confirm = () => true")
        until("remove button", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-remove]")).click()
        until("Ben is read-only", lambda: ben.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") == "readonly")
        self.assertIn("removed", ben.driver.find_element(By.CSS_SELECTOR, ".notice").text)
        ben.click_square(3, 1, "across")
        before = ben.cursor()
        ben.type("N")
        until("Ben is told", lambda: "removed" in ben.toast())
        self.assertEqual(ben.cursor(), before, "a key that cannot write does not move the cursor")
        self.assertEqual(ana.letter(3, 1), "")
        self.assertEqual(ben.letter(3, 1), "")
        ben.screenshot("game-removed-desktop")

        # Ana finishes; the banner shows the time and the scoreboard.
        for row, word in [(3, "UNITY"), (4, "EATS")]:
            ana.click_square(row, 0, "across")
            ana.type(word)
        until("solved", lambda: ana.driver.find_elements(By.CSS_SELECTOR, '[data-completed="solved"]'), timeout=20)
        # The scoreboard follows the completion (it comes with the update that settles the game).
        until("the scoreboard", lambda: "you:" in ana.driver.find_element(By.CSS_SELECTOR, ".scores").text
              and "Ben:" in ana.driver.find_element(By.CSS_SELECTOR, ".scores").text)
        # Ben was removed before the end: his device never seals, but it can write nothing more,
        # so the replay does not wait for it.
        until("the replay is ready", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "[data-replay-slider]"))
        ana.screenshot("game-solved-desktop")

    def test_the_replay_scrubber_moves_the_grid(self):
        ana = self.player("Ana")
        ana.sign_up()
        ana.start_bundled()
        ana.type("ALSO")
        ana.click_square(1, 0, "across")
        ana.type("GREEN")
        until("typed", lambda: ana.row(1) == "GREEN")
        ana.action("reveal-puzzle")
        until("solved", lambda: ana.driver.find_elements(By.CSS_SELECTOR, '[data-completed="solved"]'))
        # A grid completed by Reveal puzzle is finished with help, not solved, and says how many
        # squares were revealed (not how many clicks); no celebration.
        heading = ana.driver.find_element(By.CSS_SELECTOR, "[data-completed]")
        self.assertEqual(heading.get_attribute("data-finish"), "finishedWithHelp")
        self.assertRegex(heading.text, r"^Finished with help \(\d{2} squares revealed\) in ")
        self.assertFalse(ana.driver.find_elements(By.CSS_SELECTOR, ".game.celebrate"))
        slider = until("the scrubber", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-replay-slider]"))
        count = int(slider.get_attribute("max"))
        self.assertGreaterEqual(count, 21)
        set_to = lambda step: ana.driver.execute_script(
            "const s = arguments[0]; s.value = arguments[1]; s.dispatchEvent(new Event('input'))", slider, step)
        set_to(0)
        until("the empty grid", lambda: ana.row(0) == "#...." and ana.row(4) == "....#")
        set_to(4)
        until("the first word", lambda: ana.row(0) == "#ALSO" and ana.row(1) == ".....")
        set_to(9)
        until("two words", lambda: ana.row(1) == "GREEN" and ana.row(2) == ".....")
        ana.screenshot("game-replay-desktop")
        ana.driver.find_element(By.CSS_SELECTOR, "select[aria-label='replay speed']").send_keys("100")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-replay-play]").click()
        until("played to the end", lambda: ana.row(4) == "EATS#" and slider.get_attribute("value") == str(count))

    def test_a_long_replay_arrives_in_pages(self):
        """A replay longer than a page (1,000 steps) comes in pages and plays whole: Ana's
        phone (a native device) typed 1,200 letters over one square before she revealed the
        grid in her browser."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        code = self.server.api("POST", "/v1/devices/link-codes", {}, token=ana.token())["code"]
        phone = self.server.api("POST", "/v1/devices", {"code": code})
        author, device, now = phone["account"]["authorID"], phone["deviceID"], phone["serverTime"]
        moves = [{"authorID": author, "batchID": f"b{seq}", "cellAuthorID": author, "col": 0, "gameID": game, "kind": "input",
                  "letter": "AB"[seq % 2], "mark": 0, "replicaID": device, "row": 1, "seq": seq,
                  "timestamp": {"counter": 0, "wallMillis": now + seq}} for seq in range(1, 1201)]
        for start in range(0, len(moves), 400):
            self.server.api("POST", f"/v1/games/{game}/moves", {"moves": moves[start:start + 400]}, token=phone["token"])
        self.server.api("POST", f"/v1/games/{game}/seals", {"lastSeq": 1200}, token=phone["token"])
        ana.action("reveal-puzzle")
        slider = until("the scrubber, once every page is in", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-replay-slider]"), timeout=30)
        count = int(slider.get_attribute("max"))
        self.assertGreater(count, 1200)
        set_to = lambda step: ana.driver.execute_script(
            "const s = arguments[0]; s.value = arguments[1]; s.dispatchEvent(new Event('input'))", slider, step)
        set_to(1)
        until("the first step", lambda: ana.letter(1, 0) == "B" and ana.row(0) == "#....")
        set_to(1100)
        until("a step from the second page", lambda: ana.letter(1, 0) == "A" and ana.row(2) == ".....")
        set_to(1101)
        until("the next one", lambda: ana.letter(1, 0) == "B")
        set_to(count)
        until("the end", lambda: ana.row(4) == "EATS#")

    def test_a_page_left_open_after_leaving_hears_nothing_more(self):
        """Ben leaves the game from another device while its page is open on his laptop: the
        page says the game is closed, and Ana's chat after that never reaches it."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        code = self.server.api("POST", "/v1/devices/link-codes", {}, token=ben.token())["code"]
        phone = self.server.api("POST", "/v1/devices", {"code": code})
        self.server.api("POST", f"/v1/games/{game}/leave", {}, token=phone["token"])
        card = until("Ben's page says so", lambda: ben.driver.find_element(By.XPATH, "//h2[text()='This game is closed']"))
        self.assertIn("You left this game", card.find_element(By.XPATH, "..").text)
        now = self.server.api("GET", "/v1/me", token=ana.token())["serverTime"]
        self.server.api("POST", f"/v1/games/{game}/messages",
                        {"messageID": "after", "text": "a secret plan", "timestamp": {"wallMillis": now, "counter": 0}}, token=ana.token())
        ana.type("ALSO")
        until("Ana's letters are in", lambda: ana.row(0) == "#ALSO")
        self.assertNotIn("a secret plan", ben.driver.find_element(By.TAG_NAME, "body").text)
        self.assertEqual(ben.driver.find_elements(By.CSS_SELECTOR, ".letter"), [])
        ben.screenshot("game-closed-desktop")

    def test_the_replay_player_seeks_as_folding_every_step_would(self):
        # 2,000 seeded steps over a 21×21 grid, 400 seeds back and forth (long jumps, short
        # steps, the ends): the player's grid is always the fold of the steps before it.
        ana = self.player("Ana")
        ana.open("/")
        failures = ana.driver.execute_async_script(
            """
            const done = arguments[0];
            import("/app/replay.js").then(({ ReplayPlayer }) => {
              let seed = 7;
              const next = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
              const steps = Array.from({ length: 2000 }, (_, i) => ({ row: next(21), col: next(21), letter: String.fromCharCode(65 + next(26)), step: i }));
              const player = new ReplayPlayer(steps);
              const failures = [];
              const targets = [0, 2000, 1999, 1, 64, 63, 65, 128];
              for (let i = 0; i < 400; i++) targets.push(i % 3 === 0 ? next(2001) : Math.max(0, Math.min(2000, targets[targets.length - 1] + next(9) - 3)));
              for (const target of targets) {
                const expected = new Map();
                for (let i = 0; i < target; i++) expected.set(`${steps[i].row},${steps[i].col}`, steps[i]);
                const frame = player.seek(target);
                const same = frame.size === expected.size && [...expected].every(([k, v]) => frame.get(k) === v);
                if (!same) failures.push(target);
              }
              done({ failures, seeks: targets.length });
            }).catch((error) => done({ failures: [String(error)], seeks: 0 }));
            """)
        self.assertEqual(failures["failures"], [])
        self.assertGreaterEqual(failures["seeks"], 400)

    def test_the_game_state_answers_typing_retries_and_refusals(self):
        # The page's state without a page: what a typed letter shows, what is sent, what an
        # answer, a retry, a dropped command and a removal leave.
        ana = self.player("Ana")
        ana.open("/")
        result = ana.driver.execute_async_script(
            """
            const done = arguments[0];
            import("/app/gamestate.js").then(({ GameState, SERVER_ERROR_TRIES }) => {
              const problems = [];
              const expect = (what, ok) => { if (!ok) problems.push(what); };
              const state = new GameState();
              const square = (row, col, letter) => ({ row, col, letter, pencil: false, verdict: "none", authorID: "a" });
              state.open({ gameID: "g", squares: [square(0, 0, "A")], readOnly: false, canUndo: false }, false);
              expect("a saved copy sends nothing", state.unsent().length === 0);
              const local = state.typed({ kind: "setLetter", row: 0, col: 1, letter: "b" });
              expect("a typed letter shows at once", state.shown({ row: 0, col: 1 }).letter === "B" && state.shown({ row: 0, col: 1 }).pendingEdit);
              state.queued(7, { kind: "setLetter", row: 0, col: 1, letter: "b" }, 100, local);
              state.queued(5, { kind: "delete", row: 0, col: 0 }, 90);
              expect("an earlier queued delete shows", state.shown({ row: 0, col: 0 }).letter === "");
              state.open({ gameID: "g", squares: [square(0, 0, "A")], readOnly: false, canUndo: false }, true);
              expect("opened: sent oldest first", JSON.stringify(state.unsent().map(([id]) => id)) === "[5,7]");
              for (const [, entry] of state.unsent()) entry.sent = true;
              expect("nothing twice", state.unsent().length === 0);
              const limited = state.answered("refused", { id: 7, code: "rateLimited", reason: "slow down" });
              expect("rate limited: again in 2 s", limited.retryAfter === 2000 && state.unsent().length === 1);
              let last;
              for (let i = 0; i < SERVER_ERROR_TRIES; i++) last = state.answered("refused", { id: 7, code: "serverError", reason: "oops" });
              expect("dropped after the tries, in words", last.settled && /could not be saved after 5 tries/.test(last.refusal.reason));
              expect("a dropped letter no longer shows", state.shown({ row: 0, col: 1 }).letter === "");
              const applied = state.answered("applied", { id: 5, gameID: "g", squares: [square(0, 0, "")], canUndo: true, canRedo: false });
              expect("applied: the server's squares and state", applied.settled && !applied.refusal && state.view.canUndo && state.shown({ row: 0, col: 0 }).letter === "");
              expect("an answer to nothing is ignored", state.answered("applied", { id: 5 }).ignored);
              state.queued(9, { kind: "setLetter", row: 0, col: 1, letter: "C" }, 110);
              const removed = state.answered("refused", { id: 9, code: "removed", reason: "you were removed" });
              expect("removed: read-only", removed.settled && state.view.readOnly);
              done(problems);
            }).catch((error) => done([String(error)]));
            """)
        self.assertEqual(result, [])

    def test_qr_codes_of_every_size_read_back(self):
        """qr.js (written here) against an independent decoder (zxing-cpp): texts from a word to
        213 bytes, versions 1 to 10 (one block and several, with and without version info),
        read back as they were."""
        import zxingcpp
        from PIL import Image
        ana = self.player("Ana")
        ana.open("/")
        texts = ["x", "hello", f"{self.server.url}/#link=K7QM4-XPD2R", "é" * 40, "z" * 100, "q" * 150, "w" * 213]
        drawn = ana.driver.execute_async_script("""
            const [texts, done] = arguments;
            import('/app/qr.js').then(({ qrModules }) => done(texts.map((text) => qrModules(text).map((row) => row.map(Number).join('')))));
        """, texts)
        sizes = set()
        for text, rows in zip(texts, drawn):
            size, scale, quiet = len(rows), 4, 4
            sizes.add(size)
            image = Image.new("L", ((size + 2 * quiet) * scale,) * 2, 255)
            pixels = image.load()
            for r, row in enumerate(rows):
                for c, bit in enumerate(row):
                    if bit == "1":
                        for dy in range(scale):
                            for dx in range(scale):
                                pixels[(c + quiet) * scale + dx, (r + quiet) * scale + dy] = 0
            self.assertEqual([found.text for found in zxingcpp.read_barcodes(image)], [text], f"a {size}×{size} code")
        self.assertIn(57, sizes)  # version 10
        self.assertIn(21, sizes)  # version 1
        self.assertIsNone(ana.driver.execute_async_script(
            "const done = arguments[0]; import('/app/qr.js').then(({ qrModules }) => done(qrModules('x'.repeat(214))))"))

    def test_a_second_browser_links_to_the_same_account(self):
        ana = self.player("Ana")
        ana.sign_up()
        ana.start_bundled()
        ana.open("/link")
        code = until("a short link code", lambda: re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", ana.driver.find_element(By.CSS_SELECTOR, "[data-link-code]").text)).group(0)
        ana.screenshot("link-code-desktop")
        # The QR code beside it, read by an independent decoder (zxing-cpp), opens the site with
        # the code filled in (after "#", so the server never sees it in a request).
        import io
        import zxingcpp
        from PIL import Image
        picture = until("the QR code", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-link-qr] svg"))
        read = [found.text for found in zxingcpp.read_barcodes(Image.open(io.BytesIO(picture.screenshot_as_png)))]
        self.assertEqual(read, [f"{self.server.url}/#link={code}"])
        scanner = self.player("Ana's tablet", width=390, height=844, mobile=True)
        scanner.driver.get(read[0])
        field = until("the code, filled in", lambda: scanner.driver.find_element(By.NAME, "linkCode"))
        until("filled", lambda: field.get_attribute("value") == code)
        self.assertNotIn("#", scanner.driver.current_url)
        self.assertFalse(scanner.driver.find_elements(By.CSS_SELECTOR, ".games [data-game]"), "linked without a press")
        scanner.screenshot("link-code-scanned-phone")
        # A code works once: the tablet does not use it, the phone does, typing it as a person
        # types it (lower case, a space for the dash).
        phone = self.player("Ana's phone", width=390, height=844, mobile=True)
        phone.open("/")
        until("the code field", lambda: phone.driver.find_element(By.NAME, "linkCode")).send_keys(code.lower().replace("-", " ") + Keys.ENTER)
        until("Ana's game on her phone", lambda: phone.driver.find_elements(By.CSS_SELECTOR, ".games [data-game]"))
        self.assertEqual(phone.driver.find_element(By.ID, "who").text, "Ana")
        phone.screenshot("list-with-game-phone")
        # A code works once.
        other = self.player("Someone")
        other.open("/")
        until("the code field", lambda: other.driver.find_element(By.NAME, "linkCode")).send_keys(code + Keys.ENTER)
        until("a used code is refused", lambda: other.driver.find_element(By.CSS_SELECTOR, ".card.quiet .error").text)

    def test_unread_badge_and_catch_up(self):
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        link = ana.share_link()
        ben = self.player("Ben")
        ben.sign_up(link[len(self.server.url):])
        ben.wait_live()
        until("Ana sees Ben is here", lambda: "Ben · here" in ana.driver.find_element(By.CSS_SELECTOR, ".roster").text)
        # Ana goes back to her list; Ben fills a word: a badge on Ana's list, and a count in its title.
        ana.open("/")
        until("the list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        self.assertFalse(ana.driver.find_elements(By.CSS_SELECTOR, "[data-unread]"))
        # The game page's socket has closed (Ana's list and Ben's game are the two left), so
        # Ana's device has left the game before Ben types.
        until("Ana's game socket is closed", lambda: self.server.metric("crossmate_connected_sockets") == 2)
        ben.click_square(1, 0, "across")
        ben.type("GREEN")
        until("the badge", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"] [data-unread]'))
        until("the count in the title", lambda: ana.driver.title.startswith("(1)"))
        ana.screenshot("list-unread-desktop")
        # Opening the game says what Ben did, marks those squares, and clears the badge.
        ana.driver.find_element(By.CSS_SELECTOR, f'[data-game="{game}"] a').click()
        line = until("the catch-up line", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-catch-up]").text)
        self.assertEqual(line, "Since you were last here: Ben filled 5 squares.")
        self.assertIn("caught", ana.cell_classes(1, 2))
        ana.screenshot("game-catch-up-desktop")
        ana.open("/")
        until("no badge", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]')
              and not ana.driver.find_elements(By.CSS_SELECTOR, "[data-unread]"))
        self.assertFalse(ana.driver.title.startswith("("))

    def test_friends_pins_blocks_and_nudges(self):
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        link = ana.share_link()
        ben = self.player("Ben")
        ben.sign_up(link[len(self.server.url):])
        ben.wait_live()
        ben.click_square(1, 0, "across")
        ben.type("G")
        until("Ana sees G", lambda: ana.letter(1, 0) == "G")
        colour = lambda: ana.driver.find_element(By.CSS_SELECTOR, '.letter[data-row="1"][data-col="0"]').value_of_css_property("color")
        before = colour()
        # Ana pins Ben's colour (pink) in another tab: her open game redraws his letter in it.
        ben_id = json.loads(ben.driver.execute_script("return localStorage.getItem('crossmate.identity')"))["authorID"]
        ana.driver.switch_to.new_window("tab")
        ana.open("/friends")
        pin = until("Ben on Ana's friends", lambda: ana.driver.find_element(By.CSS_SELECTOR, f'[data-pin="{ben_id}"]'))
        self.assertIn("1 game together", ana.driver.find_element(By.CSS_SELECTOR, f'[data-friend="{ben_id}"]').text)
        # A colour other than the one Ben has now (his stable colour depends on his random id).
        names = ["brown", "orange", "olive", "green", "teal", "blue", "indigo", "purple", "magenta"]
        # PlayerColors.palette, as the browser reports colours.
        rgb = ["104, 47, 27", "124, 60, 18", "115, 101, 0", "13, 117, 49", "24, 111, 115", "34, 73, 124", "61, 52, 181", "128, 9, 236", "171, 38, 171"]
        now = next(f for f in self.server.api("GET", "/v1/friends", token=ana.token())["friends"] if f["authorID"] == ben_id)["colorIndex"]
        chosen = (now + 4) % 9
        pin.send_keys(names[chosen])
        until("the pin is saved", lambda: ana.driver.find_element(By.CSS_SELECTOR, f'[data-pin="{ben_id}"]').get_attribute("value") == str(chosen))
        ana.screenshot("friends-desktop")
        # A new name reaches Ben's roster.
        field = ana.driver.find_element(By.NAME, "newDisplayName")
        field.clear()
        field.send_keys("Annie" + Keys.ENTER)
        until("Ben sees Annie", lambda: "Annie" in ben.driver.find_element(By.CSS_SELECTOR, ".roster").text)
        ana.driver.switch_to.window(ana.driver.window_handles[0])
        until("Ben's letter in the pinned colour", lambda: colour() != before and rgb[chosen] in colour())
        # Ben nudges: Ana hears it at once; after Ana blocks Ben, his nudges are not shown.
        ben.driver.find_element(By.CSS_SELECTOR, "[data-nudge-button]").click()
        until("the nudge's question", lambda: ben.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-nudge-message]")).send_keys("come and help with 6-Across" + Keys.ENTER)
        until("the question closes", lambda: not ben.driver.find_elements(By.CSS_SELECTOR, "[data-nudge-dialog]"))
        until("Ana is nudged", lambda: "Ben nudged you" in ana.toast() and "6-Across" in ana.toast())
        ana.open("/")
        until("the nudge on Ana's list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"] [data-nudge]'))
        ana.open("/friends")
        until("block", lambda: ana.driver.find_element(By.CSS_SELECTOR, f'[data-block="{ben_id}"]')).click()
        until("blocked", lambda: ana.driver.find_element(By.CSS_SELECTOR, f'[data-block="{ben_id}"]').text == "Unblock")
        ana.open("/")
        until("the list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        self.assertFalse(ana.driver.find_elements(By.CSS_SELECTOR, "[data-nudge]"))

    def test_dead_invitation_bad_upload_and_locked_puzzle(self):
        ana = self.player("Ana")
        ana.open("/join/not-a-real-invitation")
        until("the dead link is explained", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-error]").text)
        self.assertIn("invitation", ana.driver.find_element(By.CSS_SELECTOR, "[data-error]").text.lower())
        # The server's words read as a sentence: a capital first and a full stop at the end.
        self.assertRegex(ana.driver.find_element(By.CSS_SELECTOR, "[data-error]").text, r"^[A-Z].*[.!?]$")
        self.assertFalse(ana.driver.find_elements(By.NAME, "displayName"))
        ana.sign_up("/")
        # Signed in, a dead link is explained as well.
        ana.open("/join/not-a-real-invitation")
        until("the dead link is explained", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-error]").text)
        ana.open("/")
        corrupt = os.path.join(self.directory, "broken.puz")
        with open(corrupt, "wb") as handle:
            handle.write(b"this is not a crossword file at all")
        until("upload field", lambda: ana.driver.find_element(By.NAME, "puzzleFile")).send_keys(corrupt)
        ana.driver.find_element(By.CSS_SELECTOR, ".upload button").click()
        message = until("a clear upload error", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-upload-error]").text)
        self.assertRegex(message.lower(), r"puz|crossword|file")
        self.assertRegex(message, r"^[A-Z\w].*[.!?]$")
        # A locked .puz (made with our own writer) with the wrong key: the key field says why.
        locked = os.path.join(self.directory, "locked.puz")
        subprocess.run([CROSSMATE, "convert", "bundled:daybreak", locked, "--lock", "4321"], check=True, capture_output=True)
        ana.driver.find_element(By.NAME, "puzzleFile").send_keys(locked)
        ana.driver.find_element(By.NAME, "unlockKey").send_keys("1234")
        ana.driver.find_element(By.CSS_SELECTOR, ".upload button").click()
        until("the wrong key is explained", lambda: "key" in ana.driver.find_element(By.CSS_SELECTOR, "[data-upload-error]").text.lower())
        ana.screenshot("list-upload-error-desktop")
        # Nothing was created by the failures.
        self.assertEqual(self.server.api("GET", "/v1/games", token=ana.token())["games"], [])

    def test_offline_typing_survives_a_reload_and_arrives(self):
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ana.type("AL")
        until("AL saved", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live" and ana.row(0) == "#AL..")
        # The service worker has the app shell before the network goes.
        until("the service worker", lambda: ana.driver.execute_script("return !!navigator.serviceWorker.controller"))
        self.server.kill()
        until("Ana sees she is offline", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") != "live")
        ana.type("SO")
        until("typed offline, shown at once", lambda: ana.row(0) == "#ALSO")
        until("two unsent", lambda: "2 unsent" in ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text)
        ana.screenshot("game-offline-desktop")
        # A reload with the server still down: the page, the grid and the queue are all kept.
        ana.driver.refresh()
        until("the game after a reload, offline", lambda: ana.row(0) == "#ALSO")
        self.assertIn("unsent", ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text)
        ana.type("G")  # and typing goes on
        until("G shown", lambda: ana.letter(1, 0) == "G")
        # The server comes back on the same port and data: every letter arrives, the queue empties.
        self.server.start()
        until("live again", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live", timeout=30)
        games = self.server.api("GET", "/v1/games", token=ana.token())["games"]
        self.assertEqual([g["filled"] for g in games if g["gameID"] == game], [5])
        self.assertEqual(ana.row(0), "#ALSO")

    def test_a_page_in_the_background_is_away_and_called_back(self):
        """A phone in a pocket: its page hidden and frozen (the Page Lifecycle API, as phones do
        to a page not in front) keeps its socket, yet after a short grace its player is no longer
        here for the others and is called back by Web Push like a player who left; shown again,
        they are back. (The browser's own push service is not reachable here: Ana's device is
        subscribed to a local one through the API.)"""
        (ana, ben), game = self.solving_together("Ana", "Ben")
        service = PushEndpoint()
        self.addCleanup(service.close)
        self.server.kill()
        self.server.start({"CROSSMATE_PUSH_ALLOW_LOOPBACK": "1", "CROSSMATE_TEST_BROWSER_HIDDEN_GRACE_MS": "1500"})
        ana.wait_live()
        ben.wait_live()
        # The generator point of P-256 as the device's key: nobody decrypts here.
        point = bytes.fromhex("046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
        keys = {"p256dh": base64.urlsafe_b64encode(point).rstrip(b"=").decode(), "auth": base64.urlsafe_b64encode(bytes(16)).rstrip(b"=").decode()}
        self.server.api("POST", "/v1/push/subscriptions", {"endpoint": service.origin + "/push/ana", "keys": keys},
                        token=ana.token())
        roster = lambda: ben.driver.find_element(By.CSS_SELECTOR, ".roster").text
        until("Ben sees Ana here", lambda: "Ana · here" in roster())

        def chat(text):
            self.server.api("POST", f"/v1/games/{game}/messages",
                            {"messageID": text, "text": text, "timestamp": {"wallMillis": int(time.time() * 1000), "counter": 0}}, token=ben.token())

        chat("in-front")  # Ana's page is in front: nobody is called
        ana.driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
        until("Ana is away once the grace is over", lambda: "Ana · here" not in roster())
        chat("in-the-pocket")
        until("the chat calls Ana back", lambda: not service.received.empty())
        self.assertEqual([push.path for push in service.received.queue], ["/push/ana"],
                         "one push: for the chat written while Ana was away, none for the one before")
        ana.driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "active"})
        until("Ana is back when her page is shown", lambda: "Ana · here" in roster())

    def test_a_letter_shown_before_its_commit_survives_a_crash_there(self):
        """A move reaches the other browsers once it is ordered, before its group commit is on
        disk; the sender is answered only after. The server is made to stop between the two
        (the second group commit is held for good) and killed with SIGKILL there: the letter
        the other player already saw, never acknowledged, is still in the sender's queue, and
        after the restart it is stored and on both screens."""
        (ana, ben), game = self.solving_together("Ana", "Ben")
        self.server.kill()
        self.server.start({"CROSSMATE_TEST_HOLD_GROUP_COMMIT": "2"})
        ana.wait_live()
        ben.wait_live()
        ana.click_square(0, 1, "across")
        ana.type("A")
        until("A is stored and answered", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live")
        until("Ben sees A", lambda: ben.letter(0, 1) == "A")
        ana.type("L")  # the second group commit: relayed, then held before its COMMIT
        until("Ben sees L before it is on disk", lambda: ben.letter(0, 2) == "L")
        self.assertIn("Saving", ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text)
        self.server.kill()
        until("Ana sees she is offline", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") != "live")
        self.server.start()
        ana.wait_live()
        ben.wait_live()
        until("Ana's queue empties", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live", timeout=30)
        games = self.server.api("GET", "/v1/games", token=ana.token())["games"]
        self.assertEqual([g["filled"] for g in games if g["gameID"] == game], [2])
        try:
            until("Ben has both letters after the restart", lambda: ben.letter(0, 1) == "A" and ben.letter(0, 2) == "L")
        except AssertionError as failure:
            # (Seen once in a full run, never alone: what Ben's page showed, for the next look.)
            raise AssertionError(f"{failure}; Ben's row 0 {ben.row(0)!r}, status {ben.driver.find_element(By.CSS_SELECTOR, '[data-sync]').text!r}, "
                                 f"log {ben.driver.get_log('browser')[-5:]}")
        self.assertEqual((ana.letter(0, 1), ana.letter(0, 2)), ("A", "L"))

    def test_the_solving_keys_table_runs_in_the_browser(self):
        ana = self.player("Ana")
        ana.open("/")
        with open(os.path.join(ROOT, "Tests", "CrossmateCoreTests", "Resources", "solving-keys.json")) as handle:
            table = json.load(handle)
        layouts = {name: self.server.api("GET", f"/v1/puzzles/{name}") for name in {case["puzzle"] for case in table["cases"]}}
        failures = ana.driver.execute_async_script(
            """
            const [table, layouts, done] = arguments;
            import("/app/keys.js").then(({ Board, press, squareAccepts, typedDirectly, rebusAdding }) => {
              const named = { Left: "left", Right: "right", Up: "up", Down: "down", Space: "space", Tab: "tab",
                "Shift+Tab": "shiftTab", Backspace: "backspace", Delete: "delete", Home: "home", End: "end",
                Rebus: "rebus", Enter: "enter", Escape: "escape", Pencil: "pencil" };
              const toKey = (name) => {
                if (named[name]) return named[name];
                const jump = name.match(/^Jump (\\d+) (across|down)$/);
                if (jump) return { jump: Number(jump[1]), direction: jump[2] };
                const tap = name.match(/^Tap (\\d+),(\\d+)$/);
                if (tap) return { tap: { row: Number(tap[1]), col: Number(tap[2]) } };
                return { letter: name };
              };
              const failures = [];
              for (const c of table.characters) {
                if (squareAccepts(c.text) !== c.square) failures.push(`${JSON.stringify(c.text)}: square ${!c.square}`);
                if (typedDirectly(c.text) !== c.typed) failures.push(`${JSON.stringify(c.text)}: typed ${!c.typed}`);
                if ((rebusAdding("", c.text) !== "") !== c.square) failures.push(`${JSON.stringify(c.text)}: rebus`);
              }
              for (const c of table.cases) {
                const board = new Board(layouts[c.puzzle]);
                const letters = new Map();
                if (typeof c.filled === "string") {
                  const except = new Set(c.filled.split(" ").slice(2));
                  board.squares.forEach((square, index) => {
                    const at = `${Math.floor(index / board.width)},${index % board.width}`;
                    if (square.kind === "letter" && !except.has(at)) letters.set(at, "?");
                  });
                } else for (const [at, letter] of Object.entries(c.filled ?? {})) letters.set(at, letter);
                const expected = new Map(letters);
                for (const [at, letter] of Object.entries(c.expect.changes)) letter ? expected.set(at, letter) : expected.delete(at);
                const pencilled = new Set();
                let cursor = { ...c.start, pencil: false, rebus: null };
                const options = c.options ?? {};
                for (const name of c.keys) {
                  if (name === "Open") {
                    cursor = { ...cursor, ...board.opening((s) => letters.get(`${s.row},${s.col}`) ?? "") };
                    continue;
                  }
                  const { cursor: next, edit } = press(toKey(name), cursor, board, (s) => letters.get(`${s.row},${s.col}`) ?? "", options);
                  if (edit?.kind === "write") {
                    letters.set(`${edit.row},${edit.col}`, edit.letter);
                    edit.pencil ? pencilled.add(`${edit.row},${edit.col}`) : pencilled.delete(`${edit.row},${edit.col}`);
                  } else if (edit?.kind === "erase") {
                    letters.delete(`${edit.row},${edit.col}`);
                    pencilled.delete(`${edit.row},${edit.col}`);
                  }
                  cursor = next;
                }
                const same = (a, b) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
                const problems = [];
                if (cursor.row !== c.expect.row || cursor.col !== c.expect.col) problems.push(`cursor ${cursor.row},${cursor.col}`);
                if (cursor.direction !== c.expect.direction) problems.push(`direction ${cursor.direction}`);
                if (!same(letters, expected)) problems.push(`letters ${JSON.stringify([...letters])}`);
                const wantPencilled = new Set(c.expect.pencilled ?? []);
                if (pencilled.size !== wantPencilled.size || [...pencilled].some((p) => !wantPencilled.has(p))) problems.push(`pencilled ${[...pencilled]}`);
                if (c.expect.pencil !== undefined && cursor.pencil !== c.expect.pencil) problems.push(`pencil ${cursor.pencil}`);
                if ((cursor.rebus ?? null) !== (c.expect.rebus ?? null)) problems.push(`rebus ${cursor.rebus}`);
                if (problems.length) failures.push(`${c.name}: ${problems.join("; ")}`);
              }
              done({ count: table.cases.length, failures });
            }, (error) => done({ count: 0, failures: [String(error)] }));
            """, table, layouts)
        self.assertEqual(failures["failures"], [])
        self.assertGreaterEqual(failures["count"], 40)

    def test_phone_size(self):
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        ana.screenshot("list-phone")
        ana.start_bundled("daybreak")
        # The grid fits the width; the clue bar sits below it, in the dock above the keyboard.
        width = ana.driver.execute_script("return document.querySelector('.grid').getBoundingClientRect().width")
        self.assertLessEqual(width, 390)
        bar = ana.driver.execute_script("return document.querySelector('.cluebar').getBoundingClientRect().top")
        bottom = ana.driver.execute_script("return document.querySelector('.grid').getBoundingClientRect().bottom")
        self.assertGreaterEqual(bar, bottom)
        ana.driver.find_element(By.CSS_SELECTOR, '.cell[data-r="0"][data-c="0"]').click()
        # Tapping a square focuses the input that brings up the phone's keyboard.
        self.assertEqual(ana.driver.execute_script(GRID_HAS_KEYS), True)
        ana.type("SUN")
        until("typed on the phone", lambda: ana.letter(0, 0) == "S")
        ana.screenshot("game-phone")

    def phone_game(self, ratio=1, puzzle_rows=None):
        """Ana on a 390×844 touch phone at `ratio`, in a new 15×15 game."""
        ana = self.player("Ana", width=390, height=844, mobile=True, pixel_ratio=ratio)
        ana.sign_up()
        text, answers = fifteen_xd()
        game = self.server.api("POST", "/v1/games", {"fileName": "fifteen.xd", "fileBase64": base64.b64encode(text.encode()).decode()}, token=ana.token())
        ana.open("/games/" + game["gameID"])
        ana.wait_live()
        return ana, game["gameID"], answers

    def test_the_phone_game_is_one_fixed_screen_with_every_line_drawn(self):
        """At device pixel ratios 1, 2 and 3 the page never scrolls; toolbar, grid, clue bar and
        keyboard are all in the window; every square is on whole CSS pixels, and in a
        screenshot every line between two squares is drawn (a 24.8-px square left some out)."""
        for ratio in (1, 2, 3):
            ana, _, _ = self.phone_game(ratio)
            layout = ana.driver.execute_script("""
                const box = (selector) => document.querySelector(selector).getBoundingClientRect();
                const cells = [...document.querySelectorAll('.grid .cell')].map((cell) => cell.getBoundingClientRect());
                return {
                  scroll: document.scrollingElement.scrollHeight, height: innerHeight, sideways: document.documentElement.scrollWidth - innerWidth,
                  parts: ['.toolbar', '.grid', '.dock .cluebar', '[data-keyboard]'].map((selector) => [selector, box(selector).top, box(selector).bottom]),
                  fractional: cells.filter((b) => [b.left, b.top, b.width, b.height].some((v) => Math.abs(v - Math.round(v)) > 0.001)).length,
                  size: cells[0].width, ratio: devicePixelRatio,
                };
            """)
            self.assertEqual(layout["ratio"], ratio)
            self.assertLessEqual(layout["scroll"], layout["height"], layout)
            self.assertLessEqual(layout["sideways"], 0, layout)
            for selector, top, bottom in layout["parts"]:
                self.assertTrue(0 <= top and bottom <= layout["height"], f"{selector} is out of the window: {layout}")
            self.assertEqual(layout["fractional"], 0, layout)
            self.assertGreaterEqual(layout["size"], 24, layout)
            # Every line between two letter squares, in the pixels of a screenshot.
            width, height, pixel = png_pixels(ana.driver.get_screenshot_as_png())
            lines = ana.driver.execute_script("""
                const at = (r, c) => document.querySelector(`.cell[data-r="${r}"][data-c="${c}"]`);
                const found = [];
                for (let r = 0; r < 15; r++) for (let c = 0; c < 14; c++) {
                  const a = at(r, c), b = at(r, c + 1);
                  if (!a || !b) continue;
                  const box = a.getBoundingClientRect();
                  found.push([box.right, box.top + box.height * 0.8]);
                }
                return found;
            """)
            missing = []
            for x, y in lines:
                # The 1-px gap after a square's right edge, in device pixels, below its letter.
                dark = [sum(pixel(int(x * ratio) + i, int(y * ratio))) < 300 for i in range(ratio)]
                if not all(dark):
                    missing.append((x, y))
            self.assertGreaterEqual(len(lines), 100)
            self.assertEqual(missing, [], f"lines not drawn at ratio {ratio}")
            ana.screenshot(f"phone-game-dpr{ratio}")
            ana.quit()
            self.players.remove(ana)

    def focused_node(self, driver):
        """What a screen reader is on: the focused node of the accessibility tree (read through
        CDP), as role, name and its states."""
        active = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": "document.activeElement"})["result"]["objectId"]
        node = driver.execute_cdp_cmd("Accessibility.getPartialAXTree", {"objectId": active, "fetchRelatives": False})["nodes"][0]
        states = {item["name"]: item["value"].get("value") for item in node.get("properties", [])}
        return node.get("role", {}).get("value"), node.get("name", {}).get("value", ""), states

    def live_texts(self, driver):
        """The text of every live region in the page (what a screen reader says by itself)."""
        return driver.execute_script(
            "return [...document.querySelectorAll('[aria-live], [role=status], [role=alert]')].map((node) => node.textContent)")

    def test_a_phone_screen_reader_hears_each_square_and_clue_once(self):
        """On a phone the focus is the current square's (a roving tabindex, which VoiceOver and
        TalkBack follow): the square the cursor enters a word at says the clue, once; the clue
        bar is no live region; ‹ › and the on-screen keys leave the focus on the grid; a turn on
        the same square says the new clue by itself; the clue lists are buttons that say their
        direction and which is current; the whole of a long clue shows in the bar; no key types
        under a sheet; and the letters and black squares are read at the contrast they need."""
        long_clue = ("Where a ship's anchor is stowed, in the bow, when it is not in use at sea, "
                     "as any sailor who has ever hauled one up would tell you at length")
        ana = self.player("Ana", width=390, height=844, mobile=True, pixel_ratio=3)
        ana.sign_up()
        text, _ = fifteen_xd()
        text = re.sub(r"A1\. Across clue 1 ~", f"A1. {long_clue} ~", text)
        game = self.server.api("POST", "/v1/games", {"fileName": "fifteen.xd", "fileBase64": base64.b64encode(text.encode()).decode()}, token=ana.token())
        ana.open("/games/" + game["gameID"])
        ana.wait_live()
        driver = ana.driver
        until("the first square has the focus", lambda: self.focused_node(driver)[0] == "gridcell")
        role, name, states = self.focused_node(driver)
        self.assertTrue(name.startswith("1 Across, square 1 of 4, " + long_clue), name)
        self.assertIsNone(driver.find_element(By.CSS_SELECTOR, "[data-clue-bar]").get_attribute("aria-live"))
        self.assertFalse(any(long_clue in text for text in self.live_texts(driver)), "the clue is said twice")
        # The whole clue in the bar, at a size that reads, below the grid and over nothing.
        bar = driver.execute_script("""
            const bar = document.querySelector('.dock .cluebar');
            return { text: bar.textContent, fits: bar.scrollHeight <= bar.clientHeight + 1, size: parseFloat(getComputedStyle(bar).fontSize),
                     top: bar.getBoundingClientRect().top, gridBottom: document.querySelector('.grid').getBoundingClientRect().bottom,
                     label: bar.querySelector('.label').getBoundingClientRect().width, width: bar.getBoundingClientRect().width,
                     grid: document.querySelector('.grid').getBoundingClientRect().toJSON() };
        """)
        self.assertIn(long_clue, bar["text"])
        self.assertTrue(bar["fits"], bar)
        self.assertGreaterEqual(bar["size"], 11, bar)
        self.assertGreaterEqual(bar["top"], bar["gridBottom"], bar)
        self.assertLess(bar["label"], bar["width"] * 0.15, bar)
        ana.screenshot("phone-long-clue")
        # A key on the on-screen keyboard types and leaves the focus on the next square, which
        # is heard without the clue.
        driver.find_element(By.CSS_SELECTOR, '[data-key="Q"]').click()
        until("typed", lambda: ana.letter(0, 0) == "Q")
        until("the next square has the focus", lambda: self.focused_node(driver)[1].startswith("1 Across, square 2 of 4"))
        self.assertNotIn(long_clue, self.focused_node(driver)[1])
        # The next clue: the focus is on its first square, which says it; the grid stayed put.
        driver.find_element(By.CSS_SELECTOR, '[data-clue-step="tab"]').click()
        until("at 5 Across", lambda: self.focused_node(driver)[1].startswith("5 Across, square 1 of 4, Across clue 5"))
        self.assertEqual(driver.execute_script("return document.querySelector('.grid').getBoundingClientRect().toJSON()"), bar["grid"])
        self.assertTrue(driver.execute_script(GRID_HAS_KEYS))
        # A turn on the same square: the new clue is said by itself (there is no new square).
        announced = driver.find_element(By.CSS_SELECTOR, "[data-clue-announcer]")
        self.assertEqual(announced.get_attribute("textContent"), "")
        driver.find_element(By.CSS_SELECTOR, '.cell[data-r="0"][data-c="5"]').click()
        until("at 5 Down", lambda: ana.cursor() == "0,5,down")
        until("the clue is said", lambda: announced.get_attribute("textContent").startswith("5 Down, Down clue 5"))
        driver.find_element(By.CSS_SELECTOR, '.cell[data-r="0"][data-c="5"]').click()
        until("turned", lambda: ana.cursor() == "0,5,across")
        until("the clue is said", lambda: announced.get_attribute("textContent").startswith("5 Across, Across clue 5"))
        # Under a sheet the keyboard is away and types nothing.
        driver.find_element(By.CSS_SELECTOR, "[data-clues-button]").click()
        until("the clue sheet", lambda: not driver.find_element(By.CSS_SELECTOR, '[data-sheet="clues"]').get_attribute("hidden"))
        self.assertFalse(driver.find_element(By.CSS_SELECTOR, "[data-keyboard]").is_displayed())
        driver.execute_script("document.querySelector('[data-key=\"Z\"]').click()")
        buttons = driver.execute_script("""
            return [...document.querySelectorAll('[data-sheet="clues"] .clues li button')].slice(0, 3)
              .map((b) => [b.textContent, b.getAttribute('aria-current')]);
        """)
        self.assertEqual(buttons[0][0].split(" ~")[0], "1 Across: " + long_clue)
        current = driver.execute_script("return document.querySelector('[data-sheet=\"clues\"] [data-clue=\"5-across\"] button').getAttribute('aria-current')")
        self.assertEqual(current, "true")
        ana.screenshot("phone-clue-sheet-buttons")
        driver.find_element(By.CSS_SELECTOR, '[data-sheet="clues"] [data-sheet-close]').click()
        until("back on the grid", lambda: driver.execute_script(GRID_HAS_KEYS))
        self.assertEqual(ana.letter(0, 5), "", "a key typed under the sheet")
        # Contrast, computed from what is drawn: her letters on the cursor's square and on its
        # word at 4.5:1, black squares against empty ones at 3:1, in both themes.
        driver.find_element(By.CSS_SELECTOR, '[data-key="W"]').click()
        driver.find_element(By.CSS_SELECTOR, '[data-key="X"]').click()
        until("typed", lambda: ana.letter(0, 6) == "X")
        driver.find_element(By.CSS_SELECTOR, '[data-clue-step="shiftTab"]').click()
        until("back at 1 Across", lambda: ana.cursor().startswith("0,"))
        driver.find_element(By.CSS_SELECTOR, '.cell[data-r="0"][data-c="5"]').click()
        until("on the W", lambda: ana.cursor() == "0,5,across")

        def luminance(rgb):
            channels = [int(value) / 255 for value in re.findall(r"[\d.]+", rgb)[:3]]
            linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

        def contrast(a, b):
            x, y = sorted([luminance(a), luminance(b)], reverse=True)
            return (x + 0.05) / (y + 0.05)

        for theme in ["light", "dark"]:
            driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
            drawn = driver.execute_script("""
                const style = (r, c) => document.querySelector(`.cell[data-r="${r}"][data-c="${c}"]`);
                const colours = (cell) => [getComputedStyle(cell.querySelector('.letter')).color, getComputedStyle(cell).backgroundColor];
                return { current: colours(style(0, 5)), word: colours(style(0, 6)),
                         block: getComputedStyle(document.querySelector('.cell.block')).backgroundColor,
                         empty: getComputedStyle(style(14, 0)).backgroundColor };
            """)
            self.assertGreaterEqual(contrast(*drawn["current"]), 4.5, f"{theme}: {drawn}")
            self.assertGreaterEqual(contrast(*drawn["word"]), 4.5, f"{theme}: {drawn}")
            self.assertGreaterEqual(contrast(drawn["block"], drawn["empty"]), 3, f"{theme}: {drawn}")
            ana.screenshot(f"phone-contrast-{theme}")

    def test_inviting_and_nudging_from_a_phone_feel_like_an_app(self):
        """Share is the first of ⋯ and in the Players sheet, and hands the link to the phone's
        share sheet; Nudge asks in the page, not in a browser prompt, and says why it failed."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        driver = ana.driver
        driver.find_element(By.CSS_SELECTOR, "[data-more]").click()
        first = driver.execute_script("return document.querySelector('#more-tools > *').dataset")
        self.assertIn("share", first)
        driver.find_element(By.CSS_SELECTOR, "[data-more]").click()
        # The share sheet is the phone's (here one that keeps what it was given).
        driver.execute_script("Object.defineProperty(navigator, 'share', { configurable: true, value: async (data) => { window.__shared = data; } })")
        driver.find_element(By.CSS_SELECTOR, "[data-players-button]").click()
        until("the Invite button", lambda: driver.find_element(By.CSS_SELECTOR, "[data-invite-button]").is_displayed())
        driver.find_element(By.CSS_SELECTOR, "[data-invite-button]").click()
        until("the share dialog", lambda: driver.find_element(By.CSS_SELECTOR, "[data-make-link]")).click()
        link = until("the link", lambda: driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").get_attribute("value"))
        driver.find_element(By.CSS_SELECTOR, "[data-share-sheet]").click()
        shared = until("handed to the share sheet", lambda: driver.execute_script("return window.__shared"))
        self.assertEqual(shared["url"], link)
        self.assertIn("Green", shared["title"] + shared["text"])
        ana.screenshot("phone-share-dialog")
        driver.find_element(By.CSS_SELECTOR, "[data-share-close]").click()
        until("closed", lambda: not driver.find_elements(By.CSS_SELECTOR, "[data-share-dialog]"))
        until("the grid has the keys", lambda: driver.execute_script(GRID_HAS_KEYS))
        # Nudge: a question in the page; a message over the limit is refused with the reason.
        driver.execute_script("window.prompt = () => { window.__prompted = true; return null; }")
        driver.find_element(By.CSS_SELECTOR, "[data-more]").click()
        driver.find_element(By.CSS_SELECTOR, "[data-nudge-button]").click()
        field = until("the nudge's question", lambda: driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-nudge-message]"))
        ana.screenshot("phone-nudge-dialog")
        driver.execute_script("arguments[0].removeAttribute('maxlength'); arguments[0].value = 'é'.repeat(150)", field)
        driver.find_element(By.CSS_SELECTOR, "[data-nudge-send]").click()
        until("the reason", lambda: "200" in driver.find_element(By.CSS_SELECTOR, "[data-nudge-dialog] .error").text)
        field.clear()
        field.send_keys("the long one at 9 Down" + Keys.ENTER)
        until("the question closes", lambda: not driver.find_elements(By.CSS_SELECTOR, "[data-nudge-dialog]"))
        until("Ben is nudged", lambda: "9 Down" in ben.toast())
        self.assertIsNone(driver.execute_script("return window.__prompted ?? null"))
        until("the grid has the keys", lambda: driver.execute_script(GRID_HAS_KEYS))

    def test_a_browser_with_no_push_service_is_told_so(self):
        """Where the browser's push service never answers (this Chromium has none), the device's
        switch comes back unticked with the reason, and the account's choices say they are for
        the account's other devices while this one is off."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        driver = ana.driver
        driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": self.server.url})
        ana.start_bundled()
        driver.execute_script("document.querySelector('[data-settings]').click()")
        switch = until("the device's switch", lambda: driver.find_element(By.CSS_SELECTOR, "[data-push-device]"))
        until("it can be turned on", lambda: switch.is_enabled())
        self.assertFalse(switch.is_selected())
        self.assertIn("This device is not notified", driver.find_element(By.CSS_SELECTOR, "[data-account-note]").text)
        driver.execute_script("arguments[0].click()", switch)
        until("it says it is asking", lambda: "Asking" in driver.find_element(By.CSS_SELECTOR, "[data-push-note]").text)
        until("the reason, in sight", lambda: "No push service answered" in driver.find_element(By.CSS_SELECTOR, "[data-push-note]").text, timeout=30)
        self.assertFalse(switch.is_selected())
        self.assertTrue(switch.is_enabled())
        self.assertIn("This device is not notified", driver.find_element(By.CSS_SELECTOR, "[data-account-note]").text)
        ana.screenshot("phone-settings-no-push-service")

    def test_sheets_open_over_the_grid_and_close_back_to_it(self):
        """Clues, chat, players and the puzzle's notes open as sheets over the grid and close back
        to it, with the keys on the grid again; a clue tapped in the list is where the cursor goes."""
        ana, game, _ = self.phone_game()
        driver = ana.driver
        shown = lambda: driver.execute_script("return [...document.querySelectorAll('[data-sheet]')].filter((s) => !s.hidden).map((s) => s.dataset.sheet)")
        driver.find_element(By.CSS_SELECTOR, "[data-clues-button]").click()
        until("the clue lists", lambda: shown() == ["clues"])
        ana.screenshot("phone-sheet-clues")
        driver.find_element(By.CSS_SELECTOR, '[data-sheet="clues"] [data-clue="5-down"]').click()
        until("back to the grid", lambda: shown() == [])
        until("at 5 Down", lambda: ana.cursor().endswith("down"))
        self.assertTrue(driver.execute_script(GRID_HAS_KEYS))
        driver.find_element(By.CSS_SELECTOR, "[data-players-button]").click()
        until("the players", lambda: shown() == ["players"])
        self.assertIn("Ana", driver.find_element(By.CSS_SELECTOR, '[data-sheet="players"]').text)
        ana.screenshot("phone-sheet-players")
        driver.find_element(By.CSS_SELECTOR, '[data-sheet="players"] [data-sheet-close]').click()
        until("closed", lambda: shown() == [])
        driver.find_element(By.CSS_SELECTOR, "[data-title]").click()
        until("the puzzle's sheet", lambda: shown() == ["info"])
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "[data-full-title]").text, "Fifteen")
        driver.find_element(By.CSS_SELECTOR, "[data-keys]").send_keys(Keys.ESCAPE)
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        until("Escape closes it", lambda: shown() == [])
        driver.find_element(By.CSS_SELECTOR, "[data-chat-button]").click()
        until("the chat", lambda: shown() == ["chat"])
        until("its field", lambda: driver.find_element(By.CSS_SELECTOR, "[data-chat-input]").is_displayed())
        self.assertLessEqual(driver.execute_script("return document.scrollingElement.scrollHeight - innerHeight"), 0)
        ana.screenshot("phone-sheet-chat")
        driver.find_element(By.CSS_SELECTOR, '[data-sheet="chat"] [data-sheet-close]').click()
        until("closed again", lambda: shown() == [])
        # The clue sheet opens at the cursor's clue, however far down the lists it is, and
        # scrolls only itself.
        driver.find_element(By.CSS_SELECTOR, "[data-clues-button]").click()
        until("the clue lists again", lambda: shown() == ["clues"])
        last = driver.execute_script("const items = document.querySelectorAll('[data-sheet=\"clues\"] [data-clue$=\"-down\"]'); return items[items.length - 1].dataset.clue")
        driver.find_element(By.CSS_SELECTOR, f'[data-sheet="clues"] [data-clue="{last}"]').click()
        until("back to the grid", lambda: shown() == [])
        driver.find_element(By.CSS_SELECTOR, "[data-clues-button]").click()
        until("the clue lists once more", lambda: shown() == ["clues"])
        in_view = f"""const body = document.querySelector('[data-sheet="clues"] .sheet-body').getBoundingClientRect();
            const item = document.querySelector('[data-sheet="clues"] [data-clue="{last}"]').getBoundingClientRect();
            return body.height > 0 && item.top >= body.top && item.bottom <= body.bottom"""
        until(f"{last} in view in the sheet", lambda: driver.execute_script(in_view))
        self.assertEqual(driver.execute_script("return document.scrollingElement.scrollTop"), 0, "the page itself never scrolls")
        ana.screenshot("phone-sheet-clues-at-cursor")

    def test_the_connection_label_keeps_its_place(self):
        """Offline, and reconnecting with 99 letters unsent, the label says so in its own place:
        no sideways scroll, the toolbar unmoved, nobody shown here."""
        ana, game, answers = self.phone_game()
        ben = self.invited("Ben", game, ana)
        driver = ana.driver
        until("Ana and Ben are here", lambda: driver.execute_script("return document.querySelectorAll('.faces .avatar.here').length") == 2)
        toolbar = driver.execute_script("return document.querySelector('.toolbar').getBoundingClientRect().toJSON()")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        until("Offline", lambda: driver.find_element(By.CSS_SELECTOR, "[data-sync-status]").text.startswith("Offline"))
        self.assertEqual(driver.execute_script("return document.querySelectorAll('.faces .avatar.here').length"), 0, "nobody is known to be here offline")
        for _ in range(3):
            row, col, _ = ana.cursor().split(",")
            driver.find_element(By.CSS_SELECTOR, f'[data-key="{answers[int(row)][int(col)]}"]').click()
        until("three unsent", lambda: driver.find_element(By.CSS_SELECTOR, "[data-sync-status]").text == "Offline · 3 unsent")
        ana.screenshot("phone-offline")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        until("live again", lambda: driver.find_element(By.CSS_SELECTOR, "[data-sync-status]").text == "Live")
        self.server.kill()
        until("reconnecting", lambda: driver.find_element(By.CSS_SELECTOR, "[data-sync-status]").get_attribute("data-sync") == "reconnecting")
        for _ in range(99):
            row, col, _ = ana.cursor().split(",")
            driver.find_element(By.CSS_SELECTOR, f'[data-key="{answers[int(row)][int(col)]}"]').click()
        until("99 unsent", lambda: driver.find_element(By.CSS_SELECTOR, "[data-sync-status]").text == "Reconnecting… · 99 unsent")
        layout = driver.execute_script("""
            const label = document.querySelector('[data-sync-status]').getBoundingClientRect();
            const line = document.querySelector('.statusline').getBoundingClientRect();
            return { sideways: document.documentElement.scrollWidth - innerWidth, label: label.toJSON(), line: line.toJSON(),
                     toolbar: document.querySelector('.toolbar').getBoundingClientRect().toJSON(),
                     scroll: document.scrollingElement.scrollHeight - innerHeight };
        """)
        self.assertLessEqual(layout["sideways"], 0, layout)
        self.assertLessEqual(layout["scroll"], 0, layout)
        self.assertLessEqual(layout["label"]["right"], layout["line"]["right"], layout)
        self.assertEqual(layout["toolbar"], toolbar, "the toolbar moved")
        ana.screenshot("phone-reconnecting-99")
        ben.quit()
        self.players.remove(ben)

    def test_the_app_installs_and_shows_a_push(self):
        """The manifest and service worker make an installable app (Chromium reports no
        installability errors); a push delivered to the service worker shows a notification
        for its game, and the app's badge counts it."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        driver = ana.driver
        manifest = self.server.api("GET", "/app/manifest.webmanifest")
        self.assertEqual(manifest["display"], "standalone")
        self.assertEqual({icon["sizes"] for icon in manifest["icons"] if icon["type"] == "image/png"}, {"192x192", "512x512"})
        self.assertTrue(any(icon.get("purpose") == "maskable" for icon in manifest["icons"]))
        until("the service worker controls the page", lambda: driver.execute_script("return !!navigator.serviceWorker.controller") or driver.refresh())
        errors = until("installability checked", lambda: driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}))
        self.assertEqual(errors.get("installabilityErrors"), [], errors)
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": self.server.url, "permissions": ["notifications"]})
        payload = json.dumps({"type": "chat", "gameID": "g-1", "title": "Daybreak", "body": "Ben: are you coming?", "url": "/games/g-1"})
        # The push goes to the page's one registration (CDP names registrations by a number
        # the page cannot read; the others are no registration and take nothing).
        driver.execute_cdp_cmd("ServiceWorker.enable", {})

        def pushed_and_shown():
            # Delivered again until it shows: a push that reached the worker before it was ready
            # for one showed nothing once in a full run. A second notification of the game
            # replaces the first (one tag a game), so there is still one.
            for registration in range(8):
                driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage", {"origin": self.server.url, "registrationId": str(registration), "data": payload})
            return driver.execute_async_script(
                "const done = arguments[0]; navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((list) => done(list.map((n) => [n.title, n.body, n.tag, n.data.url])))")
        shown = until("the notification", pushed_and_shown, timeout=30)
        self.assertEqual(shown, [["Daybreak", "Ben: are you coming?", "game-g-1", "/games/g-1"]])

    def test_composed_text_is_typed_once(self):
        """An input method's text (IME, accents) fills the squares once, when composed: the
        partial compositions before it are not typed ("fer" filled six squares)."""
        ana = self.player("Ana")
        ana.sign_up()
        ana.start_bundled("daybreak")
        # The cursor starts on 1 Across (a click there would turn it down).
        ana.driver.execute_script("document.querySelector('[data-keys]').focus()")
        for partial in ["f", "fe", "fer"]:
            ana.driver.execute_cdp_cmd("Input.imeSetComposition", {"text": partial, "selectionStart": len(partial), "selectionEnd": len(partial)})
        ana.driver.execute_cdp_cmd("Input.insertText", {"text": "fer"})
        until("composed", lambda: [ana.letter(0, col) for col in range(3)] == ["F", "E", "R"])
        self.assertEqual(ana.letter(0, 3), "", "typed once")
        # An accented letter composed with a dead key is one letter too.
        ana.driver.execute_cdp_cmd("Input.imeSetComposition", {"text": "´", "selectionStart": 1, "selectionEnd": 1})
        ana.driver.execute_cdp_cmd("Input.insertText", {"text": "é"})
        until("the accent", lambda: ana.letter(0, 3) != "")
        self.assertEqual(ana.letter(1, 0), "", "nothing spilled into the next word")

    def test_signing_out_of_a_browser(self):
        """Sign out asks first, revokes this browser's device on the server (its token stops
        working), forgets what the browser kept, and leaves the first page."""
        ana = self.player("Ana")
        ana.sign_up()
        token = ana.token()
        until("the list", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sign-out]")).click()
        dialog = until("asked first", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sign-out-dialog]"))
        self.assertIn("Your games stay with your account", dialog.text)
        ana.screenshot("sign-out-desktop")
        dialog.find_element(By.CSS_SELECTOR, "[data-sign-out-yes]").click()
        until("the first page", lambda: ana.driver.find_element(By.NAME, "displayName"))
        self.assertIsNone(ana.driver.execute_script("return localStorage.getItem('crossmate.identity')"))
        request = urllib.request.Request(self.server.url + "/v1/me", headers={"Authorization": f"Bearer {token}"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        self.assertEqual(refused.exception.code, 401)

    def test_clearing_or_revealing_the_puzzle_asks_first(self):
        """Clear puzzle wiped a friend's letters at one click. It now asks, saying whose."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        ben.click_square(1, 0, "across")
        ben.type("GRE")
        until("Ben's letters reach Ana", lambda: ana.row(1) == "GRE..")
        ana.type("AL")
        until("Ana typed", lambda: ana.row(0) == "#AL..")
        ana.action("clear-puzzle", confirm=False)
        text = until("the question", lambda: ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-text]").text)
        self.assertIn("3 of Ben's letters", text)
        self.assertIn("2 of yours", text)
        ana.screenshot("confirm-clear-desktop")
        ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-no]").click()
        until("the dialog closes", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))
        self.assertEqual(ana.row(1), "GRE..")
        # Focus is back on the grid: the next letters are typed, not lost.
        self.assertEqual(ana.driver.execute_script(GRID_HAS_KEYS), True)
        # Escape closes it too; confirming clears.
        ana.action("reveal-puzzle", confirm=False)
        until("the reveal question", lambda: ana.driver.find_element(By.CSS_SELECTOR, "dialog[open][data-confirm=reveal]"))
        ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-no]").send_keys(Keys.ESCAPE)
        until("escape closes it", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))
        self.assertFalse(ana.driver.find_elements(By.CSS_SELECTOR, "[data-completed]"))
        ana.action("clear-puzzle")
        until("cleared for Ben too", lambda: ben.row(1) == "....." and ben.row(0) == "#....")

    def test_the_puzzles_words_focus_menus_and_what_a_screen_reader_hears(self):
        """Author, copyright and notes are shown; the clue bar is not rebuilt while typing within
        a word and the status is not announced per key; focus returns to the grid after Share; a
        menu closes on Escape; any player sees Share, a removed one neither Share nor Nudge."""
        xd = ("Title: Tiny\nAuthor: Ana Author\nCopyright: 2026 Crossmate\n\n\nAB\nCD\n\n\n"
              "A1. Top ~ AB\nA3. Bottom ~ CD\n\nD1. Left ~ AC\nD2. Right ~ BD\n\n\nA note about this puzzle.\n")
        ana = self.player("Ana")
        ana.sign_up()
        game = self.server.api("POST", "/v1/games", {"fileName": "tiny.xd", "fileBase64": base64.b64encode(xd.encode()).decode()},
                               token=ana.token())["gameID"]
        ana.open("/games/" + game)
        ana.wait_live()
        byline = ana.driver.find_element(By.CSS_SELECTOR, "[data-byline]").text
        self.assertIn("by Ana Author", byline)
        self.assertIn("2026 Crossmate", byline)
        self.assertIn("A note about this puzzle.", ana.driver.find_element(By.CSS_SELECTOR, "[data-notes]").get_attribute("textContent"))
        # Typing within a word: the clue bar and the announced status do not change.
        ana.click_square(0, 0, "across")
        ana.driver.execute_script(
            "window.__mutations = 0; const o = new MutationObserver((r) => { __mutations += r.length; });"
            "o.observe(document.querySelector('[data-clue-bar]'), { subtree: true, childList: true, characterData: true });"
            "o.observe(document.querySelector('[data-sync-announcer]'), { subtree: true, childList: true, characterData: true });")
        ana.type("A")
        until("typed", lambda: ana.letter(0, 0) == "A")
        until("saved", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live")
        self.assertEqual(ana.driver.execute_script("return __mutations"), 0)
        # Share, close it with Escape, then type: the letters go to the grid.
        ana.driver.find_element(By.CSS_SELECTOR, "[data-share]").click()
        until("the share dialog", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-make-link]")).click()
        until("the link", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").get_attribute("value"))
        ana.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        until("the dialog closes", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, "[data-share-dialog]"))
        until("focus is back on the grid", lambda: ana.driver.execute_script(GRID_HAS_KEYS))
        ana.type("B")
        until("typed after Share", lambda: ana.letter(0, 1) == "B")
        # A menu closes on Escape.
        ana.driver.find_element(By.XPATH, '//details[.//button[@data-action="check-word"]]/summary').click()
        until("the menu opens", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "details.menu[open]"))
        ana.driver.find_element(By.CSS_SELECTOR, "details.menu[open] button").send_keys(Keys.ESCAPE)
        until("Escape closes it", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, "details.menu[open]"))
        ana.screenshot("game-byline-desktop")
        # A player who is not the owner shares too; once removed, neither Share nor Nudge.
        ben = self.invited("Ben", game, ana)
        self.assertTrue(ben.driver.find_element(By.CSS_SELECTOR, "[data-share]").is_displayed())
        self.assertTrue(ben.driver.find_element(By.CSS_SELECTOR, "[data-nudge-button]").is_displayed())
        self.server.api("DELETE", f"/v1/games/{game}/participants/{ben.identity()['authorID']}", token=ana.token())
        until("Ben's game is read-only", lambda: not ben.driver.find_element(By.CSS_SELECTOR, "[data-share]").is_displayed())
        self.assertFalse(ben.driver.find_element(By.CSS_SELECTOR, "[data-nudge-button]").is_displayed())

    def test_any_player_shares_and_a_dead_link_makes_no_account(self):
        """Any player makes a link in a copy field; the owner sees and revokes every link, a
        player their own; a link says who invites to what before asking for a name, and a dead
        one says why without making an account."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        bens_link = ben.share_link()
        ben.driver.find_element(By.CSS_SELECTOR, "[data-share]").click()
        until("Ben's dialog lists his link", lambda: ben.driver.find_element(By.CSS_SELECTOR, "[data-links]").text.startswith("This link"))
        self.assertEqual(len(ben.driver.find_elements(By.CSS_SELECTOR, "[data-links] [data-revoke]")), 1)
        ben.screenshot("share-dialog-desktop")
        ben.driver.find_element(By.CSS_SELECTOR, "[data-share-close]").click()
        # Ana's Share makes nothing until she has picked how long the link works; she sees Ben's
        # link too (and the one Ben came in by, made by Ana).
        ana.driver.find_element(By.CSS_SELECTOR, "[data-share]").click()
        until("every link is listed", lambda: len(ana.driver.find_elements(By.CSS_SELECTOR, "[data-links] [data-revoke]")) == 2)
        self.assertFalse(ana.driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").is_displayed(), "no link made unasked")
        self.assertIn("Made by Ben", ana.driver.find_element(By.CSS_SELECTOR, "[data-links]").text)
        Select(ana.driver.find_element(By.CSS_SELECTOR, "[data-invite-lifetime]")).select_by_visible_text("For a day")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-make-link]").click()
        until("the day-long link", lambda: "expires in 24 hours" in ana.driver.find_element(By.CSS_SELECTOR, "[data-links]").text)
        anas_link = until("Ana's link", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").get_attribute("value"))
        self.assertEqual(len(ana.driver.find_elements(By.CSS_SELECTOR, "[data-links] [data-revoke]")), 3)
        # Ana revokes Ben's link.
        bens_row = next(row for row in ana.driver.find_elements(By.CSS_SELECTOR, "[data-links] li") if "Made by Ben" in row.text)
        bens_row.find_element(By.CSS_SELECTOR, "[data-revoke]").click()
        until("Ben's link is gone", lambda: "Made by Ben" not in ana.driver.find_element(By.CSS_SELECTOR, "[data-links]").text)
        ana.driver.find_element(By.CSS_SELECTOR, "[data-share-close]").click()
        # Cat opens Ben's dead link: told why, no name asked, no account made.
        cat = self.player("Cat")
        cat.open(bens_link[len(self.server.url):])
        message = until("the dead link is explained", lambda: cat.driver.find_element(By.CSS_SELECTOR, "[data-error]").text)
        self.assertIn("revoked", message)
        self.assertFalse(cat.driver.find_elements(By.NAME, "displayName"))
        self.assertIsNone(cat.driver.execute_script("return localStorage.getItem('crossmate.identity')"))
        # Ana's link says who invites to what before asking for a name.
        cat.open(anas_link[len(self.server.url):])
        heading = until("the invitation", lambda: cat.driver.find_element(By.CSS_SELECTOR, "[data-invitation]").text)
        self.assertEqual(heading, "Ana invited you to Green Light")
        self.assertIn("Ana and Ben are solving it", cat.driver.find_element(By.CSS_SELECTOR, ".welcome").text)
        cat.screenshot("invitation-desktop")
        cat.sign_up(anas_link[len(self.server.url):])
        until("Cat is in the game", lambda: cat.driver.current_url.endswith("/games/" + game))
        cat.wait_live()
        # On a phone, the dialog fits the screen.
        dan = self.player("Dan", width=390, height=844, mobile=True)
        dan.sign_up(anas_link[len(self.server.url):])
        until("Dan is in the game", lambda: dan.driver.current_url.endswith("/games/" + game))
        dan.wait_live()
        dan.driver.find_element(By.CSS_SELECTOR, "[data-more]").click()
        dan.driver.find_element(By.CSS_SELECTOR, "[data-share]").click()
        until("the share dialog", lambda: dan.driver.find_element(By.CSS_SELECTOR, "[data-make-link]")).click()
        until("Dan's link", lambda: dan.driver.find_element(By.CSS_SELECTOR, "[data-invite-link]").get_attribute("value"))
        self.assertLessEqual(dan.driver.execute_script("return document.querySelector('[data-share-dialog]').getBoundingClientRect().right"), 390)
        dan.screenshot("share-dialog-phone")

    def test_three_players_at_both_sizes_light_and_dark(self):
        """The screens a person judges by eye, with three players (one on a phone): a game in
        progress with everyone's letters and cursors, the keyboard, a confirmation, the finish
        and the list, at 1280×900 and 390×844, light and dark."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled("daybreak")
        ben = self.invited("Ben", game, ana, width=390, height=844, mobile=True)
        ana.click_square(0, 0, "across")
        ana.type("BETA")
        ben.click_square(2, 0, "across")
        for letter in "DAWN":
            ben.driver.find_element(By.CSS_SELECTOR, f'[data-key="{letter}"]').click()
        colour = lambda p, r: p.driver.execute_script(
            f"return getComputedStyle(document.querySelector('.letter[data-row=\"{r}\"][data-col=\"0\"]')).color")
        until("Ben's letters on Ana's screen", lambda: ana.row(2, 9).startswith("DAWN") and ben.row(0, 9).startswith("BETA"))
        before = {"ana": colour(ana, 0), "ben on ana's": colour(ana, 2), "ana on ben's": colour(ben, 0), "ben": colour(ben, 2)}
        # Ana stands on a square of her own (Cat's cursor starts at the first empty one, 5 Across).
        ana.click_square(2, 0, "across")
        until("Ben sees Ana move", lambda: ben.driver.find_elements(By.CSS_SELECTOR, "#cell-2-0.peer"))
        cat = self.invited("Cat", game, ana)
        # Opening the game, Cat sees both cursors and both see hers, before anyone moves.
        until("Cat sees Ana's and Ben's cursors", lambda: len(cat.driver.find_elements(By.CSS_SELECTOR, ".cell.peer")) == 2)
        until("Ana sees Cat's cursor", lambda: len(ana.driver.find_elements(By.CSS_SELECTOR, ".cell.peer")) == 2)
        until("Ben sees Cat's cursor", lambda: len(ben.driver.find_elements(By.CSS_SELECTOR, ".cell.peer")) == 2)
        # Colours are handed out in joining order: Cat's arrival moves nobody's.
        after = {"ana": colour(ana, 0), "ben on ana's": colour(ana, 2), "ana on ben's": colour(ben, 0), "ben": colour(ben, 2)}
        self.assertEqual(before, after, "a newcomer changed a colour")
        cat.click_square(4, 0, "across")
        cat.type("PLAUS")
        until("everyone's letters on Ana's screen", lambda: ana.row(0, 9).startswith("BETA") and ana.row(2, 9).startswith("DAWN")
              and ana.row(4, 9).startswith("PLAUS"))
        until("three on the roster", lambda: all(name in ana.driver.find_element(By.CSS_SELECTOR, ".roster").text for name in ["Ben", "Cat"]))
        until("the others' cursors", lambda: len(ana.driver.find_elements(By.CSS_SELECTOR, ".cell.peer")) == 2)
        colours = {ana.driver.execute_script(f"return getComputedStyle(document.querySelector('.letter[data-row=\"{r}\"][data-col=\"0\"]')).color")
                   for r in (0, 2, 4)}
        self.assertEqual(len(colours), 3, "each player's letters in their own colour")
        until("Ben sees Cat's letters", lambda: ben.row(4, 9).startswith("PLAUS"))

        def both(name):
            ana.screenshot(f"{name}-desktop")
            ben.screenshot(f"{name}-phone")

        def theme(value):
            for player in (ana, ben):
                now = self.server.api("GET", "/v1/me", token=player.token())["serverTime"]
                self.server.api("PUT", "/v1/settings", {"name": "theme", "value": value, "writtenAt": now}, token=player.token())
            for player in (ana, ben):
                until(f"{value} on {player.name}'s screen", lambda: player.driver.execute_script("return document.documentElement.dataset.theme") == value)

        theme("light")
        both("three-players-light")
        theme("dark")
        both("three-players-dark")
        # A confirmation, on each size.
        ana.action("reveal-puzzle", confirm=False)
        until("Ana's confirmation", lambda: ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-text]").text)
        ben.driver.find_element(By.CSS_SELECTOR, "[data-more]").click()
        ben.driver.find_element(By.XPATH, '//details[.//button[@data-action="clear-puzzle"]]/summary').click()
        ben.driver.find_element(By.CSS_SELECTOR, '[data-action="clear-puzzle"]').click()
        text = until("Ben's confirmation", lambda: ben.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-text]").text)
        self.assertIn("Ana's letters", text)
        both("confirm-dark")
        ben.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-no]").click()
        # The finish.
        ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-confirm-yes]").click()
        for player in (ana, ben, cat):
            until(f"{player.name} sees the finish", lambda: player.driver.find_elements(By.CSS_SELECTOR, "[data-completed]"))
        both("finish-dark")
        theme("light")
        both("finish-light")
        # The list.
        for player in (ana, ben):
            player.open("/")
            until("the list", lambda: player.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        self.assertIn("squares revealed", ana.driver.find_element(By.CSS_SELECTOR, f'[data-game="{game}"]').text)
        both("list-three-players-light")
        theme("dark")
        both("list-three-players-dark")

    def test_a_friends_cursor_goes_when_they_leave(self):
        """Peer cursors stayed two minutes after their player left; now they go with them."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        ben.click_square(2, 2, "down")
        until("Ben's cursor on Ana's grid", lambda: "peer" in ana.cell_classes(2, 2).split())
        ben.open("/")
        until("Ben's cursor is gone", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, ".cell.peer"), timeout=15)

    def test_following_a_player_until_typing(self):
        """Follow moves this cursor where another player's goes, says whom it follows, and
        stops when this player types."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        ben.click_square(2, 2, "down")
        follow = until("Ben can be followed", lambda: ana.driver.find_element(By.CSS_SELECTOR, "button[data-follow]"))
        follow.click()
        until("Ana's cursor on Ben's", lambda: ana.cursor() == "2,2,down")
        until("it says so", lambda: ana.driver.find_element(By.CSS_SELECTOR, "button[data-follow]").text == "Following"
              and ana.driver.find_element(By.CSS_SELECTOR, "button[data-follow]").get_attribute("aria-pressed") == "true")
        until("the keys are the grid's after Follow", lambda: ana.driver.execute_script(GRID_HAS_KEYS))
        # A click on nothing that takes the keys leaves them with the grid.
        ana.driver.find_element(By.TAG_NAME, "h1").click()
        until("still the grid's", lambda: ana.driver.execute_script(GRID_HAS_KEYS))
        ben.click_square(1, 0, "across")
        until("Ana's cursor follows", lambda: ana.cursor() == "1,0,across")
        ana.screenshot("game-following-desktop")
        ana.type("G")
        until("typed where Ben was", lambda: ana.row(1).startswith("G"))
        until("no longer following", lambda: ana.driver.find_element(By.CSS_SELECTOR, "button[data-follow]").text == "Follow")
        ben.click_square(2, 4, "down")
        until("Ben's cursor on Ana's grid", lambda: "peer" in ana.cell_classes(2, 4).split())
        self.assertEqual(ana.cursor(), "1,1,across")

    def test_chat_live_offline_unread_and_refused(self):
        """Two players chat beside the clues: a message reaches the other at once, one typed
        offline waits (shown as sending) and arrives after a reload, the list counts unread
        messages, and one the server refuses goes back on the line with the reason."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)

        def say(player, text):
            field = player.driver.find_element(By.CSS_SELECTOR, "[data-chat-input]")
            field.click()
            field.send_keys(text + "\n")

        def messages(player):
            return player.driver.execute_script(
                "return [...document.querySelectorAll('[data-chat-log] li')].map((li) => li.querySelector('.text').textContent)")

        say(ana, "try 4 Across")
        until("Ben reads it", lambda: messages(ben) == ["try 4 Across"])
        until("Ana's is sent", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "[data-chat-log] li[data-message]"))
        say(ben, "on it \U0001F440")
        until("both show both, in one order", lambda: messages(ana) == messages(ben) == ["try 4 Across", "on it \U0001F440"])
        # Typing in the chat never types in the grid.
        self.assertEqual(ana.row(0), "#....")
        # A message's react button shows only on the message pointed at or tapped: the
        # conversation is not a column of + buttons.
        add = ben.driver.find_element(By.CSS_SELECTOR, "[data-chat-log] li[data-message] [data-react]")
        shown = lambda: float(add.value_of_css_property("opacity")) > 0
        ActionChains(ben.driver).move_to_element(ben.driver.find_element(By.CSS_SELECTOR, "[data-chat-input]")).perform()
        until("no react button while the pointer is elsewhere", lambda: not shown())
        # Ben reacts to Ana's message (tapping it first); Ana adds hers to it, then takes it back.
        ben.driver.find_element(By.CSS_SELECTOR, "[data-chat-log] li[data-message] .text").click()
        until("the tapped message's react button", shown)
        add.click()
        ben.driver.find_element(By.CSS_SELECTOR, '[data-chat-log] [data-pick="👍"]').click()

        def chip(player):
            chips = player.driver.find_elements(By.CSS_SELECTOR, '[data-chat-log] li[data-message] [data-reaction="👍"]')
            return (chips[0].text, chips[0].get_attribute("aria-pressed")) if chips else None

        until("Ana sees Ben's reaction", lambda: chip(ana) == ("👍 1", "false"))
        self.assertIn("Ben", ana.driver.find_element(By.CSS_SELECTOR, '[data-reaction="👍"]').get_attribute("aria-label"))
        ana.driver.find_element(By.CSS_SELECTOR, '[data-reaction="👍"]').click()
        until("hers too", lambda: chip(ana) == ("👍 2", "true") and chip(ben) == ("👍 2", "true"))
        ana.screenshot("game-chat-desktop")
        ana.driver.find_element(By.CSS_SELECTOR, '[data-reaction="👍"]').click()
        until("taken back", lambda: chip(ana) == ("👍 1", "false") and chip(ben) == ("👍 1", "true"))
        # Offline: the message waits as sending, survives a reload, and goes when the server is back.
        until("the service worker", lambda: ana.driver.execute_script("return !!navigator.serviceWorker.controller"))
        ben.open("/")
        until("Ben's list", lambda: ben.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        self.server.kill()
        until("Ana sees she is offline", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") != "live")
        say(ana, "back in five")
        until("shown as sending", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "[data-chat-log] li[data-sending]"))
        ana.driver.refresh()
        until("still sending after a reload", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "[data-chat-log] li[data-sending]")
              and messages(ana)[-1] == "back in five")
        self.server.start()
        until("sent", lambda: not ana.driver.find_elements(By.CSS_SELECTOR, "[data-chat-log] li[data-sending]")
              and messages(ana) == ["try 4 Across", "on it \U0001F440", "back in five"], timeout=30)
        # Ben was on his list: one new message from Ana, counted there and in the title.
        until("the unread count", lambda: ben.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"] [data-unread-messages="1"]'), timeout=30)
        until("the count in the title", lambda: ben.driver.title.startswith("(1)"))
        ben.screenshot("list-unread-messages-desktop")
        ben.driver.find_element(By.CSS_SELECTOR, f'[data-game="{game}"] a').click()
        until("Ben reads it", lambda: messages(ben)[-1:] == ["back in five"])
        # Refused (a control character cannot be typed, so an over-long message is sent as
        # the page would send it): the reason is said and the text is back on the line.
        long = "x" * 1001
        ana.driver.execute_script("document.querySelector('[data-chat-input]').value = arguments[0]", long)
        ana.driver.find_element(By.CSS_SELECTOR, "[data-chat-send]").click()
        self.assertIn("too long", ana.driver.find_element(By.CSS_SELECTOR, ".chat-count").text)
        self.assertEqual(len(messages(ana)), 3)

    def test_chat_on_a_phone(self):
        """On a 390×844 touch screen the Chat button counts what arrived out of sight, opens the
        chat as a sheet over the grid, and the on-screen keyboard steps aside while the
        system's types."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        game = ana.start_bundled("daybreak")
        ben = self.invited("Ben", game, ana)
        # The chat is a sheet, closed: the grid and the keyboard have the screen.
        self.assertFalse(ana.driver.find_element(By.CSS_SELECTOR, '[data-sheet="chat"]').is_displayed())
        ana.screenshot("game-chat-first-phone")
        for text in ["17 Across is a river", "no, a bird"]:
            field = ben.driver.find_element(By.CSS_SELECTOR, "[data-chat-input]")
            field.click()
            field.send_keys(text + "\n")
        until("the count on Ana's Chat button", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-chat-unseen]").text == "2")
        self.assertTrue(ana.driver.title.startswith("(2)"))
        ana.screenshot("game-chat-unseen-phone")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-chat-button]").click()
        until("the sheet opens", lambda: ana.driver.find_element(By.CSS_SELECTOR, '[data-sheet="chat"]').is_displayed())
        until("the count goes", lambda: not ana.driver.find_element(By.CSS_SELECTOR, "[data-chat-unseen]").is_displayed())
        until("the dock steps aside", lambda: not ana.driver.find_element(By.CSS_SELECTOR, "[data-dock]").is_displayed())
        ana.driver.find_element(By.CSS_SELECTOR, "[data-chat-input]").send_keys("ha\n")
        until("sent", lambda: ben.driver.execute_script(
            "return [...document.querySelectorAll('[data-chat-log] li .text')].map((t) => t.textContent).at(-1)") == "ha")
        self.assertLessEqual(ana.driver.execute_script("return document.scrollingElement.scrollHeight - innerHeight"), 0, "the page never scrolls")
        ana.screenshot("game-chat-phone")
        ana.driver.execute_script("document.documentElement.dataset.theme = 'dark'")
        ana.screenshot("game-chat-phone-dark")
        # Closed, the grid has the keys and the keyboard is back.
        ana.driver.find_element(By.CSS_SELECTOR, '[data-sheet="chat"] [data-sheet-close]').click()
        until("the keyboard is back", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-dock]").is_displayed())

    def test_a_rebus_being_typed_reads_on_a_phone(self):
        """A rebus typed into a 24-pixel square is drawn there too small to read: while it is
        open it shows over its square at a size that reads, inside the grid, and goes when
        it is written."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        ana.start_bundled("daybreak")
        ana.click_square(0, 3, "across")
        key = lambda name: ana.driver.find_element(By.CSS_SELECTOR, f'[data-key="{name}"]').click()
        key("rebus")
        for letter in "HEART":
            key(letter)
        entry = ana.driver.find_element(By.CSS_SELECTOR, ".rebus-entry")
        until("the entry shows what is typed", lambda: entry.is_displayed() and entry.text == "HEART")
        box = ana.driver.execute_script("""
            const entry = document.querySelector('.rebus-entry').getBoundingClientRect();
            const grid = document.querySelector('.grid').getBoundingClientRect();
            const square = document.querySelector('#cell-0-3').getBoundingClientRect();
            return { size: parseFloat(getComputedStyle(document.querySelector('.rebus-entry')).fontSize),
                     inside: entry.left >= grid.left - 1 && entry.right <= grid.right + 1 && entry.top >= grid.top - 1,
                     over: entry.top <= square.top && entry.bottom >= square.bottom, width: entry.width, squareWidth: square.width };""")
        self.assertGreaterEqual(box["size"], 16, box)
        self.assertTrue(box["inside"] and box["over"], box)
        self.assertGreater(box["width"], 2 * box["squareWidth"], box)
        ana.screenshot("rebus-typing-phone")
        key("rebus")  # the rebus key says Enter while one is open: it writes the entry
        until("written", lambda: ana.letter(0, 3) == "HEART")
        until("the entry goes", lambda: not entry.is_displayed())
        ana.screenshot("rebus-written-phone")

    def test_downloading_a_game_and_all_games(self):
        """A player downloads the game as a file another app opens (checked by puzpy, an
        independent .puz reader: her letters are in it), and all her games in one zip."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled("green-light")
        ana.type("ALSO")
        until("saved", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").get_attribute("data-sync") == "live"
              and self.server.api("GET", f"/v1/games/{game}/export?format=ipuz&fill=1", token=ana.token()) is not None)
        folder = os.path.join(self.directory, "downloads")
        os.makedirs(folder)
        ana.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
        ana.driver.find_element(By.XPATH, '//details[.//button[@data-download-format="puz"]]/summary').click()
        ana.driver.find_element(By.CSS_SELECTOR, '[data-download-format="puz"]').click()
        path = os.path.join(folder, "Green Light.puz")
        until("the file", lambda: os.path.exists(path) and os.path.getsize(path) > 0)
        try:
            import puz
        except ImportError:
            self.fail("puzpy is not in the venv (scripts/test-all.sh installs it)")
        read = puz.read(path)
        self.assertEqual(read.title, "Green Light")
        self.assertEqual(read.fill[:5], ".ALSO", read.fill)  # (puzpy: "." a block, "-" an empty square)
        self.assertEqual(read.fill[5:], "-" * 19 + ".", read.fill)
        self.assertEqual(read.solution[:5], ".ALSO", read.solution)
        self.assertIn("Saved Green Light.puz", ana.toast())
        # A finished game still downloads: its menu is not among the tools a finish turns off.
        ana.action("reveal-puzzle")
        until("finished", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "[data-completed]"))
        menu = ana.driver.find_element(By.CSS_SELECTOR, "details[data-download]")
        self.assertNotIn("disabled", menu.get_attribute("class"))
        menu.find_element(By.TAG_NAME, "summary").click()
        ana.driver.find_element(By.CSS_SELECTOR, '[data-download-format="ipuz"]').click()
        finished = os.path.join(folder, "Green Light.ipuz")
        until("the finished game's file", lambda: os.path.exists(finished) and os.path.getsize(finished) > 0)
        # All games, from the list.
        ana.open("/")
        until("the list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        ana.driver.find_element(By.CSS_SELECTOR, "[data-download-all]").click()
        archive = os.path.join(folder, "crossmate-games.zip")
        until("the zip", lambda: os.path.exists(archive) and os.path.getsize(archive) > 0)
        import zipfile
        with zipfile.ZipFile(archive) as opened:
            self.assertIsNone(opened.testzip())
            self.assertEqual(opened.namelist(), ["Green Light.ipuz"])
            saved = json.loads(opened.read("Green Light.ipuz"))["saved"]
            self.assertEqual("".join(square for square in saved[0] if isinstance(square, str) and square.isalpha()), "ALSO", saved)

    def test_the_next_puzzle_together(self):
        """From a finished game, Ana starts the next puzzle with the same people: Ben, still on
        the finished page, goes straight into it; Cy, on her list, finds it there as news."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        cy = self.invited("Cy", game, ana)
        ana.action("reveal-puzzle")
        for player in (ana, ben):
            until("finished", lambda: player.driver.find_elements(By.CSS_SELECTOR, '[data-completed]'))
        cy.open("/")
        until("Cy's list", lambda: cy.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{game}"]'))
        ana.screenshot("game-finished-next-desktop")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-next]").click()
        until("the choice, saying who comes", lambda: ana.driver.find_element(By.CSS_SELECTOR, f'[data-together="{game}"]'))
        until("the puzzles", lambda: ana.driver.find_elements(By.CSS_SELECTOR, '[data-bundled="daybreak"]'))
        ana.driver.find_element(By.CSS_SELECTOR, '[data-bundled="daybreak"]').click()
        until("Ana in the new game", lambda: ana.driver.current_url.split("/games/")[-1] not in ("", game) and "/games/" in ana.driver.current_url)
        new_game = ana.driver.current_url.split("/games/")[-1]
        until("Ben goes straight in", lambda: ben.driver.current_url.endswith("/games/" + new_game), timeout=15)
        ben.wait_live()
        until("Ben is a player there", lambda: "Ben (you)" in ben.driver.find_element(By.CSS_SELECTOR, ".roster").text)
        until("Cy's list has it as news", lambda: cy.driver.find_elements(By.CSS_SELECTOR, f'[data-game="{new_game}"] [data-unread]'))
        cy.screenshot("list-next-puzzle-desktop")

    def test_flagging_a_clue_for_the_others(self):
        """Ana flags the word she is on; Ben sees it on the grid, in the clue list and the clue
        bar in her colour; filling the word takes the flag down for both."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        ana.click_square(1, 0, "across")
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, "[data-clue-bar]").text, "5 Across Colour of a go-ahead light")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-flag]").click()
        until("pressed for Ana", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-flag]").get_attribute("aria-pressed") == "true")
        until("Ben sees the corner", lambda: "flagged" in ben.cell_classes(1, 3).split())
        item = until("and the clue", lambda: ben.driver.find_element(By.CSS_SELECTOR, '.clues li.flagged[data-clue="5-across"]'))
        self.assertIn("⚑ Ana", item.text)
        ben.click_square(1, 0, "across")
        until("the clue bar says who", lambda: "⚑ Ana" in ben.driver.find_element(By.CSS_SELECTOR, "[data-clue-bar]").text)
        self.assertIn("flagged by Ana", ben.driver.find_element(By.ID, "cell-1-2").get_attribute("aria-label"))
        ben.screenshot("game-flagged-desktop")
        ben.type("GREEN")
        until("the full word takes it down", lambda: "flagged" not in ana.cell_classes(1, 3).split()
              and not ben.driver.find_elements(By.CSS_SELECTOR, ".clues li.flagged"))
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, "[data-flag]").get_attribute("aria-pressed"), "false")

    def test_stats_and_streaks(self):
        """The Stats page reads the finished games: solved, the streak, a bar for today in the
        chart, times by size, and the friend solved with; the Friends page says so too."""
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ben = self.invited("Ben", game, ana)
        ben.click_square(1, 0, "across")
        ben.type("GREEN")
        until("Ben's letters reach Ana", lambda: ana.row(1) == "GREEN")
        # Solved by typing, without help (a grid finished by revealing it is not a solve).
        for row, col, word in [(0, 1, "ALSO"), (2, 0, "LEGAL"), (3, 0, "UNITY"), (4, 0, "EATS")]:
            ana.click_square(row, col, "across")
            ana.type(word)
        until("solved", lambda: ana.driver.find_elements(By.CSS_SELECTOR, '[data-finish="solved"]'))
        ana.open("/")
        until("the list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "a.game"))
        ana.driver.find_element(By.CSS_SELECTOR, 'a[href="/stats"]').click()
        solved = until("the figures", lambda: ana.driver.find_element(By.CSS_SELECTOR, '[data-stat="solved"] strong'))
        self.assertEqual(solved.text, "1")
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, '[data-stat="streak"] strong').text, "1 day")
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, '[data-stat="clean"] strong').text, "1")
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, '[data-stat="clean-streak"] strong').text, "1 day")
        today = ana.driver.execute_script(
            "const d = new Date(); return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`")
        bar = ana.driver.find_element(By.CSS_SELECTOR, f'.chart rect[data-day="{today}"]')
        self.assertEqual(bar.get_attribute("class"), "solved")
        self.assertIn("5×5", ana.driver.find_element(By.CSS_SELECTOR, "[data-times]").text)
        self.assertIn("Ben", ana.driver.find_element(By.CSS_SELECTOR, "[data-together]").text)
        self.assertNotIn("null", ana.driver.find_element(By.TAG_NAME, "main").text)
        ana.screenshot("stats-desktop")
        ana.open("/friends")
        until("Ben's row says what they solved", lambda: "1 solved" in ana.driver.find_element(By.CSS_SELECTOR, "[data-friend-meta]").text)
        phone = self.player("Ana on a phone", width=390, height=844, mobile=True)
        phone.driver.get(self.server.url + "/")
        phone.driver.execute_script("localStorage.setItem('crossmate.identity', arguments[0])",
                                    ana.driver.execute_script("return localStorage.getItem('crossmate.identity')"))
        for theme in ["light", "dark"]:
            phone.open("/stats")
            until("the figures on a phone", lambda: phone.driver.find_element(By.CSS_SELECTOR, '[data-stat="solved"]'))
            phone.driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
            overflow = phone.driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            self.assertLessEqual(overflow, 0)
            phone.screenshot(f"stats-phone-{theme}")

    def test_finished_games_are_listed_apart(self):
        """Games in progress come first; finished ones are apart below them."""
        ana = self.player("Ana")
        ana.sign_up()
        first = ana.start_bundled("green-light")
        ana.open("/")
        second = ana.start_bundled("daybreak")
        ana.action("reveal-puzzle")
        until("solved", lambda: ana.driver.find_elements(By.CSS_SELECTOR, '[data-completed="solved"]'))
        ana.open("/")
        until("both listed", lambda: len(ana.driver.find_elements(By.CSS_SELECTOR, "li[data-game]")) == 2)
        order = ana.driver.execute_script(
            "return [...document.querySelectorAll('li[data-game], li[data-section]')].map((li) => li.dataset.game ?? li.dataset.section)")
        self.assertEqual(order, [first, "finished", second])
        ana.screenshot("list-finished-apart-desktop")

    def test_a_long_title_never_scrolls_sideways(self):
        """A 180-character title (puzpy's nyt_rebus_with_notes_and_shape.puz has one) made the
        page 2,163 px wide. No page may scroll sideways, at either size, with any puzzle."""
        title = "An Exceedingly Long Puzzle Title " * 6
        xd = f"Title: {title[:180]}\nAuthor: Ana\n\n\nAB\nCD\n\n\nA1. Top ~ AB\nA3. Bottom ~ CD\n\nD1. Left ~ AC\nD2. Right ~ BD\n"
        for size, options in [("desktop", {}), ("phone", {"width": 390, "height": 844, "mobile": True})]:
            ana = self.player("Ana", **options)
            ana.sign_up()
            game = self.server.api("POST", "/v1/games", {"fileName": "long.xd", "fileBase64": base64.b64encode(xd.encode()).decode()},
                                   token=ana.token())
            for path in ["/", "/games/" + game["gameID"]]:
                ana.open(path)
                if path != "/":
                    ana.wait_live()
                else:
                    until("the list", lambda: ana.driver.find_elements(By.CSS_SELECTOR, "a.game"))
                overflow = ana.driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                self.assertLessEqual(overflow, 0, f"{path} at {size} size scrolls {overflow} px sideways")
            ana.screenshot(f"long-title-{size}")

    def test_a_fifteen_by_fifteen_solved_with_a_thumb(self):
        """On a 390×844 touch screen: an on-screen keyboard (the system's stays down), the clue
        bar just above it, one toolbar row, squares of at least 24 px and numbers of at least
        8 px, controls at least 24 px and keys at least 40 px tall; the whole puzzle solved by
        tapping keys."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        text, answers = fifteen_xd()
        game = self.server.api("POST", "/v1/games", {"fileName": "fifteen.xd", "fileBase64": base64.b64encode(text.encode()).decode()}, token=ana.token())
        ana.open("/games/" + game["gameID"])
        ana.wait_live()
        driver = ana.driver
        keyboard = until("the on-screen keyboard", lambda: driver.find_element(By.CSS_SELECTOR, "[data-keyboard]"))
        self.assertTrue(keyboard.is_displayed())
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "[data-keys]").get_attribute("inputmode"), "none")
        sizes = driver.execute_script("""
            const box = (node) => node.getBoundingClientRect();
            const cell = box(document.querySelector('.cell[data-r="0"][data-c="0"]'));
            const num = parseFloat(getComputedStyle(document.querySelector('.cell .num')).fontSize);
            const keys = [...document.querySelectorAll('[data-key]')].map((key) => box(key).height);
            const small = [...document.querySelectorAll('button, summary, a, input, select')]
              .filter((node) => node.offsetParent !== null && !node.classList.contains('keys'))
              .map((node) => [node.textContent.trim() || node.getAttribute('aria-label'), box(node)])
              .filter(([, b]) => b.width < 24 || b.height < 24).map(([name, b]) => `${name} ${b.width}x${b.height}`);
            const toolbar = [...document.querySelector('.toolbar').children].filter((node) => node.offsetParent !== null).map((node) => box(node));
            const rows = new Set(toolbar.map((b) => Math.round(b.top + b.height / 2) >> 3)).size;
            return { cell: cell.width, num, key: Math.min(...keys), keyCount: keys.length, small, rows,
                     clueBottom: box(document.querySelector('.dock .cluebar')).bottom, keyboardTop: box(document.querySelector('[data-keyboard]')).top,
                     gridBottom: box(document.querySelector('.grid')).bottom, dockTop: box(document.querySelector('[data-dock]')).top,
                     sideways: document.documentElement.scrollWidth - innerWidth };
        """)
        self.assertGreaterEqual(sizes["cell"], 24, sizes)
        self.assertGreaterEqual(sizes["num"], 8, sizes)
        self.assertGreaterEqual(sizes["key"], 40, sizes)
        self.assertEqual(sizes["keyCount"], 28, sizes)
        self.assertEqual(sizes["small"], [], sizes)
        self.assertLessEqual(sizes["rows"], 2, sizes)  # centres within 8 px: one row
        self.assertLessEqual(sizes["clueBottom"], sizes["keyboardTop"], sizes)
        self.assertLessEqual(sizes["gridBottom"], sizes["dockTop"], "the dock covers the grid")
        self.assertLessEqual(sizes["sideways"], 0, sizes)
        ana.screenshot("keyboard-phone")
        # The clue bar steps clues and a tap on it turns the direction.
        start = ana.cursor()
        driver.find_element(By.CSS_SELECTOR, '[data-clue-step="tab"]').click()
        until("the next clue", lambda: ana.cursor() != start)
        driver.find_element(By.CSS_SELECTOR, '[data-clue-step="shiftTab"]').click()
        until("back to the first clue", lambda: ana.cursor() == start)
        driver.find_element(By.CSS_SELECTOR, ".dock .cluebar").click()
        until("the direction turns", lambda: ana.cursor() == start.replace("across", "down"))
        driver.find_element(By.CSS_SELECTOR, ".dock .cluebar").click()
        until("and back", lambda: ana.cursor() == start)
        # Solve by tapping keys wherever the cursor goes.
        # (Skipping filled squares, each tap fills a new one: as many taps as letter squares.)
        squares = 225 - sum(line.count("#") for line in FIFTEEN_BLOCKS)
        for _ in range(squares):
            row, col, _ = ana.cursor().split(",")
            driver.find_element(By.CSS_SELECTOR, f'[data-key="{answers[int(row)][int(col)]}"]').click()
        solved = until("solved", lambda: driver.find_element(By.CSS_SELECTOR, "[data-completed]"))
        self.assertEqual(solved.get_attribute("data-completed"), "solved")
        self.assertFalse(keyboard.is_displayed(), "the keyboard goes once the grid is final")
        ana.screenshot("finished-phone")

    def test_settings_autocheck_dark_mode_and_pause(self):
        """Settings are kept with the account (another device of it solves alike); autocheck marks
        a wrong letter as it is typed and counts as help; dark mode keeps the squares light;
        pause hides the grid and stops the clock."""
        ana = self.player("Ana")
        ana.sign_up()
        until("the settings", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-settings]")).click()
        box = until("the autocheck switch", lambda: ana.driver.find_element(By.CSS_SELECTOR, '[data-setting="autocheck"]'))
        self.assertFalse(box.is_selected())
        box.click()
        until("saved", lambda: self.server.api("GET", "/v1/settings", token=ana.token())["settings"]["autocheck"] == "on")
        from selenium.webdriver.support.ui import Select
        Select(ana.driver.find_element(By.CSS_SELECTOR, '[data-setting="theme"]')).select_by_value("dark")
        until("dark", lambda: ana.driver.execute_script("return document.documentElement.dataset.theme") == "dark")
        ana.screenshot("settings-dark-desktop")
        ana.driver.find_element(By.CSS_SELECTOR, "[data-settings-done]").click()
        paper = ana.driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        self.assertNotIn("251, 250, 247", paper)
        game = ana.start_bundled("green-light")
        cell = ana.driver.execute_script("return getComputedStyle(document.querySelector('.cell[data-r=\"1\"][data-c=\"1\"]')).backgroundColor")
        self.assertEqual(cell, "rgb(14, 17, 20)", "the squares are dark in the dark (PlayerColors.darkSquareBackground)")
        # Autocheck: a wrong letter is marked as it lands; a right one is not.
        ana.click_square(1, 0, "across")
        ana.type("GX")
        until("the wrong letter is marked", lambda: "wrong" in ana.cell_classes(1, 1))
        self.assertNotIn("wrong", ana.cell_classes(1, 0))
        self.assertNotIn("right", ana.cell_classes(1, 0))
        ana.screenshot("game-dark-desktop")
        # Another device of the account solves alike.
        ana.open("/link")
        code = until("a link code", lambda: re.fullmatch(r"\S{4,}", ana.driver.find_element(By.CSS_SELECTOR, "[data-link-code]").text)).group(0)
        phone = self.player("Ana's phone", width=390, height=844, mobile=True)
        phone.open("/")
        until("the code field", lambda: phone.driver.find_element(By.NAME, "linkCode")).send_keys(code + Keys.ENTER)
        until("dark on the phone too", lambda: phone.driver.execute_script("return document.documentElement.dataset.theme") == "dark")
        phone.open("/games/" + game)
        phone.wait_live()
        phone.screenshot("game-dark-phone")
        phone.driver.find_element(By.CSS_SELECTOR, '.cell[data-r="2"][data-c="0"]').click()
        phone.driver.find_element(By.CSS_SELECTOR, '[data-key="Q"]').click()
        until("autocheck on the phone", lambda: "wrong" in phone.cell_classes(2, 0))
        # Pause: the grid is hidden, the clock stands, typing does nothing; then it goes on.
        ana.open("/games/" + game)
        ana.wait_live()
        ana.driver.find_element(By.CSS_SELECTOR, "[data-pause]").click()
        cover = until("paused", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-paused]"))
        self.assertTrue(cover.is_displayed())
        held = ana.driver.find_element(By.CSS_SELECTOR, "[data-timer]").text
        until("the focus on the cover's button", lambda: ana.driver.execute_script("return document.activeElement.closest('[data-paused]') !== null"))
        undo_seen = ana.driver.execute_script("return document.querySelector('[data-undo]').disabled")
        for key, ctrl in [("Z", False), ("z", True)]:
            ana.driver.execute_script(
                "document.querySelector('[data-keys]').dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0], ctrlKey: arguments[1], bubbles: true}))", key, ctrl)
        ana.screenshot("paused-dark-desktop")
        time.sleep(1.2)  # the clock must not move while paused: wall time has to pass to show it
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, "[data-timer]").text, held)
        self.assertNotIn("Z", [ana.letter(1, c) for c in range(5)])
        self.assertEqual(ana.letter(1, 1), "X", "Ctrl+Z undid a letter while paused")
        self.assertEqual(ana.driver.execute_script("return document.querySelector('[data-undo]').disabled"), undo_seen)
        # The server keeps the pause: the shared clock stops counting Ana's time at it.
        changes = lambda: self.server.api("GET", f"/v1/games/{game}/changes", token=ana.token())["changes"]
        until("the pause is stored", lambda: [c for c in changes() if c["type"] == "pause" and c["record"]["authorID"] == ana.identity()["authorID"]])
        cover.find_element(By.TAG_NAME, "button").click()
        until("going on", lambda: not cover.is_displayed())
        # The scoreboard counts autocheck as help: finish and read it.
        ana.action("reveal-puzzle")
        until("finished", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-completed]"))
        self.assertIn("check", ana.driver.find_element(By.CSS_SELECTOR, ".scores").text)

    def test_the_clue_lists_and_the_current_square_from_the_keyboard(self):
        """The current square is announced through aria-activedescendant; Escape leaves the grid
        for the current clue, arrows move through the clues, Enter goes to one, Escape comes back."""
        ana = self.player("Ana")
        ana.sign_up()
        ana.start_bundled("daybreak")
        driver = ana.driver
        active = lambda: driver.execute_script("return document.activeElement")
        described = lambda: driver.execute_script(
            "const id = document.activeElement.getAttribute('aria-activedescendant'); return id && document.getElementById(id).getAttribute('aria-label')")
        until("the first square is described", lambda: described().startswith("1 Across, square 1 of 4"))
        ana.type(Keys.ARROW_RIGHT)
        until("the next square is described", lambda: described().startswith("1 Across, square 2 of 4"))
        ana.type(Keys.ESCAPE)
        clue = lambda: driver.execute_script("return document.activeElement.closest('[data-clue]')?.dataset.clue")
        until("the current clue has the focus", lambda: clue() == "1-across")
        # A button that says its direction and that it is the current clue.
        self.assertEqual(active().tag_name, "button")
        self.assertEqual(active().get_attribute("aria-current"), "true")
        self.assertIn("1 Across:", driver.execute_script("return document.activeElement.textContent"))
        active().send_keys(Keys.ARROW_DOWN)
        until("the next clue", lambda: clue() == "5-across")
        self.assertNotEqual(active().get_attribute("aria-current"), "true")
        active().send_keys(Keys.ARROW_RIGHT)
        until("the Down list", lambda: clue() == "1-down")
        active().send_keys(Keys.ARROW_DOWN, Keys.ENTER)
        until("the grid at 2 Down", lambda: ana.cursor() == "0,1,down" and active().get_attribute("data-keys") is not None)
        ana.type(Keys.ESCAPE)
        until("the clue list again, at 2 Down", lambda: clue() == "2-down")
        active().send_keys(Keys.ESCAPE)
        until("back in the grid", lambda: active().get_attribute("data-keys") is not None)

    def test_a_file_dropped_on_the_list_starts_a_game(self):
        """Drag and drop: a bad file's error shows in sight, next to the upload control; a good
        one starts the game."""
        ana = self.player("Ana", width=390, height=844, mobile=True)
        ana.sign_up()
        until("the list", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-drop]"))
        drop = """
            const [name, text] = arguments;
            const files = new DataTransfer();
            files.items.add(new File([text], name));
            document.querySelector('[data-drop]').dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
        """
        ana.driver.execute_script(drop, "broken.puz", "not a puzzle at all")
        error = until("the upload error", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-upload-error]").text and ana.driver.find_element(By.CSS_SELECTOR, "[data-upload-error]"))
        self.assertIn("broken.puz", error.text)
        seen = ana.driver.execute_script("const b = arguments[0].getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight", error)
        self.assertTrue(seen, "the upload error is out of sight")
        ana.screenshot("list-upload-error-phone")
        text, _ = fifteen_xd()
        ana.driver.execute_script(drop, "fifteen.xd", text)
        until("the game page", lambda: re.search(r"/games/[^/]+$", ana.driver.current_url))
        ana.wait_live()
        self.assertEqual(ana.driver.find_element(By.CSS_SELECTOR, ".toolbar h1").text, "Fifteen")

    def test_the_list_puts_the_latest_news_first_with_dates(self):
        """The games list was sorted by creation, so the game with news sat ninth. Now the game
        that changed last comes first, each with when it changed."""
        ana = self.player("Ana")
        ana.sign_up()
        older = ana.start_bundled("green-light")
        ana.open("/")
        newer = ana.start_bundled("daybreak")
        ana.open("/")
        order = lambda: [item.get_attribute("data-game") for item in ana.driver.find_elements(By.CSS_SELECTOR, ".games li[data-game]")]
        until("the newer game first", lambda: order() == [newer, older])
        ana.open("/games/" + older)
        ana.wait_live()
        ana.type("A")
        until("the letter is saved", lambda: ana.driver.find_element(By.CSS_SELECTOR, "[data-sync]").text == "Live" and ana.letter(0, 1) == "A")
        ana.open("/")
        until("the game with news first", lambda: order() == [older, newer])
        stamps = [item.text for item in ana.driver.find_elements(By.CSS_SELECTOR, ".games time[data-active]")]
        self.assertEqual(len(stamps), 2)
        self.assertTrue(all(stamp.startswith("today") for stamp in stamps), stamps)
        ana.screenshot("list-latest-first-desktop")

    def test_every_page_is_clean_for_axe(self):
        """axe-core (bundled by axe-selenium-python): no serious or critical violation on any page,
        desktop and phone, light and dark, with the settings and a confirmation open too."""
        from axe_selenium_python import Axe

        problems = []

        def check(player, name):
            axe = Axe(player.driver)
            axe.inject()
            found = axe.run()["violations"]
            for violation in found:
                if violation["impact"] in ("serious", "critical"):
                    targets = [node["target"] for node in violation["nodes"][:3]]
                    problems.append(f"{name}: {violation['id']} ({violation['impact']}): {violation['help']} {targets}")

        for size, options in [("desktop", {}), ("phone", {"width": 390, "height": 844, "mobile": True})]:
            ana = self.player("Ana", **options)
            ana.open("/")
            until("the welcome", lambda: ana.driver.find_element(By.NAME, "displayName"))
            check(ana, f"welcome {size}")
            ana.sign_up()
            game = ana.start_bundled("daybreak")
            ana.type("BE")
            for theme in ["light", "dark"]:
                ana.driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
                ana.open("/games/" + game)
                ana.wait_live()
                ana.driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
                check(ana, f"game {size} {theme}")
                ana.driver.execute_script("document.querySelector('[data-settings]').click()")
                until("the settings", lambda: ana.driver.find_element(By.CSS_SELECTOR, "dialog[open] [data-setting]"))
                check(ana, f"settings {size} {theme}")
                ana.driver.find_element(By.CSS_SELECTOR, "[data-settings-done]").click()
                ana.driver.execute_script("document.querySelector('[data-action=\"clear-puzzle\"]').click()")
                until("the confirmation", lambda: ana.driver.find_element(By.CSS_SELECTOR, "dialog[open][data-confirm]"))
                check(ana, f"confirmation {size} {theme}")
                ana.driver.find_element(By.CSS_SELECTOR, "[data-confirm-no]").click()
                for path, ready in [("/", "a.game"), ("/friends", "#preferredColor"), ("/stats", "[data-stats-empty]"), ("/link", "[data-link-code]"),
                                    ("/join/nothing-here", "[data-error]")]:
                    ana.open(path)
                    until(path, lambda: ana.driver.find_element(By.CSS_SELECTOR, ready))
                    ana.driver.execute_script(f"document.documentElement.dataset.theme = '{theme}'")
                    check(ana, f"{path} {size} {theme}")
            ana.quit()
            self.players.remove(ana)
        self.assertEqual(problems, [], "\n".join(problems))

    def test_a_browser_and_a_native_client_play_the_same_game(self):
        ana = self.player("Ana")
        ana.sign_up()
        game = ana.start_bundled()
        ana.type("ALSO")
        link = ana.share_link()
        # Carl uses the terminal client's engine (`crossmate` join/sync/games) on his own profile.
        home = dict(os.environ, XDG_DATA_HOME=os.path.join(self.directory, "carl"))
        run = lambda *arguments: subprocess.run([CROSSMATE, *arguments], env=home, check=True, capture_output=True, text=True).stdout
        run("login", "--server", self.server.url, "--name", "Carl")
        run("join", link)
        until("Carl's engine has Ana's letters", lambda: '"filled":4' in (run("sync") and run("games", "--json")))
        # Dan is a device driven through the HTTP API: his move shows in Ana's browser.
        dan = self.server.api("POST", "/v1/accounts", {"displayName": "Dan"})
        self.server.api("POST", "/v1/invitations/" + link.rsplit("/", 1)[1] + "/accept", {}, token=dan["token"])
        now = self.server.api("GET", "/v1/me", token=dan["token"])["serverTime"]
        move = {"gameID": game, "replicaID": dan["deviceID"], "authorID": dan["account"]["authorID"], "seq": 1,
                "timestamp": {"wallMillis": now, "counter": 0}, "row": 4, "col": 0, "letter": "E", "mark": 0,
                "cellAuthorID": dan["account"]["authorID"], "kind": "input", "batchID": dan["deviceID"] + ":1"}
        answer = self.server.api("POST", f"/v1/games/{game}/moves", {"moves": [move]}, token=dan["token"])
        self.assertEqual(answer["results"][0]["status"], "saved")
        until("Ana sees Dan's letter", lambda: ana.letter(4, 0) == "E")
        until("Dan is on Ana's roster", lambda: "Dan" in ana.driver.find_element(By.CSS_SELECTOR, ".roster").text)
        ana.open("/")
        until("the list shows the game's progress", lambda: "5 of 23" in ana.driver.find_element(By.CSS_SELECTOR, ".games").text)
        ana.screenshot("list-with-game-desktop")

    def test_benchmark_keystroke_to_the_other_screen(self):
        """Not a pass/fail check: measures and records (BENCHMARKS.md explains the figures)."""
        (ana, ben), game = self.solving_together("Ana", "Ben")
        ana.driver.execute_script(
            "window.__typed = []; document.querySelector('[data-keys]').addEventListener('keydown', (e) => "
            "__typed.push({ key: e.key.toUpperCase(), at: performance.timeOrigin + performance.now(), "
            "cursor: document.querySelector('.grid').dataset.cursor }), true)")
        ben.driver.execute_script(
            "window.__seen = []; new MutationObserver((records) => { const at = performance.timeOrigin + performance.now(); "
            "for (const r of records) { const span = r.target.nodeType === 1 ? r.target : r.target.parentElement; "
            "if (span?.dataset?.row !== undefined) __seen.push({ square: span.dataset.row + ',' + span.dataset.col, text: span.textContent, at }); } })"
            ".observe(document.querySelector('.grid'), { subtree: true, childList: true, characterData: true })")
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        keys = ana.driver.find_element(By.CSS_SELECTOR, "[data-keys]")
        for lap in range(2):
            for i in range(60):
                keys.send_keys(letters[(i + lap) % 26])
                time.sleep(0.05)  # pacing, as a quick typist types
            until("Ben has the round", lambda: len(ben.driver.execute_script("return __seen")) >= 60 * (lap + 1), timeout=30)
            if lap == 0:
                ana.action("clear-puzzle")
                until("cleared", lambda: all(ben.letter(0, c) == "" for c in range(3)))
                ben.driver.execute_script("__seen = __seen.filter((s) => s.text !== '')")
                ana.click_square(0, 0, "across")
        typed = ana.driver.execute_script("return __typed")
        seen = ben.driver.execute_script("return __seen")
        latencies = []
        for entry in typed:
            row, col, _ = entry["cursor"].split(",")
            square = f"{row},{col}"
            match = next((s for s in seen if s["square"] == square and s["text"] == entry["key"] and s["at"] >= entry["at"]), None)
            if match:
                latencies.append(match["at"] - entry["at"])
                seen.remove(match)
        latencies.sort()
        weight = sum(len(urllib.request.urlopen(self.server.url + path).read())
                     for path in ["/", "/app/app.js", "/app/dom.js", "/app/nav.js", "/app/connection.js", "/app/gameslist.js", "/app/game.js", "/app/gameview.js", "/app/gamemodel.js", "/app/gridview.js", "/app/toolbar.js", "/app/outbox.js", "/app/gamestate.js", "/app/replay.js", "/app/keys.js", "/app/api.js", "/app/routes.js", "/app/queue.js",
                                  "/app/settings.js", "/app/settingsdialog.js", "/app/ending.js", "/app/chat.js", "/app/share.js", "/app/style.css", "/app/icon.svg", "/sw.js"])
        # What a first visit transfers before the page is usable, as Chromium counts it (bodies
        # as sent, gzipped): a fresh browser opening the list, and one opening a game — there,
        # what was asked for before the grid was drawn (the page marks it; the chat follows),
        # and what came after.
        def first_load(path, ready, drawn=None):
            fresh = self.player("Fresh", width=390, height=844, mobile=True)
            fresh.open("/v1")  # (same origin, none of the app: to sign the fresh browser in)
            fresh.driver.execute_script("localStorage.setItem('crossmate.identity', arguments[0])", json.dumps(ana.identity()))
            fresh.open(path)
            until("the page is ready", lambda: fresh.driver.find_elements(By.CSS_SELECTOR, ready))
            if drawn:
                until("everything asked for has come", lambda: fresh.driver.execute_script(
                    "return performance.getEntriesByType('resource').every((e) => e.responseEnd > 0)"
                    " && !!document.querySelector('[data-chat]')"))
            return fresh.driver.execute_script(
                "const at = arguments[0] ? performance.getEntriesByName(arguments[0])[0].startTime : Infinity;"
                "const sizes = { before: 0, after: 0, files: {} };"
                "for (const e of performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')))"
                "  if (!e.name.includes('/v1/')) {"
                "    sizes[e.startTime <= at ? 'before' : 'after'] += e.encodedBodySize;"
                "    if (e.startTime <= at) sizes.files[new URL(e.name).pathname] = e.encodedBodySize;"
                "  }"
                "return sizes", drawn)
        list_bytes = first_load("/", "[data-game]")["before"]
        game_load = first_load("/games/" + game, "[data-sync=live]", drawn="crossmate-grid-drawn")
        game_bytes = game_load["before"]
        result = {
            "keystrokes": 120, "measured": len(latencies),
            "p50_ms": round(statistics.median(latencies), 1),
            "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 1),
            "max_ms": round(latencies[-1], 1),
            "page_weight_bytes": weight,
            "first_load_list_gzipped_bytes": list_bytes,
            "first_load_game_gzipped_bytes": game_bytes,
            "game_after_grid_drawn_gzipped_bytes": game_load["after"],
        }
        print("\nkeystroke to the other browser's screen (two Chromium pages, one machine)")
        print(f"  keystrokes {result['keystrokes']}  measured {result['measured']}  p50 {result['p50_ms']} ms  p99 {result['p99_ms']} ms  max {result['max_ms']} ms")
        print(f"  page weight (HTML + CSS + JS + icon, uncompressed): {weight} bytes")
        print(f"  first load as sent (gzipped bodies): the list {list_bytes} bytes, a game {game_bytes} bytes (then {game_load['after']} once the grid is drawn)")
        print("  a game's first load, file by file: " + ", ".join(f"{name} {size}" for name, size in sorted(game_load["files"].items(), key=lambda item: -item[1])))
        if ARTIFACTS:
            os.makedirs(ARTIFACTS, exist_ok=True)
            with open(os.path.join(ARTIFACTS, "web-bench.json"), "w") as handle:
                json.dump(result, handle, indent=1)
        self.assertGreater(len(latencies), 100)

    def test_benchmark_browsers_typing_at_once(self):
        """Not a pass/fail check: two, then three browsers type at once, each in a word of its own
        (Daybreak's rows 1, 7 and 9), a key every 50 ms; every keystroke is timed from its keydown
        to the letter on each other browser's screen (BENCHMARKS.md explains the figures)."""
        players, _ = self.solving_together("Ana", "Ben", "Cy")
        for player in players:
            player.driver.execute_script(
                "window.__typed = []; document.querySelector('[data-keys]').addEventListener('keydown', (e) => "
                "__typed.push({ key: e.key.toUpperCase(), at: performance.timeOrigin + performance.now(), "
                "cursor: document.querySelector('.grid').dataset.cursor }), true);"
                "window.__seen = []; new MutationObserver((records) => { const at = performance.timeOrigin + performance.now(); "
                "for (const r of records) { const span = r.target.nodeType === 1 ? r.target : r.target.parentElement; "
                "if (span?.dataset?.row !== undefined) __seen.push({ square: span.dataset.row + ',' + span.dataset.col, text: span.textContent, at }); } })"
                ".observe(document.querySelector('.grid'), { subtree: true, childList: true, characterData: true })")
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        starts = [(0, 0), (6, 0), (8, 0)]
        rounds = 15

        def typist(index, player):
            for lap in range(rounds):
                player.click_square(*starts[index], "across")
                for i in range(4):
                    # A key as the keyboard sends it (DevTools' input events): Selenium's own
                    # send_keys runs its checks in the page first, work no typist's key costs.
                    letter = letters[(i + lap + 7 * index) % 26]
                    for kind in ["keyDown", "keyUp"]:
                        player.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": kind, "key": letter, "text": letter if kind == "keyDown" else "", "code": "Key" + letter})
                    time.sleep(0.05)  # pacing, as a quick typist types

        def server_cpu_seconds():
            with open(f"/proc/{self.server.process.pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        result = {}
        for count in [2, 3]:
            typing = players[:count]
            for player in players:
                player.driver.execute_script("__typed = []; __seen = []")
            cpu_before = server_cpu_seconds()
            threads = [threading.Thread(target=typist, args=(index, player)) for index, player in enumerate(typing)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            last = {(starts[index][0], col): letters[(col + rounds - 1 + 7 * index) % 26] for index in range(count) for col in range(4)}
            for player in players:
                missing = lambda: [(square, letter, player.letter(*square)) for square, letter in last.items() if player.letter(*square) != letter]
                try:
                    until(f"{player.name} has every last letter", lambda: not missing(), timeout=30)
                except AssertionError:
                    raise AssertionError(f"{player.name}'s screen lacks letters (square, typed, shown): {missing()}")
            server_cpu = server_cpu_seconds() - cpu_before
            typed = {player.name: player.driver.execute_script("return __typed") for player in typing}
            seen = {player.name: player.driver.execute_script("return __seen") for player in players}
            latencies = []
            for author, keystrokes in typed.items():
                for entry in keystrokes:
                    row, col, _ = entry["cursor"].split(",")
                    for watcher, shown in seen.items():
                        if watcher == author:
                            continue
                        match = next((s for s in shown if s["square"] == f"{row},{col}" and s["text"] == entry["key"] and s["at"] >= entry["at"]), None)
                        if match:
                            latencies.append(match["at"] - entry["at"])
                            shown.remove(match)
            latencies.sort()
            result[f"{count}_typing"] = {
                "keystrokes": sum(len(k) for k in typed.values()), "measured": len(latencies),
                "p50_ms": round(statistics.median(latencies), 1),
                "p90_ms": round(latencies[int(len(latencies) * 0.9)], 1),
                "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 1),
                "max_ms": round(latencies[-1], 1),
                "slowest": [round(x, 1) for x in latencies[-8:]],
                # The server's CPU (from /proc) over the round, per keystroke: each is performed
                # by the typist's hosted replica and shown by every other one.
                "server_cpu_ms_per_keystroke": round(server_cpu * 1000 / max(1, sum(len(k) for k in typed.values())), 2),
            }
            print(f"\n{count} browsers typing at once, keystroke to each other browser's screen: " + json.dumps(result[f"{count}_typing"]))
        if ARTIFACTS:
            os.makedirs(ARTIFACTS, exist_ok=True)
            with open(os.path.join(ARTIFACTS, "web-bench-typing.json"), "w") as handle:
                json.dump(result, handle, indent=1)
        self.assertGreater(result["3_typing"]["measured"], 300)


def main():
    global CROSSMATE, ARTIFACTS
    CROSSMATE = os.path.abspath(sys.argv[1])
    ARTIFACTS = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    result = unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:], exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
