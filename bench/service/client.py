#!/usr/bin/env python3
"""bench/service/client.py - the HTTP side of bench/service_bench.sh (standard library only).

  client.py BASE TOKEN model FILE                  store a mechanism, print its id
  client.py BASE TOKEN sweep SPEC_JSON [--wait S [--poll P]]  POST /api/v1/sweeps, print one JSON line:
        {"id", "jobs", "post_s", "done_s"}  post_s: the POST's latency (request sent -> 202 read);
        done_s (--wait): from just before the POST until GET /api/v1/sweeps/{id} reports every
        job done (polled every P seconds, 0.025 unless given, at most S seconds)
  client.py BASE TOKEN cancel SWEEP_ID             POST /api/v1/sweeps/{id}/cancel
  client.py BASE TOKEN workers N S                 wait (at most S seconds) until /healthz reports N workers

Errors go to standard error with a non-zero exit status, so that the caller stops with a clear message.
"""
import http.client
import json
import sys
import time
import urllib.parse

POLL = 0.025


class Api:
    def __init__(self, base, token):
        u = urllib.parse.urlsplit(base)
        self.host, self.port, self.token = u.hostname, u.port, token
        self.conn = None

    def request(self, method, path, body=None, timeout=30):
        headers = {"Authorization": "Bearer " + self.token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (0, 1):  # one reconnect: the gateway closes idle keep-alive connections
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                return r.status, data
            except (ConnectionError, http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise RuntimeError("unreachable")


def die(msg):
    print("client.py: " + msg, file=sys.stderr)
    sys.exit(1)


def main(argv):
    if len(argv) < 4:
        die(__doc__)
    api = Api(argv[1], argv[2])
    cmd, args = argv[3], argv[4:]
    try:
        if cmd == "model":
            with open(args[0], "rb") as f:
                status, data = api.request("POST", "/api/v1/models", f.read())
            if status not in (200, 201):
                die("POST /api/v1/models %s: HTTP %d %s" % (args[0], status, data[:300]))
            print(json.loads(data)["id"])
        elif cmd == "sweep":
            spec = args[0].encode()
            wait = float(args[2]) if len(args) >= 3 and args[1] == "--wait" else None
            poll = float(args[4]) if len(args) >= 5 and args[3] == "--poll" else POLL
            # connect first: post_s is the request itself, not the TCP handshake
            api.request("GET", "/healthz")
            t0 = time.perf_counter()
            status, data = api.request("POST", "/api/v1/sweeps", spec)
            t1 = time.perf_counter()
            if status != 202:
                die("POST /api/v1/sweeps: HTTP %d %s" % (status, data[:300]))
            body = json.loads(data)
            out = {"id": body["id"], "jobs": body["jobs"], "post_s": t1 - t0}
            if wait is not None:
                n, c = body["jobs"], {}
                while True:
                    status, data = api.request("GET", "/api/v1/sweeps/" + body["id"])
                    t = time.perf_counter()
                    if status != 200:
                        die("GET /api/v1/sweeps/%s: HTTP %d %s" % (body["id"], status, data[:300]))
                    c = json.loads(data)["counts"]
                    if c.get("done", 0) >= n:
                        out["done_s"] = t - t0
                        break
                    if c.get("failed", 0) or c.get("cancelled", 0):
                        die("sweep %s: jobs failed or cancelled: %s" % (body["id"], c))
                    if t - t0 > wait:
                        die("sweep %s not done after %.0f s: %s" % (body["id"], wait, c))
                    time.sleep(poll)
            print(json.dumps(out))
        elif cmd == "cancel":
            status, data = api.request("POST", "/api/v1/sweeps/%s/cancel" % args[0])
            if status not in (200, 202):
                die("cancel %s: HTTP %d %s" % (args[0], status, data[:300]))
        elif cmd == "workers":
            want, limit = int(args[0]), float(args[1])
            t0, seen = time.perf_counter(), None
            while time.perf_counter() - t0 < limit:
                try:
                    status, data = api.request("GET", "/healthz", timeout=5)
                    seen = json.loads(data).get("workers") if status == 200 else None
                    if seen == want:
                        return
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
            die("the gateway sees %s worker(s) after %.0f s, expected %d" % (seen, limit, want))
        else:
            die("unknown command " + cmd)
    except (OSError, http.client.HTTPException) as e:
        die("%s: %s" % (cmd, e))


if __name__ == "__main__":
    main(sys.argv)
