#!/usr/bin/env python3
"""Integration tests of the `aztables` command-line tool against Azurite.

    cli_test.py --cli PATH SCENARIO

Each scenario creates its own tables and deletes them. Needs
AZTABLES_TEST_CONNECTION_STRING (set by tests/run.sh); without it the script
exits 77, which ctest reports as skipped.
"""
import argparse
import json
import os
import subprocess
import sys
import time

FAILURES = []


def check(cond, what, detail=""):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what + (("\n     " + detail) if detail else ""))
        FAILURES.append(what)


class Cli:
    def __init__(self, path, connection_string):
        self.path = path
        self.env = dict(os.environ)
        self.env["AZTABLES_CONNECTION_STRING"] = connection_string

    def run(self, *args, stdin="", env=None):
        p = subprocess.run([self.path, *args], input=stdin, capture_output=True, text=True,
                           env=env if env is not None else self.env, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def ok(self, *args, stdin=""):
        rc, out, err = self.run(*args, stdin=stdin)
        check(rc == 0, "aztables " + " ".join(args[:3]) + " exits 0", "rc=%d stderr=%s" % (rc, err.strip()))
        return out


def lines(objs):
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


def parse_lines(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


def user_part(e):
    """The entity without the service's system data (ETag, Timestamp)."""
    return {k: v for k, v in e.items() if k not in ("odata.etag", "Timestamp", "Timestamp@odata.type")}


def unique(prefix):
    return "%s%d%d" % (prefix, os.getpid(), int(time.time() * 1000) % 1000000)


# Entities with every Edm type, written in the service's canonical JSON form
# (the form `aztables` prints), so equality of parsed objects is type for type.
def typed_entities():
    return [
        {"PartitionKey": "p1", "RowKey": "r1", "S": "h\u00e9llo \"q\" \\ \U0001F600", "Empty": "",
         "I32": -2147483648, "I64": "9223372036854775807", "I64@odata.type": "Edm.Int64",
         "D": 2.0, "D@odata.type": "Edm.Double", "Pi": 3.141592653589793, "Pi@odata.type": "Edm.Double",
         "B": True, "F": False,
         "G": "0f8fad5b-d9cb-469f-a165-70867728950e", "G@odata.type": "Edm.Guid",
         "T": "2024-05-01T12:00:00.1234567Z", "T@odata.type": "Edm.DateTime",
         "Bin": "AAEC/w==", "Bin@odata.type": "Edm.Binary"},
        {"PartitionKey": "p1", "RowKey": "r2", "Small": "1", "Small@odata.type": "Edm.Int64", "N": 7},
        {"PartitionKey": "p1", "RowKey": "r3 with space", "NaN": "NaN", "NaN@odata.type": "Edm.Double",
         "Inf": "Infinity", "Inf@odata.type": "Edm.Double", "Neg": -0.5, "Neg@odata.type": "Edm.Double"},
        {"PartitionKey": "p2", "RowKey": "r1", "Only": "x"},
    ]


def scenario_roundtrip(cli):
    """put -> query -> get round trip equals the input, type for type; output feeds back in."""
    t1, t2 = unique("clirt"), unique("clirt2")
    cli.ok("tables", "create", t1)
    cli.ok("tables", "create", t2)
    try:
        names = cli.ok("tables", "list", "--prefix", "clirt").split()
        check(t1 in names and t2 in names, "tables list --prefix shows both tables", str(names))

        inp = typed_entities()
        rc, out, err = cli.run("put", t1, stdin=lines(inp))
        check(rc == 0 and "4 entities written" in err, "put writes 4 entities", err)

        got = parse_lines(cli.ok("query", t1))
        check([user_part(e) for e in got] == inp, "query returns the input, type for type",
              json.dumps([user_part(e) for e in got])[:2000])
        check(all("odata.etag" in e and "Timestamp" in e for e in got), "query prints odata.etag and Timestamp")

        for e in inp:
            one = parse_lines(cli.ok("get", t1, e["PartitionKey"], e["RowKey"]))
            check(len(one) == 1 and user_part(one[0]) == e, "get %s/%s equals the input" % (e["PartitionKey"], e["RowKey"]))

        sel = parse_lines(cli.ok("get", t1, "p1", "r1", "--select", "I64,D"))
        check(len(sel) == 1 and user_part(sel[0]) == {"PartitionKey": "p1", "RowKey": "r1", "I64": "9223372036854775807",
                                                      "I64@odata.type": "Edm.Int64", "D": 2.0, "D@odata.type": "Edm.Double"},
              "get --select returns the keys and the selected properties", str(sel))

        # What query printed goes back in unchanged (ETag and Timestamp are ignored by an insert).
        cli.ok("put", t2, stdin=lines(got))
        again = parse_lines(cli.ok("query", t2))
        check([user_part(e) for e in again] == inp, "query output fed to put reproduces the table")

        # Upsert-merge keeps other properties; replace drops them.
        cli.ok("put", t1, "--mode", "upsert-merge", stdin=lines([{"PartitionKey": "p2", "RowKey": "r1", "New": 1}]))
        merged = user_part(parse_lines(cli.ok("get", t1, "p2", "r1"))[0])
        check(merged == {"PartitionKey": "p2", "RowKey": "r1", "Only": "x", "New": 1}, "put --mode upsert-merge merges", str(merged))
        cli.ok("put", t1, "--mode", "replace", stdin=lines([{"PartitionKey": "p2", "RowKey": "r1", "Z": True}]))
        replaced = user_part(parse_lines(cli.ok("get", t1, "p2", "r1"))[0])
        check(replaced == {"PartitionKey": "p2", "RowKey": "r1", "Z": True}, "put --mode replace replaces", str(replaced))

        # Insert of an existing entity: the service's code on stderr, exit 1.
        rc, _, err = cli.run("put", t1, stdin=lines([inp[0]]))
        check(rc == 1 and "409 EntityAlreadyExists" in err and "line 1" in err, "put of an existing entity fails with the service code", err)
    finally:
        cli.run("tables", "delete", t1)
        cli.run("tables", "delete", t2)


def scenario_query(cli):
    """query: row ranges, prefixes, raw filters, projections, limits."""
    t = unique("cliq")
    cli.ok("tables", "create", t)
    try:
        ents = [{"PartitionKey": "p%d" % (i % 2), "RowKey": "k%03d" % i, "V": i} for i in range(40)]
        cli.ok("put", t, stdin=lines(ents))
        rk = lambda out: [e["RowKey"] for e in parse_lines(out)]
        p0 = [e["RowKey"] for e in ents if e["PartitionKey"] == "p0"]
        check(rk(cli.ok("query", t, "--pk", "p0")) == p0, "query --pk returns the partition in RowKey order")
        check(rk(cli.ok("query", t, "--pk", "p0", "--rk-from", "k010", "--rk-to", "k020")) ==
              [k for k in p0 if "k010" <= k <= "k020"], "query --rk-from/--rk-to is inclusive")
        check(rk(cli.ok("query", t, "--pk", "p1", "--rk-prefix", "k01")) == ["k011", "k013", "k015", "k017", "k019"],
              "query --rk-prefix")
        check(sorted(rk(cli.ok("query", t, "--rk-prefix", "k03"))) == ["k0%d" % i for i in range(30, 40)],
              "query --rk-prefix without --pk scans every partition")
        check(rk(cli.ok("query", t, "--pk", "p0", "--filter", "V ge 30")) == ["k030", "k032", "k034", "k036", "k038"],
              "query --filter (raw OData)")
        check(rk(cli.ok("query", t, "--pk", "p0", "--top", "3")) == ["k000", "k002", "k004"], "query --top")
        sel = parse_lines(cli.ok("query", t, "--pk", "p1", "--top", "1", "--select", "V"))
        check(len(sel) == 1 and user_part(sel[0]) == {"PartitionKey": "p1", "RowKey": "k001", "V": 1}, "query --select", str(sel))
        rc, _, err = cli.run("query", t, "--filter", "V eq")
        check(rc == 1 and "400" in err, "a malformed raw filter is the service's 400 on stderr", err)
        rc, _, err = cli.run("query", t, "--rk-prefix", "a", "--rk-from", "b")
        check(rc == 2, "--rk-prefix with --rk-from is a usage error", err)
    finally:
        cli.run("tables", "delete", t)


def scenario_batch(cli):
    """batch: atomic; etags; results per action."""
    t = unique("clib")
    cli.ok("tables", "create", t)
    try:
        cli.ok("put", t, stdin=lines([{"PartitionKey": "p", "RowKey": "a", "V": 1}, {"PartitionKey": "p", "RowKey": "b", "V": 2}]))
        etag_b = parse_lines(cli.ok("get", t, "p", "b"))[0]["odata.etag"]
        actions = [
            {"action": "insert", "entity": {"PartitionKey": "p", "RowKey": "c", "V": 3}},
            {"action": "upsert-merge", "entity": {"PartitionKey": "p", "RowKey": "a", "W": "w"}},
            {"action": "replace", "entity": {"odata.etag": etag_b, "PartitionKey": "p", "RowKey": "b", "V": 20}},
            {"action": "delete", "entity": {"PartitionKey": "p", "RowKey": "c2"}},
        ]
        # The delete of a missing entity fails the whole batch: nothing applied.
        rc, out, err = cli.run("batch", t, stdin=lines(actions))
        check(rc == 1 and "404" in err and "[action 3]" in err and "nothing was applied" in err,
              "a failing batch reports the service code and the action", err)
        after = [user_part(e) for e in parse_lines(cli.ok("query", t))]
        check(after == [{"PartitionKey": "p", "RowKey": "a", "V": 1}, {"PartitionKey": "p", "RowKey": "b", "V": 2}],
              "a failing batch applied nothing", str(after))

        actions[3] = {"action": "delete", "entity": {"PartitionKey": "p", "RowKey": "a"}}
        actions[1] = {"action": "upsert-replace", "entity": {"PartitionKey": "p", "RowKey": "d", "V": 4}}
        res = parse_lines(cli.ok("batch", t, stdin=lines(actions)))
        check([r["action"] for r in res] == ["insert", "upsert-replace", "replace", "delete"] and
              all(r["status"] in (201, 204) for r in res), "batch prints one result per action", str(res))
        after = [user_part(e) for e in parse_lines(cli.ok("query", t))]
        check(after == [{"PartitionKey": "p", "RowKey": "b", "V": 20}, {"PartitionKey": "p", "RowKey": "c", "V": 3},
                        {"PartitionKey": "p", "RowKey": "d", "V": 4}], "batch applied every action", str(after))

        # The old ETag of b is now stale: a replace with it fails (412), and so does delete --etag.
        rc, _, err = cli.run("batch", t, stdin=lines([{"action": "replace", "entity": {
            "odata.etag": etag_b, "PartitionKey": "p", "RowKey": "b", "V": 0}}]))
        check(rc == 1 and "412" in err, "a stale ETag fails the batch with 412", err)
        rc, _, err = cli.run("delete", t, "p", "b", "--etag", etag_b)
        check(rc == 1 and "precondition_failed (412" in err, "delete --etag with a stale ETag fails with 412", err)
        etag_now = parse_lines(cli.ok("get", t, "p", "b"))[0]["odata.etag"]
        cli.ok("delete", t, "p", "b", "--etag", etag_now)
        rc, _, err = cli.run("get", t, "p", "b")
        check(rc == 1 and "not_found" in err, "get of a deleted entity: not_found, exit 1", err)

        rc, _, err = cli.run("batch", t, stdin=lines([{"action": "insert", "entity": {"PartitionKey": "p", "RowKey": "x"}},
                                                      {"action": "insert", "entity": {"PartitionKey": "q", "RowKey": "y"}}]))
        check(rc == 1 and "invalid_argument" in err and "PartitionKey" in err, "a batch across partitions is refused before sending", err)
        rc, _, err = cli.run("batch", t, stdin='{"action":"frob","entity":{}}\n')
        check(rc == 1 and "line 1" in err, "a bad action line names the line", err)
    finally:
        cli.run("tables", "delete", t)


def scenario_import(cli):
    """import: bulk writer over many partitions, progress bar on stderr."""
    t = unique("clii")
    cli.ok("tables", "create", t)
    try:
        n = 1500
        ents = [{"PartitionKey": "p%02d" % (i % 13), "RowKey": "%05d" % i, "V": i,
                 "Big": str(i * 10 ** 12), "Big@odata.type": "Edm.Int64"} for i in range(n)]
        rc, _, err = cli.run("import", t, "--concurrency", "4", stdin=lines(ents))
        check(rc == 0 and ("%d of %d entities written" % (n, n)) in err, "import writes every entity", err[-500:])
        check("[##############################] %d/%d (100%%)" % (n, n) in err, "import draws a progress bar on stderr", err[-500:])
        got = [user_part(e) for e in parse_lines(cli.ok("query", t))]
        key = lambda e: (e["PartitionKey"], e["RowKey"])
        check(sorted(got, key=key) == sorted(ents, key=key), "import: every entity stored exactly, type for type")
        rc, _, err = cli.run("import", t, "--mode", "insert", "--quiet", stdin=lines(ents[:3] + [{"PartitionKey": "new", "RowKey": "1"}]))
        check(rc == 1 and "EntityAlreadyExists" in err and "1 of 4 entities written" in err and "[#" not in err,
              "import --mode insert reports the failing entities; --quiet hides the bar", err)
    finally:
        cli.run("tables", "delete", t)


def scenario_errors(cli):
    """Usage errors exit 2; the connection comes from the flag or the environment."""
    rc, _, err = cli.run("tables", "list", env={k: v for k, v in cli.env.items() if k != "AZTABLES_CONNECTION_STRING"})
    check(rc == 2 and "AZTABLES_CONNECTION_STRING" in err, "no connection: usage error naming the variable", err)
    rc, out, _ = cli.run("--connection-string", cli.env["AZTABLES_CONNECTION_STRING"], "tables", "list",
                         env={k: v for k, v in cli.env.items() if k != "AZTABLES_CONNECTION_STRING"})
    check(rc == 0, "--connection-string works without the environment variable")
    rc, _, err = cli.run("query", "sometable", "--frob", "1")
    check(rc == 2 and "--frob" in err, "an unknown option is a usage error", err)
    rc, _, err = cli.run("get", "sometable", "onlypk")
    check(rc == 2, "a missing argument is a usage error", err)
    rc, _, err = cli.run("get", "bad-name", "p", "r")
    check(rc == 1 and "invalid_argument" in err and "table name" in err, "a bad table name is refused before sending", err)
    rc, _, err = cli.run("put", "sometable", stdin="{not json}\n")
    check(rc == 1 and "line 1" in err and "entity JSON" in err, "a bad input line is named", err)
    rc, out, _ = cli.run("help")
    check(rc == 0 and "usage: aztables" in out, "help prints usage")
    rc, out, _ = cli.run("version")
    check(rc == 0 and out.startswith("aztables "), "version prints the SDK version")


def scenario_sas(cli):
    """sas: a token that works for what it allows and only that."""
    t = unique("clisas")
    cli.ok("tables", "create", t)
    try:
        cli.ok("put", t, stdin=lines([{"PartitionKey": "p", "RowKey": "r", "V": 1}]))
        token = cli.ok("sas", "table", t, "--permissions", "r", "--expires", "+1h", "--http").strip()
        check("sig=" in token and "sp=r" in token, "sas table prints a token", token)
        endpoint = os.environ["AZTABLES_TEST_ENDPOINT"]
        ro = Cli(cli.path, "TableEndpoint=%s;SharedAccessSignature=%s" % (endpoint, token))
        got = parse_lines(ro.ok("get", t, "p", "r"))
        check(len(got) == 1 and got[0]["V"] == 1, "the read-only token reads")
        rc, _, err = ro.run("put", t, "--mode", "upsert-merge", stdin=lines([{"PartitionKey": "p", "RowKey": "r", "V": 2}]))
        check(rc == 1 and "authentication (403" in err and token.split("sig=")[1][:10] not in err,
              "the read-only token cannot write (403), and the signature is not echoed", err)
        acct = cli.ok("sas", "account", "--permissions", "rl", "--resource-types", "sco", "--expires", "+1h", "--http").strip()
        lister = Cli(cli.path, "TableEndpoint=%s;SharedAccessSignature=%s" % (endpoint, acct))
        check(t in lister.ok("tables", "list").split(), "an account SAS with l lists tables")
        rc, _, err = cli.run("sas", "table", t, "--permissions", "rx", "--expires", "+1h")
        check(rc == 1 and "invalid_argument" in err, "bad permissions are invalid_argument", err)
        rc, _, err = cli.run("sas", "table", t, "--permissions", "r", "--expires", "tomorrow")
        check(rc == 2 and "--expires" in err, "a bad time is a usage error", err)
    finally:
        cli.run("tables", "delete", t)


SCENARIOS = {
    "roundtrip": scenario_roundtrip,
    "query": scenario_query,
    "batch": scenario_batch,
    "import": scenario_import,
    "errors": scenario_errors,
    "sas": scenario_sas,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    a = ap.parse_args()
    cs = os.environ.get("AZTABLES_TEST_CONNECTION_STRING")
    if not cs:
        print("SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set; run ./tests/run.sh, which starts Azurite")
        return 77
    SCENARIOS[a.scenario](Cli(a.cli, cs))
    if FAILURES:
        print("%d check(s) failed: %s" % (len(FAILURES), "; ".join(FAILURES)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
