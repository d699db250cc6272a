#!/usr/bin/env python3
"""Purchase driver for scripts/bench (standard library only, loopback only).

Drives purchases the way a browser does with the demo provider:
plan page -> CSRF cookie/token -> POST /checkout -> POST /demo-pay/{session}/pay.

  pick-plan BASE                 print a sellable plan id (US page, price 1.00..200.00)
  create BASE PLAN N PREFIX OUT [--remind[=FRACTION]]
                                 create N unpaid purchases (emails PREFIX-i@bench.invalid),
                                 write one JSON line per purchase to OUT; --remind ticks "Email
                                 me a reminder if I don't finish" on every checkout, or on that
                                 FRACTION of them (spread evenly)
  decline FILE                   press Decline on the demo payment page of every purchase in
                                 FILE; prints the count of 303 answers
  refund BASE EMAIL PASSWORD FILE N
                                 an owner signed in to the console refunds the first N
                                 purchases of FILE in full, each from its order page (Refund, or
                                 "Refund and keep the cost" when an upstream order exists);
                                 prints the count of 303 answers
  pay FILE THREADS               pay every purchase in FILE at once (a barrier releases all
                                 THREADS together); prints the count of 303 answers and writes
                                 "purchase_id|sent_ms|answered_ms" lines to FILE.sent
  request-stats SENT             read the "stats" rows with the purchase id as 4th field on
                                 stdin; with SENT (from pay), print "pay_p50 pay_p99
                                 sent_to_accepted_p50 sent_to_accepted_p99" in ms
  pay-each FILE GAP_MS           pay the purchases in FILE one at a time, GAP_MS apart (an
                                 idle shop between payments); prints the count of 303 answers
  stats                          read "paid_ms|started_ms|finished_ms" rows on stdin, print
                                 "n accepted p50_ms p99_ms rate_per_s span_ms"
  wrk FILE                       parse wrk --latency output: "rps p50_ms p99_ms"
  pick-plans BASE N              print up to N sellable plan ids, one a line (as pick-plan)
  checkouts BASE PLANS RATE SECS PREFIX OUT
                                 for SECS seconds, start RATE purchases a second (plan page,
                                 POST /checkout, demo Pay), rotating over the plan ids in file
                                 PLANS; write the paid purchase ids to OUT, one a line; print
                                 one line per step: "step n p50_ms p99_ms 5xx other" and a
                                 last line "started paid 5xx errors"
  probe-checkouts BASE PLAN RATE SECS PREFIX [--remind]
                                 as checkouts, on one plan, every box as a buyer ticks it; one
                                 line per step "step n p50_ms p99_ms max_ms 5xx other" (other:
                                 answers other than expected, and requests without an answer;
                                 the times include those), and a last line "started paid 5xx
                                 other"
  probe-create-user BIN DB_URL SECS EVERY PREFIX
                                 every EVERY seconds for SECS seconds, `BIN admin create-user
                                 --email PREFIX-i@bench.invalid --role support` with the
                                 password on stdin (env STOREFRONT_DATABASE_URL=DB_URL); prints
                                 "tries ok_first_try p50_ms max_ms" and the first failures'
                                 messages on stderr
  page-bytes BASE EMAIL PASSWORD PATH
                                 signed in as EMAIL, the bytes of the body of GET PATH (no
                                 Accept-Encoding; asked again while the shop cannot answer, for
                                 up to ~30 s) and its status: "bytes status"
  verify STATS PAID ROWS         STATS: the sandbox's /_sandbox/stats JSON; PAID: paid purchase
                                 ids; ROWS: "id|status|paid_at_ms" of the shop's purchases.
                                 Paid = PAID and every row with paid_at_ms. Prints "paid
                                 fulfilled lost duplicated orders"; exits 1 unless every paid
                                 purchase is fulfilled with exactly one upstream order and
                                 upstream holds no other order

Every request has a timeout; every loop is bounded by N.
"""

import concurrent.futures
import datetime
import html as html_text
import http.client
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse

TIMEOUT = 30.0


def split_base(base):
    u = urllib.parse.urlsplit(base)
    # Loopback only, or an address of the test's own containers that the caller names in
    # STOREFRONT_TEST_HOSTS (scripts/container-test, from inside a container's namespace).
    own = [h for h in os.environ.get("STOREFRONT_TEST_HOSTS", "").split(",") if h]
    if u.hostname not in ("127.0.0.1", "localhost", "::1", *own):
        raise SystemExit(f"refusing non-loopback target {base}")
    return u.hostname, u.port or 80


class Browser:
    def __init__(self, base):
        self.host, self.port = split_base(base)
        self.cookies = {}

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            body = urllib.parse.urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            res = conn.getresponse()
            data = res.read().decode("utf-8", "replace")
            for value in res.headers.get_all("Set-Cookie") or []:
                pair = value.split(";", 1)[0]
                if "=" in pair:
                    k, v = pair.split("=", 1)
                    self.cookies[k.strip()] = v.strip()
            return res.status, data, res.headers
        finally:
            conn.close()


def hidden(html, name):
    m = re.search(r'name="%s" value="([^"]*)"' % re.escape(name), html)
    return m.group(1) if m else None


def find_plan(base):
    """A sellable plan id on the US page (price 1.00..200.00), or None."""
    b = Browser(base)
    status, page, _ = b.request("GET", "/countries/US")
    if status != 200:
        return None
    ids = list(dict.fromkeys(re.findall(r'href="/plans/([^"?#]+)[?"#]', page)))
    for plan in ids[:60]:
        status, html, _ = b.request("GET", f"/plans/{plan}")
        price = hidden(html, "expected_price_cents") if status == 200 else None
        if price and hidden(html, "csrf_token") and 100 <= int(price) <= 20000:
            return plan
    return None


def pick_plan(base):
    plan = find_plan(base)
    if plan is None:
        raise SystemExit("no sellable plan found on /countries/US")
    print(plan)


class CheckoutRefused(RuntimeError):
    def __init__(self, status, body):
        super().__init__(f"checkout answered {status}: {body[:300]}")
        self.status = status


def create_one(base, plan, email, remind=False):
    """Plan page, then POST /checkout; the unpaid purchase as a dict (see `create`). `remind`
    ticks "Email me a reminder if I don't finish"."""
    b = Browser(base)
    status, html, _ = b.request("GET", f"/plans/{plan}")
    if status != 200:
        raise RuntimeError(f"plan page answered {status}")
    token = hidden(html, "csrf_token")
    price = hidden(html, "expected_price_cents")
    form = {
        "csrf_token": token,
        "plan_id": plan,
        "email": email,
        "confirm_device": "yes",
        "accept_terms": "yes",
        "expected_price_cents": price,
    }
    if remind:
        form["remind_unfinished"] = "yes"
    status, body, headers = b.request("POST", "/checkout", form)
    if status != 303:
        raise CheckoutRefused(status, body)
    location = headers["Location"]
    session = location.rstrip("/").rsplit("/", 1)[-1]
    order = [k for k in b.cookies if k.startswith("order_")]
    return {
        "session": session,
        "purchase_id": order[0][len("order_"):] if order else None,
        "csrf_token": token,
        "cookies": b.cookies,
        "base": base,
        "price_cents": int(price) if price else None,
        "remind": bool(remind),
    }


def remind_flag(flags):
    """The share of checkouts whose reminder box is ticked: --remind (all), --remind=F."""
    share = 0.0
    for flag in flags:
        if flag == "--remind":
            share = 1.0
        elif flag.startswith("--remind="):
            share = float(flag.split("=", 1)[1])
        else:
            raise SystemExit(f"unknown flag {flag}")
    return max(0.0, min(1.0, share))


def ticked(i, share):
    """Whether checkout i ticks the box, `share` of them spread evenly over i (the first one
    ticks it whenever share > 0)."""
    at = lambda k: math.ceil(round(k * share, 9))
    return at(i + 1) > at(i)


def create(base, plan, n, prefix, out, *flags):
    n = int(n)
    share = remind_flag(flags)
    rows = []
    if n <= 0:
        open(out, "w").close()
        print(0)
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, n)) as pool:
        futures = [
            pool.submit(create_one, base, plan, f"{prefix}-{i}@bench.invalid", ticked(i, share))
            for i in range(n)
        ]
        for f in futures:
            rows.append(f.result())
    with open(out, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    print(len(rows))


def pay(path, threads):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    threads = max(1, min(int(threads), len(rows)))
    barrier = threading.Barrier(threads, timeout=TIMEOUT)
    chunks = [rows[i::threads] for i in range(threads)]
    results = []
    times = []
    lock = threading.Lock()

    def connected(row):
        host, port = split_base(row["base"])
        c = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
        c.connect()
        return c

    def run(chunk):
        # Each thread connects first, then waits for the others, so the first POSTs leave
        # together. The rest connect when their turn comes: a connection opened long before
        # its request is closed by the server's request timeout (5 s), and the payment it
        # carried would fail with a broken pipe although the shop never saw it.
        first = connected(chunk[0]) if chunk else None
        barrier.wait()
        for i, row in enumerate(chunk):
            c = first if i == 0 else None
            body = urllib.parse.urlencode({"csrf_token": row["csrf_token"]})
            cookie = "; ".join(f"{k}={v}" for k, v in row["cookies"].items())
            sent = time.time()
            try:
                if c is None:
                    c = connected(row)
                c.request(
                    "POST",
                    f"/demo-pay/{row['session']}/pay",
                    body=body,
                    headers={
                        "Content-Type": "application/x-www-form-urlencoded",
                        "Cookie": cookie,
                    },
                )
                status = c.getresponse().status
            except Exception as e:  # noqa: BLE001 - reported as a failed payment
                status = f"error {e}"
            finally:
                if c is not None:
                    c.close()
            answered = time.time()
            with lock:
                results.append(status)
                times.append((row["purchase_id"], int(sent * 1000), int(answered * 1000)))

    ts = [threading.Thread(target=run, args=(chunk,)) for chunk in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join(TIMEOUT * 4)
    ok = sum(1 for s in results if s == 303)
    if ok != len(rows):
        bad = [s for s in results if s != 303][:5]
        print(f"paid {ok}/{len(rows)}; failures: {bad}", file=sys.stderr)
    with open(path + ".sent", "w") as fh:
        for purchase_id, sent, answered in times:
            fh.write(f"{purchase_id}|{sent}|{answered}\n")
    print(ok)


def request_stats(sent_path):
    sent = {}
    for line in open(sent_path):
        parts = line.strip().split("|")
        if len(parts) == 3:
            sent[parts[0]] = (int(parts[1]), int(parts[2]))
    pay = sorted(a - s for s, a in sent.values())
    to_accepted = []
    for line in sys.stdin:
        parts = line.strip().split("|")
        if len(parts) < 4 or not parts[2] or parts[3] not in sent:
            continue
        to_accepted.append(int(parts[2]) - sent[parts[3]][0])
    to_accepted.sort()
    print(
        f"{percentile(pay, 50):.0f} {percentile(pay, 99):.0f} "
        f"{percentile(to_accepted, 50):.0f} {percentile(to_accepted, 99):.0f}"
    )


def pay_one(row, action="pay"):
    """Presses Pay (or `action`: decline) on the demo payment page of a purchase from
    `create_one`: (status, body)."""
    b = Browser(row["base"])
    b.cookies = dict(row["cookies"])
    status, body, _ = b.request(
        "POST", f"/demo-pay/{row['session']}/{action}", {"csrf_token": row["csrf_token"]}
    )
    return status, body


def decline(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    ok = 0
    for row in rows:
        status, body = pay_one(row, "decline")
        if status == 303:
            ok += 1
        else:
            print(f"decline answered {status}: {body[:200]}", file=sys.stderr)
    print(ok)


def refund(base, email, password, path, n):
    """The owner refunds the first n purchases of `path` from their console pages."""
    rows = [json.loads(line) for line in open(path) if line.strip()][: int(n)]
    b = sign_in(base, email, password)
    ok = 0
    for row in rows:
        pid = row["purchase_id"]
        status, page, _ = b.request("GET", f"/admin/orders/{pid}")
        token = hidden(page, "csrf_token") if status == 200 else None
        # A fulfilled order has an upstream order paid from the wallet: the console offers
        # "Refund and keep the cost" there; otherwise plain Refund.
        found = re.findall(r'action="/admin/orders/%s/(refund(?:-keep-cost)?)"' % re.escape(pid), page)
        if not token or not found:
            print(f"order {pid}: page answered {status} without a refund form", file=sys.stderr)
            continue
        slug = "refund" if "refund" in found else found[0]
        status, body, _ = b.request(
            "POST",
            f"/admin/orders/{pid}/{slug}",
            {"csrf_token": token, "reason": "customer asked for a refund (bench)", "confirmed": "yes"},
        )
        if status == 303:
            ok += 1
        else:
            print(f"order {pid}: {slug} answered {status}: {body[:200]}", file=sys.stderr)
    print(ok)


def pay_each(path, gap_ms):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    ok = 0
    for row in rows:
        time.sleep(int(gap_ms) / 1000.0)
        ok += pay_one(row)[0] == 303
    print(ok)


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def stats():
    lat, paid, fin = [], [], []
    n = 0
    for line in sys.stdin:
        parts = line.strip().split("|")
        if len(parts) < 3:
            continue
        n += 1
        if not parts[0] or not parts[2]:
            continue
        p, f = int(parts[0]), int(parts[2])
        paid.append(p)
        fin.append(f)
        lat.append(f - p)
    lat.sort()
    span = (max(fin) - min(paid)) if fin else 0
    rate = (len(fin) * 1000.0 / span) if span > 0 else float("nan")
    print(
        f"{n} {len(lat)} {percentile(lat, 50):.0f} {percentile(lat, 99):.0f} {rate:.1f} {span}"
    )


def to_ms(value):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", value)
    if not m:
        return float("nan")
    v, unit = float(m.group(1)), m.group(2)
    return {"us": v / 1000.0, "ms": v, "s": v * 1000.0, "m": v * 60000.0}[unit]


def wrk(path):
    text = open(path).read()
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50 = re.search(r"^\s+50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors:(.*)", text)
    print(
        f"{float(rps.group(1)) if rps else float('nan'):.0f} "
        f"{to_ms(p50.group(1)) if p50 else float('nan'):.3f} "
        f"{to_ms(p99.group(1)) if p99 else float('nan'):.3f} "
        f"{non2xx.group(1) if non2xx else 0} "
        f"{'errors' if errors else 'ok'}"
    )


def logins(base, email, password, n):
    """N browsers take a login form each, then all sign in at once; prints the statuses."""
    n = int(n)
    browsers = []
    for _ in range(n):
        b = Browser(base)
        status, html, _ = b.request("GET", "/admin/login")
        if status != 200 or not hidden(html, "csrf_token"):
            raise SystemExit(f"GET /admin/login answered {status}")
        browsers.append((b, hidden(html, "csrf_token")))
    barrier = threading.Barrier(n, timeout=TIMEOUT)
    statuses = [None] * n

    def one(i):
        b, token = browsers[i]
        barrier.wait()
        try:
            statuses[i] = b.request(
                "POST",
                "/admin/login",
                {"email": email, "password": password, "csrf_token": token},
            )[0]
        except Exception:  # a reset connection counts as an error, like a 500
            statuses[i] = 0

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    count = lambda *codes: sum(1 for s in statuses if s in codes)
    other = n - count(303, 429, 503)
    print(f"{count(303)} {count(429, 503)} {other}")


def sellable_plans(base, n):
    b = Browser(base)
    status, page, _ = b.request("GET", "/countries/US")
    if status != 200:
        raise SystemExit(f"GET /countries/US answered {status}")
    found = []
    for plan in list(dict.fromkeys(re.findall(r'href="/plans/([^"?#]+)[?"#]', page)))[:60]:
        status, html, _ = b.request("GET", f"/plans/{plan}")
        price = hidden(html, "expected_price_cents") if status == 200 else None
        if price and hidden(html, "csrf_token") and 100 <= int(price) <= 20000:
            found.append(plan)
            if len(found) >= n:
                break
    return found


def pick_plans(base, n):
    plans = sellable_plans(base, int(n))
    if not plans:
        raise SystemExit("no sellable plan found on /countries/US")
    print("\n".join(plans))


def checkout_flows(base, plans, rate, secs, prefix, remind=False):
    """Purchases started at a fixed rate (open loop: a slow shop does not slow the arrivals):
    plan page, POST /checkout, demo Pay, rotating over `plans`. Returns (total, lat, every,
    fivexx, other, errors, paid): per step the answered requests' times, the times of every
    request (those without an answer too, until they failed), the 5xx count, the count of
    other unexpected answers; the failures' words; the paid purchase ids."""
    rate, secs = float(rate), float(secs)
    total = int(rate * secs)
    lock = threading.Lock()
    lat = {"plan_page": [], "checkout": [], "pay": []}
    every = {k: [] for k in lat}
    fivexx = {k: 0 for k in lat}
    other = {k: 0 for k in lat}
    unanswered = {k: 0 for k in lat}
    errors = []
    paid = []

    def timed(step, b, method, path, body=None, want=(200,)):
        t0 = time.monotonic()
        try:
            status, html, headers = b.request(method, path, body)
        except Exception as e:  # noqa: BLE001 - a reset or timeout is reported as an error
            with lock:
                every[step].append((time.monotonic() - t0) * 1000.0)
                unanswered[step] += 1
                errors.append(f"{step}: {e}")
            return None
        ms = (time.monotonic() - t0) * 1000.0
        with lock:
            lat[step].append(ms)
            every[step].append(ms)
            if status >= 500:
                fivexx[step] += 1
                words = re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", html)).strip()
                errors.append(f"{step}: {status} {words[:160]}")
            elif status not in want:
                other[step] += 1
                errors.append(f"{step}: unexpected {status}")
        return status, html, headers

    def one(i):
        b = Browser(base)
        plan = plans[i % len(plans)]
        r = timed("plan_page", b, "GET", f"/plans/{plan}")
        if not r or r[0] != 200:
            return
        token, price = hidden(r[1], "csrf_token"), hidden(r[1], "expected_price_cents")
        form = {
            "csrf_token": token,
            "plan_id": plan,
            "email": f"{prefix}-{i}@load.invalid",
            "confirm_device": "yes",
            "accept_terms": "yes",
            "expected_price_cents": price,
        }
        if remind:
            form["remind_unfinished"] = "yes"
        r = timed("checkout", b, "POST", "/checkout", form, want=(303,))
        if not r or r[0] != 303:
            return
        session = r[2]["Location"].rstrip("/").rsplit("/", 1)[-1]
        order = [k[len("order_"):] for k in b.cookies if k.startswith("order_")]
        r = timed("pay", b, "POST", f"/demo-pay/{session}/pay", {"csrf_token": token}, want=(303,))
        if r and r[0] == 303 and order:
            with lock:
                paid.append(order[0])

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
        futures = []
        for i in range(total):
            due = started + i / rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            futures.append(pool.submit(one, i))
        for f in futures:
            f.result()
    return total, lat, every, fivexx, other, unanswered, errors, paid


def checkouts(base, plans_file, rate, secs, prefix, out):
    plans = [p.strip() for p in open(plans_file) if p.strip()]
    total, lat, _, fivexx, other, _, errors, paid = checkout_flows(base, plans, rate, secs, prefix)
    with open(out, "w") as fh:
        fh.write("".join(p + "\n" for p in paid))
    for step, values in lat.items():
        values.sort()
        print(
            f"{step} {len(values)} {percentile(values, 50):.1f} {percentile(values, 99):.1f} "
            f"{fivexx[step]} {other[step]}"
        )
    failures = [e for e in errors if "unexpected" not in e]
    for e in failures[:5]:
        print(f"  {e}", file=sys.stderr)
    print(f"{total} {len(paid)} {sum(fivexx.values())} {len(failures)}")


def probe_checkouts(base, plan, rate, secs, prefix, *flags):
    """A buyer's checkout and payment at a fixed rate while the owner works in the console."""
    remind = remind_flag(flags) > 0
    total, _, every, fivexx, other, unanswered, errors, paid = checkout_flows(
        base, [plan], rate, secs, prefix, remind
    )
    for step, values in every.items():
        values.sort()
        print(
            f"{step} {len(values)} {percentile(values, 50):.1f} {percentile(values, 99):.1f} "
            f"{(values[-1] if values else float('nan')):.1f} {fivexx[step]} "
            f"{other[step] + unanswered[step]}"
        )
    seen = {}
    for e in errors:
        seen[e] = seen.get(e, 0) + 1
    for e, count in sorted(seen.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {count} x {e}", file=sys.stderr)
    bad = sum(other.values()) + sum(unanswered.values())
    print(f"{total} {len(paid)} {sum(fivexx.values())} {bad}")


def probe_create_user(binary, db_url, secs, every, prefix):
    """An owner adds a support account from the command line every `every` seconds."""
    secs, every = float(secs), float(every)
    tries = max(1, int(secs // every))
    env = dict(os.environ, STOREFRONT_DATABASE_URL=db_url)
    times, ok, failures = [], 0, []
    started = time.monotonic()
    for i in range(tries):
        due = started + i * every
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        t0 = time.monotonic()
        try:
            out = subprocess.run(
                [binary, "admin", "create-user", "--email", f"{prefix}-{i}@bench.invalid",
                 "--role", "support"],
                input=f"probe support passphrase {prefix} {i} zq\n",
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            code, words = out.returncode, (out.stderr or out.stdout).strip()
        except subprocess.TimeoutExpired:
            code, words = "timeout", "no answer within 120 s"
        times.append((time.monotonic() - t0) * 1000.0)
        if code == 0:
            ok += 1
        else:
            last = words.splitlines()[-1] if words else ""
            failures.append(f"try {i}: exit {code} after {times[-1]:.0f} ms: {last[:200]}")
    for f in failures[:6]:
        print(f"  {f}", file=sys.stderr)
    ordered = sorted(times)
    print(f"{tries} {ok} {percentile(ordered, 50):.0f} {ordered[-1]:.0f}")


def page_bytes(base, email, password, path, patience=0):
    b = sign_in(base, email, password, patience=patience)
    # Reloaded (for up to ~30 s) until the shop shows it, as an owner would.
    status, body = get_retrying(b, path, 30)
    print(f"{len(body.encode('utf-8'))} {status}")


def verify(stats_file, paid_file, rows_file):
    stats = json.load(open(stats_file))
    told_paid = {p.strip() for p in open(paid_file) if p.strip()}
    rows = {}
    for line in open(rows_file):
        parts = line.strip().split("|")
        if len(parts) >= 3:
            rows[parts[0]] = (parts[1], parts[2])
    # Paid: what the driver was told, and what the shop recorded (a Pay whose answer was lost).
    paid = told_paid | {p for p, (_, paid_at) in rows.items() if paid_at}
    by_ref = stats.get("ordersByReference", {})
    status = lambda p: rows.get(p, ("", ""))[0]
    fulfilled = sum(1 for p in paid if status(p) == "fulfilled")
    lost = sorted(p for p in paid if by_ref.get(f"sf-{p}", 0) < 1 or status(p) != "fulfilled")
    duplicated = sorted(set(stats.get("duplicatePurchases", [])) | {r for r, n in by_ref.items() if n > 1})
    orders = stats.get("orders", 0)
    print(f"{len(paid)} {fulfilled} {len(lost)} {len(duplicated)} {orders}")
    if lost:
        print(f"  lost (paid, not fulfilled once upstream): {lost[:5]}", file=sys.stderr)
    if duplicated:
        print(f"  duplicated upstream orders: {duplicated[:5]}", file=sys.stderr)
    if orders != len(paid):
        print(f"  upstream holds {orders} orders for {len(paid)} paid purchases", file=sys.stderr)
    if lost or duplicated or orders != len(paid) or not stats.get("ledgerInvariantHolds", False):
        raise SystemExit(1)


SIGNED_IN = {"tries": 0, "seconds": 0.0}


def sign_in(base, email, password, tries=10, patience=0.0):
    """A browser signed in to the console as `email`. A sign-in the shop could not serve (a
    5xx, no answer, or told to retry) is tried again 2 s later, as a person would: up to
    `tries` times, or for `patience` seconds when that is given. How many tries it took and
    how long (until the signed-in answer) are left in SIGNED_IN."""
    started = time.monotonic()
    patience = float(patience or 0)
    attempt, last = 0, ""
    while attempt < tries or (patience and time.monotonic() - started < patience):
        if attempt:
            time.sleep(2)
        attempt += 1
        status, headers = 0, {}
        b = Browser(base)
        try:
            status, html, _ = b.request("GET", "/admin/login")
            token = hidden(html, "csrf_token")
            if status == 200 and token:
                status, _, headers = b.request(
                    "POST", "/admin/login",
                    {"email": email, "password": password, "csrf_token": token},
                )
                last = f"sign-in answered {status} to {headers.get('Location')}"
            else:
                last = f"GET /admin/login answered {status}"
        except Exception as e:  # noqa: BLE001 - a timeout is one more failed try
            status, last = 0, f"sign-in failed: {e}"
        SIGNED_IN.update(tries=attempt, seconds=time.monotonic() - started)
        if status == 303 and headers.get("Location", "").startswith("/admin"):
            return b
        print(f"  sign-in try {attempt}: {last}", file=sys.stderr)
        if 0 < status < 500 and status not in (429, 503) and "login answered" not in last:
            break
    raise SystemExit(last)


def timed_get(b, path):
    """(milliseconds, status, body) of one GET, the whole body read."""
    t0 = time.perf_counter()
    try:
        status, body, _ = b.request("GET", path)
    except Exception:  # noqa: BLE001 - no answer (a timeout, a reset) is status 0
        status, body = 0, ""
    return (time.perf_counter() - t0) * 1000.0, status, body


def get_retrying(b, path, tries=5):
    """(status, body) of GET `path`; an answer the shop could not give (no answer, a 5xx, 429)
    is asked for again a second later, as an owner reloads, up to `tries` times."""
    status, body = 0, ""
    for attempt in range(tries):
        if attempt:
            time.sleep(1)
        _, status, body = timed_get(b, path)
        if status == 200 or (0 < status < 500 and status != 429):
            return status, body
        print(f"  {path} answered {status} (try {attempt + 1})", file=sys.stderr)
    return status, body


def older_pages(b, path, pages):
    """The address of the list `pages` pages deep, and how deep it is: the orders list pages by
    a cursor in its "Older" link, so the deep page is reached by following that link, as an
    owner would. A page that cannot be had (after retries) ends the walk where it is."""
    for depth in range(1, pages):
        status, page = get_retrying(b, path)
        m = re.search(r'<a href="([^"]*)">Older', page)
        if status != 200 or not m:
            print(f"  {path} answered {status} without an Older link: the deep page is page "
                  f"{depth}", file=sys.stderr)
            return path, depth
        path = html_text.unescape(m.group(1))
    return path, pages


def console(base, email, password, n, day, patience=0):
    """Each console page asked for n times in turn, one request at a time; prints
    "name p50_ms p95_ms statuses" per page. `day` (YYYY-MM-DD) is a day with sales, for the
    ranges; an order found on the orders page is opened by id, and searched by email and by
    order number. The pages the timed ones are found on are asked for again when the shop
    could not answer (as an owner reloads); the timed requests are not."""
    n = int(n)
    try:
        b = sign_in(base, email, password, patience=patience)
    finally:
        # "signin tries seconds": how long the owner waited to get in (also when never).
        print(f"signin {SIGNED_IN['tries']} {SIGNED_IN['seconds']:.1f} -", flush=True)
    # The orders list names the order to open and search for: reloaded for up to ~30 s. If it
    # never shows, the pages that need an order are left out and the rest still timed.
    status, orders = get_retrying(b, "/admin/orders", 30)
    ids = list(dict.fromkeys(re.findall(r'href="/admin/orders/([0-9a-zA-Z_-]+)"', orders)))
    if status != 200 or not ids:
        print(f"  /admin/orders answered {status} with {len(ids)} orders: the order page and "
              "the searches for an order are not timed", file=sys.stderr)
    detail = get_retrying(b, f"/admin/orders/{ids[-1]}", 30)[1] if ids else ""
    email_found = re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", detail)
    page_50, depth = older_pages(b, "/admin/orders", 50) if ids else ("/admin/orders", 1)
    deep_note = "" if depth == 50 else f" (page {depth}: page {depth + 1} could not be had)"
    pages = [
        ("dashboard", "/admin"),
        ("orders", "/admin/orders"),
        ("orders_page_50", page_50),
        ("orders_status", "/admin/orders?status=fulfilled"),
        ("orders_day", f"/admin/orders?from={day}&to={day}"),
        ("orders_search_email", "/admin/orders?q="
         + urllib.parse.quote(email_found.group(0) if email_found else "nobody@example.com")),
        ("orders_search_number", "/admin/orders?q="
         + urllib.parse.quote("SF-" + ids[-1][:4].upper() + "-" + ids[-1][4:8].upper())
         if ids else None),
        ("order_detail", f"/admin/orders/{ids[-1]}" if ids else None),
        ("books_day", f"/admin/books?from={day}&to={day}"),
        ("books_30_days", "/admin/books"),
        ("books_past_month", f"/admin/books?from={day}&to={shift_day(day, 30)}"),
        ("books_year", f"/admin/books?from={day}&to={shift_day(day, 364)}"),
        ("wallet", "/admin/wallet"),
        ("audit", "/admin/audit"),
        ("catalog", "/admin/catalog"),
        ("pricing", "/admin/pricing"),
        ("promo_codes", "/admin/promo-codes"),
        ("users", "/admin/users"),
    ]
    for name, path in pages:
        if path is None:
            continue
        times, statuses = [], {}
        for _ in range(n):
            ms, status, _ = timed_get(b, path)
            times.append(ms)
            statuses[status] = statuses.get(status, 0) + 1
        times.sort()
        note = deep_note if name == "orders_page_50" else ""
        # "200" when every answer was 200, else each status with its count: "200x18,503x2".
        said = ",".join(str(s) if len(statuses) == 1 else f"{s}x{c}"
                        for s, c in sorted(statuses.items()))
        print(f"{name} {percentile(times, 50):.1f} {percentile(times, 95):.1f} {said}{note}")


def shift_day(day, days):
    """The UTC day `days` after `day` (YYYY-MM-DD)."""
    return (datetime.date.fromisoformat(day) + datetime.timedelta(days=days)).isoformat()


def csv_rate(base, email, password, path, patience=0):
    """Streams one CSV export; prints "rows seconds first_byte_ms how": how is `whole`, `cut`
    (the stream broke off: rows so far) or `status-N` (the export was refused)."""
    b = sign_in(base, email, password, patience=patience)
    conn = http.client.HTTPConnection(b.host, b.port, timeout=3600)
    cookie = "; ".join(f"{k}={v}" for k, v in b.cookies.items())
    t0 = time.perf_counter()
    first, lines, how = None, 0, "whole"
    try:
        conn.request("GET", path, headers={"Cookie": cookie})
        res = conn.getresponse()
        if res.status != 200:
            how = f"status-{res.status}"
            res.read()
        else:
            while True:
                chunk = res.read1(65536) if hasattr(res, "read1") else res.read(65536)
                if not chunk:
                    break
                if first is None:
                    first = (time.perf_counter() - t0) * 1000.0
                lines += chunk.count(b"\n")
    except (http.client.HTTPException, OSError) as e:
        how = "cut"
        print(f"  {path}: the stream broke off after {lines} lines: {e!r}", file=sys.stderr)
    seconds = time.perf_counter() - t0
    conn.close()
    rows = max(lines - 1, 0) if how != "cut" else lines
    print(f"{rows} {seconds:.2f} {first or 0:.1f} {how}")


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = argv[1], argv[2:]
    {
        "pick-plan": pick_plan,
        "create": create,
        "pay": pay,
        "pay-each": pay_each,
        "decline": decline,
        "refund": refund,
        "probe-checkouts": probe_checkouts,
        "probe-create-user": probe_create_user,
        "page-bytes": page_bytes,
        "request-stats": request_stats,
        "stats": stats,
        "wrk": wrk,
        "logins": logins,
        "pick-plans": pick_plans,
        "checkouts": checkouts,
        "verify": verify,
        "console": console,
        "csv-rate": csv_rate,
    }[cmd](*args)


if __name__ == "__main__":
    main(sys.argv)
