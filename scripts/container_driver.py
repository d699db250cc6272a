#!/usr/bin/env python3
"""Shopper and owner steps for scripts/container-test (standard library only, loopback only).

  wait BASE SECS                   until BASE answers /healthz and sells a plan (exit 1 if not)
  buy BASE PREFIX N OUT            N purchases, one after another, each: plan page, checkout,
                                   demo Pay. Appends one JSON line per paid purchase to OUT;
                                   prints the count paid
  checkout BASE EMAIL OUT          one checkout, not paid: its JSON line into OUT
  pay FILE                         demo Pay for every purchase in FILE
  installed BASE FILE SECS         every purchase in FILE shows its eSIM (activation code) on
                                   its order page within SECS, opened with the buyer's cookie
  links MAILDIR FILE OUT           find each purchase's private link in the .eml files under
                                   MAILDIR; write "purchase_id link" lines to OUT
  open-links BASE LINKS            each private link opens, with no cookie, to an order page
                                   showing the eSIM
  limited BASE N                   N checkouts from one visitor: print "accepted refused"
                                   (refused = 429 answers)
  stats URL KEY OUT                the sandbox's /_sandbox/stats (bearer KEY) into OUT
  console BASE EMAIL PASSWORD IDS  sign in to the console; every purchase id in file IDS (one
                                   a line) is listed on the orders page or opens in it

Targets are loopback addresses, or the test's own containers named in STOREFRONT_TEST_HOSTS.
Every request has a timeout; every loop is bounded.
"""

import email
import email.policy
import glob
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_driver import (  # noqa: E402
    Browser,
    CheckoutRefused,
    create_one,
    find_plan,
    hidden,
    pay_one,
    split_base,
)

ACTIVATION = 'id="activation-code"'


def wait(base, secs):
    deadline = time.time() + float(secs)
    last = "no answer"
    while time.time() < deadline:
        try:
            status, _, _ = Browser(base).request("GET", "/healthz")
            if status == 200 and find_plan(base):
                print("ready")
                return
            last = f"/healthz {status}, or no plan on sale yet"
        except OSError as e:
            last = str(e)
        time.sleep(1)
    raise SystemExit(f"{base} not ready after {secs} s: {last}")


def pay(row):
    status, body = pay_one(row)
    if status != 303:
        raise RuntimeError(f"demo Pay answered {status}: {body[:200]}")


def buy(base, prefix, n, out):
    plan = find_plan(base)
    if plan is None:
        raise SystemExit("no sellable plan on /countries/US")
    paid = 0
    with open(out, "a") as fh:
        for i in range(int(n)):
            # A replica may vanish mid-request (the test kills one): try the step again, as a
            # shopper would press the button again; the shop must not sell twice.
            for attempt in range(5):
                try:
                    row = create_one(base, plan, f"{prefix}-{i}@container.invalid")
                    pay(row)
                    break
                except (OSError, RuntimeError) as e:
                    if attempt == 4:
                        raise SystemExit(f"purchase {prefix}-{i} failed: {e}")
                    time.sleep(1)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            paid += 1
    print(paid)


def checkout(base, email_addr, out):
    row = create_one(base, find_plan(base), email_addr)
    with open(out, "w") as fh:
        fh.write(json.dumps(row) + "\n")


def pay_file(path):
    for row in rows(path):
        pay(row)


def rows(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def installed(base, path, secs):
    deadline = time.time() + float(secs)
    waiting = {r["purchase_id"]: r for r in rows(path)}
    while waiting and time.time() < deadline:
        for pid, row in list(waiting.items()):
            b = Browser(base)
            b.cookies = dict(row["cookies"])
            try:
                status, html, _ = b.request("GET", f"/orders/{pid}")
            except OSError:
                continue
            if status == 200 and ACTIVATION in html:
                del waiting[pid]
        if waiting:
            time.sleep(1)
    if waiting:
        raise SystemExit(f"{len(waiting)} purchase(s) show no eSIM after {secs} s: {sorted(waiting)[:5]}")
    print(f"{len(rows(path))} installed")


def links(maildir, path, out):
    wanted = {r["purchase_id"] for r in rows(path)}
    found = {}
    for name in glob.glob(os.path.join(maildir, "**", "*.eml"), recursive=True):
        with open(name, "rb") as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
        for part in msg.walk():
            if part.get_content_type() != "text/plain":
                continue
            for pid, token in re.findall(r"/orders/([A-Za-z0-9_-]+)\?token=([A-Za-z0-9_-]+)", part.get_content()):
                if pid in wanted:
                    found[pid] = f"/orders/{pid}?token={token}"
    missing = wanted - set(found)
    if missing:
        raise SystemExit(f"no emailed link for {len(missing)} purchase(s): {sorted(missing)[:5]}")
    with open(out, "w") as fh:
        for pid, link in sorted(found.items()):
            fh.write(f"{pid} {link}\n")
    print(f"{len(found)} links")


def open_links(base, path):
    n = 0
    for line in open(path):
        if not line.strip():
            continue
        pid, link = line.split()
        b = Browser(base)
        status, _, headers = b.request("GET", link)
        # The token is exchanged for a cookie and dropped from the address.
        if status in (302, 303):
            status, html, _ = b.request("GET", headers["Location"])
        else:
            html = ""
        if status != 200 or ACTIVATION not in html:
            raise SystemExit(f"the private link of {pid} answered {status} without the eSIM")
        n += 1
    print(f"{n} links open")


def limited(base, n):
    plan = find_plan(base)
    accepted = refused = 0
    for i in range(int(n)):
        try:
            create_one(base, plan, f"limit-{os.getpid()}-{i}@container.invalid")
            accepted += 1
        except CheckoutRefused as e:
            if e.status != 429:
                raise
            refused += 1
    print(accepted, refused)


def console(base, email_addr, password, ids_path):
    b = Browser(base)
    status, html, _ = b.request("GET", "/admin/login")
    if status != 200:
        raise SystemExit(f"GET /admin/login answered {status}")
    status, body, headers = b.request(
        "POST",
        "/admin/login",
        {"csrf_token": hidden(html, "csrf_token"), "email": email_addr, "password": password},
    )
    if status != 303:
        raise SystemExit(f"console sign-in answered {status}: {body[:200]}")
    n = 0
    for pid in (line.strip() for line in open(ids_path)):
        if not pid:
            continue
        status, html, _ = b.request("GET", f"/admin/orders/{pid}")
        if status != 200:
            raise SystemExit(f"the console cannot open order {pid}: {status}")
        n += 1
    status, html, _ = b.request("GET", "/admin/orders")
    if status != 200:
        raise SystemExit(f"GET /admin/orders answered {status}")
    print(f"{n} orders in the console")


def stats(url, key, out):
    import urllib.request

    split_base(url)  # loopback only
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=10) as res, open(out, "wb") as fh:
        fh.write(res.read())


COMMANDS = {
    "stats": stats,
    "wait": wait,
    "buy": buy,
    "checkout": checkout,
    "pay": pay_file,
    "installed": installed,
    "links": links,
    "open-links": open_links,
    "limited": limited,
    "console": console,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        raise SystemExit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
