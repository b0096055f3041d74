#!/usr/bin/env python3
"""Runs a command and samples how many of its threads are running.

    bench/thread_profile.py [--interval SECONDS] [--out FILE] [--timeline FILE] -- COMMAND ARGS...

Every --interval (default 0.01 s) it reads the state of each thread of the
command (/proc/PID/task/*/stat, state 'R'), and at the end prints one line:

    threads running: serial 7.3% (exactly one), idle 1.2% (none), parallel 91.5% (two or more), 4213 samples

"serial" is the share of the wall time during which only one thread works: the
part that more cores cannot shorten. The command's own output passes through;
its exit code is this script's. With --out the line goes to FILE instead of
stderr; --timeline FILE writes each sample as "seconds running-threads", to
find where the serial stretches are. Linux only; the samples see the command's process, not its children.
"""
import os
import subprocess
import sys
import time


def running_threads(pid):
    count = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The state follows the command name, which is in parentheses and may
        # itself hold spaces or parentheses.
        state = stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3]
        if state == b"R":
            count += 1
    return count


def main(argv):
    interval, out, timeline = 0.01, None, None
    while argv and argv[0] != "--":
        if argv[0] == "--interval":
            interval = float(argv[1])
            argv = argv[2:]
        elif argv[0] == "--timeline":
            timeline = open(argv[1], "w")
            argv = argv[2:]
        elif argv[0] == "--out":
            out = argv[1]
            argv = argv[2:]
        else:
            sys.exit(f"thread_profile.py: unknown option {argv[0]}")
    if not argv[1:]:
        sys.exit("usage: thread_profile.py [--interval S] [--out FILE] [--timeline FILE] -- COMMAND ARGS...")
    proc = subprocess.Popen(argv[1:])
    start = time.monotonic()
    histogram = {}
    while proc.poll() is None:
        n = running_threads(proc.pid)
        if n is not None:
            if timeline:
                timeline.write(f"{time.monotonic() - start:.3f} {n}\n")
            # This script's own sampling never runs inside the command.
            histogram[n] = histogram.get(n, 0) + 1
        time.sleep(interval)
    if timeline:
        timeline.close()
    total = sum(histogram.values()) or 1
    serial = histogram.get(1, 0) / total
    idle = histogram.get(0, 0) / total
    line = (f"threads running: serial {100 * serial:.1f}% (exactly one), idle {100 * idle:.1f}% (none), "
            f"parallel {100 * (1 - serial - idle):.1f}% (two or more), {total} samples")
    if out:
        with open(out, "w") as f:
            f.write(line + "\n")
    else:
        print(line, file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
