#!/usr/bin/env python3
"""Record a lock history of redis-py's own Lock for `locksim check`.

N worker processes take redis-py's redis.lock.Lock on one key (timeout =
the lease), append two items to a shared list under it, and release it.
Every event is stamped with time.time_ns() on this one machine: the
history needs one clock shared by every process (the wall clocks of
several machines are not enough: their skew reorders events).

--stop-ms stops one worker with SIGSTOP, from the parent, right after its
first append, for longer than the lease; SIGCONT resumes it. Its lock
expires meanwhile, another worker takes it, and the stopped worker's
second append lands inside the other's critical section. The workers
start together, and the parent keeps the worker stopped at least
--stop-ms and until another worker holds the lock, so a slow machine
changes the timing, not the story.

Output: JSON Lines, one event per line (see docs/check.md).
"""
import argparse
import json
import multiprocessing as mp
import os
import signal
import sys
import time

import redis
from redis.exceptions import LockError, LockNotOwnedError


def event(out, process, typ, f, key, value=None, **extra):
    e = {"process": process, "type": typ, "f": f, "key": key, "value": value, "time": time.time_ns()}
    e.update(extra)
    out.put(json.dumps(e))


def worker(idx, args, out, stopped_here, resumed, start):
    name = "w%d" % idx
    r = redis.Redis(host=args.host, port=args.port)
    lock_key, list_key = args.key, args.key + ":list"
    start.wait(timeout=60)
    for n in range(args.ops):
        lock = r.lock(lock_key, timeout=args.lease_ms / 1000.0, sleep=0.01, blocking_timeout=args.wait_s)
        event(out, name, "invoke", "acquire", lock_key)
        try:
            got = lock.acquire()
        except Exception as err:  # the outcome is unknown: the SET may have run
            event(out, name, "info", "acquire", lock_key, error=repr(err))
            continue
        if not got:
            event(out, name, "fail", "acquire", lock_key)
            continue
        token = lock.local.token.decode()
        event(out, name, "ok", "acquire", lock_key, token, lease_ms=args.lease_ms)
        for part in ("a", "b"):
            item = "%s-%d%s" % (name, n, part)
            event(out, name, "invoke", "write", list_key, item)
            r.rpush(list_key, item)
            event(out, name, "ok", "write", list_key, item)
            if part == "a" and idx == 0 and n == 0 and args.stop_ms > 0:
                stopped_here.set()  # the parent stops this process now
                resumed.wait(timeout=60)  # set by the parent after SIGCONT
            time.sleep(args.work_ms / 1000.0)
        event(out, name, "invoke", "release", lock_key, token)
        try:
            lock.release()
            event(out, name, "ok", "release", lock_key, token)
        except LockNotOwnedError as err:
            # The key was no longer ours (expired): the release did nothing.
            event(out, name, "fail", "release", lock_key, token, error=repr(err))
        except LockError as err:
            event(out, name, "fail", "release", lock_key, token, error=repr(err))
        except Exception as err:  # a lost reply: the release may have run
            event(out, name, "info", "release", lock_key, token, error=repr(err))
        time.sleep(args.think_ms / 1000.0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=6379)
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--ops", type=int, default=3, help="critical sections per worker")
    p.add_argument("--key", default="locksim:redispy")
    p.add_argument("--lease-ms", type=int, default=500, help="the Lock's timeout")
    p.add_argument("--work-ms", type=int, default=20)
    p.add_argument("--think-ms", type=int, default=10)
    p.add_argument("--wait-s", type=float, default=10.0, help="blocking_timeout of acquire")
    p.add_argument("--stop-ms", type=int, default=0, help="SIGSTOP worker w0 this long after its first append")
    p.add_argument("-o", "--out", default="-", help="history file (default stdout)")
    args = p.parse_args()

    r = redis.Redis(host=args.host, port=args.port)
    r.delete(args.key, args.key + ":list")
    out, stopped_here, resumed = mp.Queue(), mp.Event(), mp.Event()
    start = mp.Barrier(args.workers)
    procs = [mp.Process(target=worker, args=(i, args, out, stopped_here, resumed, start)) for i in range(args.workers)]
    for pr in procs:
        pr.start()
    if args.stop_ms > 0:
        if stopped_here.wait(timeout=30):
            os.kill(procs[0].pid, signal.SIGSTOP)
            held = r.get(args.key)  # w0's token: it holds the lock now
            begin, taken = time.time(), False
            while time.time() < begin + 30:
                now = r.get(args.key)
                taken = taken or (now is not None and now != held)  # another worker took it
                if taken and time.time() >= begin + args.stop_ms / 1000.0:
                    break
                time.sleep(0.005)
            os.kill(procs[0].pid, signal.SIGCONT)
        resumed.set()
    lines = []
    while any(pr.is_alive() for pr in procs) or not out.empty():
        try:
            lines.append(out.get(timeout=0.1))
        except Exception:
            pass
    for pr in procs:
        pr.join()
    # The final read of the shared list: the interleaving of the appends.
    event(out, "reader", "invoke", "read", args.key + ":list")
    items = [x.decode() for x in r.lrange(args.key + ":list", 0, -1)]
    event(out, "reader", "ok", "read", args.key + ":list", ",".join(items))
    lines.append(out.get())
    lines.append(out.get())
    # One line per event, in time order (each process's own order kept).
    lines.sort(key=lambda l: json.loads(l)["time"])
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    bad = [pr.exitcode for pr in procs if pr.exitcode != 0]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
