// Rows 6b and 6c's baseline: the official JS SDK (@azure/data-tables, pinned in
// tests/package.json) writing the same entities into the same Azurite.
//
//   node tests/bench/js_ingest.mjs bulk|single TABLE FILE COUNT
//
// Environment: AZTABLES_TEST_CONNECTION_STRING. FILE holds one entity per line
// as aztables::to_json writes it (typed values carry "@odata.type"); the first
// COUNT are written. TABLE exists already. Prints the seconds the writes took,
// and nothing else.
//   bulk:   submitTransaction with up to 100 "create" actions of one partition,
//           4 transactions in flight, partitions interleaved (the shape of
//           aztables::bulk_writer's defaults, without its pacing).
//   single: createEntity, one entity at a time.
// Both first warm up in a scratch table TABLE + "warm" (see below).
import { readFileSync } from "node:fs";
import { TableClient } from "@azure/data-tables";

const [mode, table, file, countText] = process.argv.slice(2);
const count = Number(countText);
const cs = process.env.AZTABLES_TEST_CONNECTION_STRING;
if (!["bulk", "single"].includes(mode) || !table || !file || !(count > 0) || !cs) {
  console.error("usage: AZTABLES_TEST_CONNECTION_STRING=... node js_ingest.mjs bulk|single TABLE FILE COUNT");
  process.exit(2);
}

// The wire JSON as the JS SDK's entity shape: keys in camel case, typed values
// as { value, type } (the SDK's documented form for Int64, DateTime with all
// seven digits, Guid, Binary as base64, and Double).
function toJsEntity(wire) {
  const e = { partitionKey: wire.PartitionKey, rowKey: wire.RowKey };
  for (const [k, v] of Object.entries(wire)) {
    if (k === "PartitionKey" || k === "RowKey" || k.startsWith("odata.") || k.endsWith("@odata.type")) continue;
    const t = wire[`${k}@odata.type`];
    e[k] = t ? { value: String(v), type: t.slice("Edm.".length) } : v;
  }
  return e;
}

const entities = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).slice(0, count).map((l) => toJsEntity(JSON.parse(l)));
const client = TableClient.fromConnectionString(cs, table, { allowInsecureConnection: true });

// Warm-up, not timed (a long-running JS service runs with its code already
// compiled by the JIT): 20 createEntity calls and one transaction into a
// scratch table, which is then deleted.
{
  const warm = TableClient.fromConnectionString(cs, `${table}warm`, { allowInsecureConnection: true });
  await warm.createTable();
  const first = entities.slice(0, 20);
  for (const e of first) await warm.createEntity(e);
  const same = entities.filter((e) => e.partitionKey === entities[0].partitionKey).slice(0, 100);
  await warm.submitTransaction(same.map((e) => ["upsert", e]));
  await warm.deleteTable();
}

let seconds;
if (mode === "single") {
  const t0 = process.hrtime.bigint();
  for (const e of entities) await client.createEntity(e);
  seconds = Number(process.hrtime.bigint() - t0) / 1e9;
} else {
  const byPartition = new Map();
  for (const e of entities) {
    if (!byPartition.has(e.partitionKey)) byPartition.set(e.partitionKey, []);
    byPartition.get(e.partitionKey).push(e);
  }
  const perPartition = [...byPartition.values()].map((list) => {
    const chunks = [];
    for (let i = 0; i < list.length; i += 100) chunks.push(list.slice(i, i + 100).map((e) => ["create", e]));
    return chunks;
  });
  const total = perPartition.reduce((n, chunks) => n + chunks.length, 0);
  const batches = [];
  for (let round = 0; batches.length < total; ++round)
    for (const chunks of perPartition) if (round < chunks.length) batches.push(chunks[round]);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const b = batches[next++];
      const r = await client.submitTransaction(b);
      if (r.status !== 202) throw new Error(`transaction status ${r.status}`);
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all([worker(), worker(), worker(), worker()]);
  seconds = Number(process.hrtime.bigint() - t0) / 1e9;
}
console.log(seconds.toFixed(6));
