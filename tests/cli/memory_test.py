#!/usr/bin/env python3
"""The memory each file-reading command takes, against the statement in
docs/bad-input.md ("Memory"): peak resident memory (wait4's ru_maxrss) of the
command on N = 2^18 and 2^20 generated elements (validate 2^17 and 2^19), its slope in bytes an element
at most the stated one. The constant (the program, the sanitizers' runtime)
cancels in the slope. Under the sanitizers (--sanitized) the sizes are a
quarter and the bound 2x (shadow memory is an eighth more, allocations carry
red zones; the quarantine is turned off for the run).

    memory_test.py WARPSIM [--sanitized]
"""
import os
import random
import subprocess
import sys
import tempfile

# command (W: a weights file, D: a draws file), bytes an element at most
STATED = [
    ("alias build --weights W", 64),
    ("alias build --weights W --format json", 64),
    ("show sum-tree --weights W --step final", 32),
    ("validate --weights W --draws D --progress never", 160),  # a weight: the draws are streamed
    ("stats chi-square --observed D --probabilities W --normalize", 64),
    ("stats ks-discrete --observed D --probabilities W --normalize", 64),
]


def peak_kb(args, env):
    """The command's peak resident memory in KB. posix_spawn (vfork-like) so
    that the child's peak is its own, not this interpreter's copied at fork."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    pid = os.posix_spawn(args[0], args, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.close(devnull)
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: a check failed, which the random draws may make it
        raise SystemExit(f"FAIL: {' '.join(args[1:])} exited with {code}")
    return usage.ru_maxrss  # KB on Linux; at least this process's own peak (kept small)


def generate(n, w, d):
    rng = random.Random(5)
    with open(w, "w") as f:
        for _ in range(n):
            f.write("%.6g\n" % rng.random())
    with open(d, "w") as f:
        for _ in range(n):
            f.write("%d\n" % rng.randrange(n))


def main():
    if sys.argv[1] == "--generate":
        generate(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return 0
    warpsim = sys.argv[1]
    sanitized = "--sanitized" in sys.argv
    factor = 2.0 if sanitized else 1.0
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0:detect_leaks=0"
    all_sizes = (1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n in all_sizes:
            w, d = os.path.join(tmp, f"w{n}.txt"), os.path.join(tmp, f"d{n}.txt")
            # written by a child, so that this process stays small: a spawned
            # command's peak counts the spawning process's own (Linux keeps the
            # larger of the two across exec)
            subprocess.run([sys.executable, __file__, "--generate", str(n), w, d], check=True)
            files[n] = (w, d)
        for command, stated in STATED:
            # large enough that the smaller run's peak passes this process's own
            # (about 13 MB); validate's law checks are the slow part: smaller
            sizes = (1 << 17, 1 << 19) if command.startswith("validate") else (1 << 18, 1 << 20)
            if sanitized:  # ten times slower: a quarter of the sizes (the sanitizers' own memory is far above the floor)
                sizes = (sizes[0] >> 2, sizes[1] >> 2)
            peaks = []
            for n in sizes:
                args = [warpsim] + command.replace("W", files[n][0]).replace("D", files[n][1]).split()
                peaks.append(peak_kb(args, env))
            slope = (peaks[1] - peaks[0]) * 1024 / (sizes[1] - sizes[0])
            ok = slope <= stated * factor
            failed |= not ok
            print(f"{'ok  ' if ok else 'FAIL'} {slope:6.1f} bytes an element (stated at most {stated}{' x 2' if sanitized else ''}): "
                  f"{command} ({peaks[0] // 1024} MB at {sizes[0]}, {peaks[1] // 1024} MB at {sizes[1]})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
