// Cross-check of wire types with the official JS SDK (@azure/data-tables).
//
//   node tests/js/crosscheck.mjs TABLE
//
// Environment: AZTABLES_TEST_CONNECTION_STRING (as set by tests/azurite.sh env).
// 1. Reads the entity ("cpp", "types") that the C++ test wrote and checks the
//    type and the exact value the JS SDK sees for each property.
// 2. Writes the entity ("js", "types") with JS-typed values; the C++ test then
//    reads it and checks what the C++ SDK makes of it.
// Prints one line per check; exits 0 when all pass, 1 otherwise.
import { TableClient } from "@azure/data-tables";

const table = process.argv[2];
const cs = process.env.AZTABLES_TEST_CONNECTION_STRING;
if (!table || !cs) {
  console.error("usage: AZTABLES_TEST_CONNECTION_STRING=... node crosscheck.mjs TABLE");
  process.exit(2);
}
const client = TableClient.fromConnectionString(cs, table, { allowInsecureConnection: true });

let failures = 0;
function check(what, actual, expected) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a === e) {
    console.log(`ok   ${what}: ${a}`);
  } else {
    failures++;
    console.log(`FAIL ${what}: got ${a}, expected ${e}`);
  }
}

// ---- 1. what the C++ SDK wrote, as the JS SDK sees it ------------------------
// With disableTypeConversion every value comes back as {value: string, type}.
const raw = await client.getEntity("cpp", "types", { disableTypeConversion: true });
const expectRaw = {
  I64max: { value: "9223372036854775807", type: "Int64" },
  I64min: { value: "-9223372036854775808", type: "Int64" },
  I64small: { value: "5", type: "Int64" },  // small Int64 stays Int64 (annotated)
  I32: { value: "-2147483648", type: "Int32" },
  Dt: { value: "2026-01-02T03:04:05.1234567Z", type: "DateTime" },  // all 7 digits
  DtOld: { value: "1601-01-01T00:00:00.0000000Z", type: "DateTime" },
  G: { value: "c9da6455-213d-42c9-9a79-3e9149a57833", type: "Guid" },
  Bin: { value: "AAEC/v8=", type: "Binary" },
  BinEmpty: { value: "", type: "Binary" },
  DFrac: { value: "1.5", type: "Double" },
  // Known JS SDK limitation (AZURITE-NOTES §3): it reads numbers with JSON.parse,
  // so the 2.0 the service returns for our annotated whole Double looks like Int32.
  DWhole: { value: "2", type: "Int32" },
  DNaN: { value: "NaN", type: "Double" },
  DInf: { value: "Infinity", type: "Double" },
  DNegInf: { value: "-Infinity", type: "Double" },
  B: { value: "true", type: "Boolean" },
  S: { value: "h\u00e9llo \u4e2d \u{1F600} \u2028", type: "String" },
  SEmpty: { value: "", type: "String" },
};
for (const [name, expected] of Object.entries(expectRaw)) check(`read ${name}`, raw[name], expected);
check("read keys", [raw.partitionKey, raw.rowKey], ["cpp", "types"]);

// With type conversion on: the native JS values.
const native = await client.getEntity("cpp", "types");
check("native I64max is a BigInt", typeof native.I64max === "bigint" && native.I64max === 9223372036854775807n, true);
check("native Dt is a Date (ms precision)", native.Dt instanceof Date && native.Dt.toISOString(), "2026-01-02T03:04:05.123Z");
check("native Bin bytes", Array.from(native.Bin), [0, 1, 2, 254, 255]);
// The JS SDK hands special Doubles over as the strings it received.
check("native DNaN", native.DNaN, "NaN");
check("native DInf", native.DInf, "Infinity");
check("native DFrac", native.DFrac, 1.5);

// ---- 2. write an entity with JS types for the C++ side to read ----------------
await client.upsertEntity(
  {
    partitionKey: "js",
    rowKey: "types",
    I64max: { value: "9223372036854775807", type: "Int64" },
    I64minBig: -9223372036854775808n,  // a BigInt is sent as Edm.Int64
    Dt: { value: "2026-01-02T03:04:05.1234567Z", type: "DateTime" },
    DtNative: new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)),
    G: { value: "c9da6455-213d-42c9-9a79-3e9149a57833", type: "Guid" },
    Bin: new Uint8Array([0, 1, 2, 254, 255]),
    BinEmpty: new Uint8Array([]),
    DWhole: { value: 2, type: "Double" },  // sent as 2 with an Edm.Double annotation
    DFrac: 1.5,
    DNaN: { value: "NaN", type: "Double" },
    DInf: { value: "Infinity", type: "Double" },
    DNegInf: { value: "-Infinity", type: "Double" },
    I32: 42,
    I32min: -2147483648,
    B: true,
    S: "h\u00e9llo \u4e2d \u{1F600} \u2028",
    SEmpty: "",
  },
  "Replace",
);
console.log("ok   wrote (js, types)");

if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log("all checks passed");
