#!/usr/bin/python3
"""Runs a systemd unit's ExecStart= confined as systemd would confine it, without systemd: for
testing the units deploy/ ships as they are shipped, on a machine (CI's) where systemd is not
PID 1. Run as root, with Debian's python3-seccomp.

What it applies from the unit's [Service] section, as systemd does:
  SystemCallFilter= (groups expanded by `systemd-analyze syscall-filter`, an allow-list then
  "~" lines taken away), SystemCallErrorNumber= (else a call outside the filter kills the
  process, SIGSYS), SystemCallArchitectures=native, RestrictAddressFamilies=, and
  MemoryDenyWriteExecute= as stacked seccomp filters; NoNewPrivileges=; DynamicUser= (a uid of
  its own, no supplementary groups, no capabilities: CapabilityBoundingSet=); UMask=;
  LimitNOFILE=; Environment= and $STATE_DIRECTORY; and in a mount namespace of its own
  ProtectSystem=strict (everything but /dev, /proc and /sys read-only), ProtectHome=yes,
  PrivateTmp=yes, PrivateDevices=yes, ProtectKernelTunables=yes, StateDirectory= (the directory
  given by --state, mounted at /var/lib/NAME) and PrivateNetwork=yes (a network namespace of
  its own). Not applied: ProtectProc=, RestrictNamespaces=, LockPersonality=, ProtectClock=,
  RestrictRealtime=, IPAddressDeny= (the filter refuses what they would in a service that does
  not try).

Usage:
  unit_sandbox.py UNIT --state DIR [--install DEST=SOURCE]... [--hide PATH]... [--set KEY=VALUE]...
The process becomes the unit's ExecStart (same pid), so signals sent to it reach the service.
"""
import argparse
import ctypes
import errno
import os
import resource
import shlex
import shutil
import stat
import subprocess
import sys

import seccomp

DYNAMIC_UID = 61_234  # in systemd's range for DynamicUser= (61184-65519)
API_FILESYSTEMS = ("/proc", "/sys", "/dev")
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38


def unit_service(path):
    """The [Service] section's settings, each key with its values in order (%% is %)."""
    settings, section = {}, None
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]" and "=" in line:
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip().replace("%%", "%"))
    return settings


def yes(settings, key):
    return (settings.get(key) or ["no"])[-1].lower() in ("yes", "true", "1", "on", "strict")


def expand(name, seen=None):
    """A syscall group's members (`systemd-analyze syscall-filter @group`), groups expanded."""
    seen = set() if seen is None else seen
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    listing = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True, check=True).stdout
    calls = set()
    for line in listing.splitlines()[1:]:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        calls |= expand(entry, seen)
    return calls


def run(command):
    subprocess.run(command, check=True)


def remount_readonly(point):
    subprocess.run(["mount", "-o", "remount,bind,ro", point], check=False, stderr=subprocess.DEVNULL)


def mounts():
    points = []
    for line in open("/proc/self/mountinfo"):
        points.append(line.split()[4].replace("\\040", " "))
    return points


def prepare_mounts(settings, options):
    run(["mount", "--make-rprivate", "/"])
    if yes(settings, "ProtectSystem"):
        for point in sorted(set(mounts())):
            if not any(point == api or point.startswith(api + "/") for api in API_FILESYSTEMS):
                remount_readonly(point)
    for destination, source in (item.split("=", 1) for item in options.install):
        folder = os.path.dirname(destination)
        run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", folder])
        shutil.copy2(source, destination)
        os.chmod(destination, 0o755)
        remount_readonly(folder)
    # The state directory and the files to install first: PrivateTmp and the hidden paths may
    # cover where they come from.
    state = None
    if settings.get("StateDirectory"):
        name = settings["StateDirectory"][-1]
        run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", "/var/lib"])
        state = f"/var/lib/{name}"
        os.mkdir(state)
        run(["mount", "--bind", options.state, state])
        run(["mount", "-o", "remount,bind,rw", state])  # the source's mount is read-only by now
        os.chown(state, DYNAMIC_UID, DYNAMIC_UID)
        os.chmod(state, int((settings.get("StateDirectoryMode") or ["0755"])[-1], 8))
        remount_readonly("/var/lib")
    if yes(settings, "ProtectKernelTunables"):
        for point in ("/proc/sys", "/sys"):
            run(["mount", "--bind", point, point])
            remount_readonly(point)
    hidden = list(options.hide)
    if yes(settings, "ProtectHome"):
        hidden += ["/home", "/root", "/run/user"]
    for path in hidden:
        if os.path.isdir(path):
            run(["mount", "-t", "tmpfs", "-o", "ro,mode=000", "tmpfs", path])
    if yes(settings, "PrivateTmp"):
        for path in ("/tmp", "/var/tmp"):
            if os.path.isdir(path):
                run(["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", path])
    if yes(settings, "PrivateDevices"):
        run(["mount", "-t", "tmpfs", "-o", "mode=755,nosuid", "tmpfs", "/dev"])
        for name, major, minor in (("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("random", 1, 8), ("urandom", 1, 9), ("tty", 5, 0)):
            os.mknod(f"/dev/{name}", 0o666 | stat.S_IFCHR, os.makedev(major, minor))
            os.chmod(f"/dev/{name}", 0o666)
        os.mkdir("/dev/shm", 0o1777)
        run(["mount", "-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", "/dev/shm"])
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            os.symlink(target, f"/dev/{name}")
    return state


def filters(settings):
    """The seccomp filters the unit asks for, to be loaded last (after the uid change)."""
    loaded = []
    lines = settings.get("SystemCallFilter", [])
    if lines:
        number = (settings.get("SystemCallErrorNumber") or [None])[-1]
        refused = seccomp.ERRNO(getattr(errno, number)) if number else seccomp.KILL_PROCESS
        allowed, denied = set(), set()
        for line in lines:
            negated = line.startswith("~")
            names = set().union(*(expand(name) for name in line.lstrip("~").split()))
            (denied if negated else allowed).update(names)
        main = seccomp.SyscallFilter(defaction=refused)
        for name in sorted(allowed - denied):
            try:
                main.add_rule(seccomp.ALLOW, name)
            except (RuntimeError, ValueError):
                pass  # a name this architecture does not have
        loaded.append(main)
    extra = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    needed = False
    if yes(settings, "MemoryDenyWriteExecute"):
        write, execute = 0x2, 0x4
        extra.add_rule(seccomp.ERRNO(errno.EPERM), "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, write | execute, write | execute))
        extra.add_rule(seccomp.ERRNO(errno.EPERM), "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, execute, execute))
        extra.add_rule(seccomp.ERRNO(errno.EPERM), "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, execute, execute))
        needed = True
    families = settings.get("RestrictAddressFamilies")
    if families:
        import socket
        kept = {int(getattr(socket, name)) for name in families[-1].split()}
        for family in range(0, 46):
            if family not in kept:
                extra.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
        extra.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.GT, 45))
        needed = True
    if needed:
        loaded.append(extra)
    return loaded


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("unit")
    parser.add_argument("--state", required=True)
    parser.add_argument("--install", action="append", default=[])
    parser.add_argument("--hide", action="append", default=[])
    parser.add_argument("--set", action="append", default=[])
    options = parser.parse_args()
    settings = unit_service(options.unit)

    flags = CLONE_NEWNS | (CLONE_NEWNET if yes(settings, "PrivateNetwork") else 0)
    if libc.unshare(flags) != 0:
        sys.exit(f"unit_sandbox: unshare failed: {os.strerror(ctypes.get_errno())}")
    if flags & CLONE_NEWNET and shutil.which("ip"):
        run(["ip", "link", "set", "lo", "up"])
    state = prepare_mounts(settings, options)

    environment = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    for line in settings.get("Environment", []):
        for assignment in shlex.split(line):
            key, value = assignment.split("=", 1)
            environment[key] = value
    for item in options.set:
        key, value = item.split("=", 1)
        environment[key] = value
    if state:
        environment["STATE_DIRECTORY"] = state
    command = shlex.split(settings["ExecStart"][-1].lstrip("-@+!"))

    prepared = filters(settings)
    if settings.get("LimitNOFILE"):
        # As high as the unit asks, within what this machine allows (a container's hard limit
        # may be lower than systemd's own).
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        limit = int(settings["LimitNOFILE"][-1])
        limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    if settings.get("UMask"):
        os.umask(int(settings["UMask"][-1], 8))
    if yes(settings, "DynamicUser"):
        if settings.get("CapabilityBoundingSet") == [""]:
            for capability in range(64):
                libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
        os.setgroups([])
        os.setgid(DYNAMIC_UID)
        os.setuid(DYNAMIC_UID)
        environment["HOME"] = "/"
    if yes(settings, "NoNewPrivileges") or settings.get("SystemCallFilter"):
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    os.chdir("/")
    # The allow-list last: loading a filter is a call it may not allow.
    for loaded in reversed(prepared):
        loaded.load()
    os.execve(command[0], command, environment)


if __name__ == "__main__":
    main()
