// The apache-arrow (JS) half of the Arrow IPC interop test.
//
// usage: node arrow_dump.mjs dump FILE      prints FILE as canonical JSON (below)
//        node arrow_dump.mjs write DIR      writes node-file.arrow (IPC file) and
//                                           node-stream.arrows (IPC stream) with
//                                           tableToIPC, from fixed values
//
// Canonical JSON, the same shape arrow_interop_tool prints for chunkwise's reader:
// {"format": "file"|"stream", "schema": {"fields": [F], "metadata": {k: v}},
//  "batches": [rows per batch], "columns": {name: [value per row]}}
// F = {"name", "type" (int8..uint64, binary, utf8, list), "nullable", "metadata", "children": [F]}
// Integers are decimal strings, binary is lowercase hex, utf8 is text, lists are
// arrays, nulls are null.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";

function typeName(type) {
  switch (type.typeId) {
    case arrow.Type.Int:
      return `${type.isSigned ? "int" : "uint"}${type.bitWidth}`;
    case arrow.Type.Binary:
      return "binary";
    case arrow.Type.Utf8:
      return "utf8";
    case arrow.Type.List:
      return "list";
    default:
      return `unsupported:${arrow.Type[type.typeId]}`;
  }
}

function fieldJson(field) {
  return {
    name: field.name,
    type: typeName(field.type),
    nullable: field.nullable,
    metadata: Object.fromEntries(field.metadata ?? []),
    children: (field.type.children ?? []).map(fieldJson),
  };
}

function valueJson(type, value) {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case arrow.Type.Int:
      return String(value);
    case arrow.Type.Binary:
      return Buffer.from(value).toString("hex");
    case arrow.Type.Utf8:
      return value;
    case arrow.Type.List:
      return [...value].map((item) => valueJson(type.children[0].type, item));
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

function dump(path) {
  const bytes = readFileSync(path);
  const table = arrow.tableFromIPC(bytes);
  const columns = {};
  for (const field of table.schema.fields) {
    const vector = table.getChild(field.name);
    const values = [];
    for (let i = 0; i < table.numRows; ++i) values.push(valueJson(field.type, vector.get(i)));
    columns[field.name] = values;
  }
  const isFile = bytes.subarray(0, 6).toString("latin1") === "ARROW1";
  return {
    format: isFile ? "file" : "stream",
    schema: { fields: table.schema.fields.map(fieldJson), metadata: Object.fromEntries(table.schema.metadata) },
    batches: table.batches.map((batch) => batch.numRows),
    columns,
  };
}

// Two batches of every type chunkwise reads, with nulls, empty values and 64-bit extremes.
function sampleTable() {
  const item = new arrow.Field("item", new arrow.Uint64(), true);
  const schema = new arrow.Schema(
    [
      new arrow.Field("i8", new arrow.Int8(), false),
      new arrow.Field("u32", new arrow.Uint32(), false, new Map([["unit", "voxels"]])),
      new arrow.Field("i64", new arrow.Int64(), true),
      new arrow.Field("u64", new arrow.Uint64(), false),
      new arrow.Field("text", new arrow.Utf8(), true),
      new arrow.Field("blob", new arrow.Binary(), false, new Map([["compression", "true"], ["codec", "zstd"]])),
      new arrow.Field("labels", new arrow.List(item), false),
    ],
    new Map([["producer", "apache-arrow js"]]),
  );
  const batch = (rows, seed) => {
    const columns = [
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => ((seed * 37 + r * 11) % 256) - 128), new arrow.Int8()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => 4294967295 - r * seed), new arrow.Uint32()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => (r % 3 === 1 ? null : -(2n ** 62n) + BigInt(r * seed))), new arrow.Int64()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => 2n ** 64n - 1n - BigInt(r)), new arrow.Uint64()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => (r % 4 === 2 ? null : `row ${r} é ${seed}`)), new arrow.Utf8()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => Uint8Array.from({ length: (r * 5 + seed) % 23 }, (_, k) => (k * 7 + r) % 256)), new arrow.Binary()),
      arrow.vectorFromArray(Array.from({ length: rows }, (_, r) => Array.from({ length: r % 5 }, (_, k) => BigInt(seed) * 1000000007n + BigInt(k))), new arrow.List(item)),
    ];
    const data = arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: rows,
      nullCount: 0,
      children: columns.map((vector) => vector.data[0]),
    });
    return new arrow.RecordBatch(schema, data);
  };
  return new arrow.Table(schema, [batch(7, 1), batch(0, 2), batch(12, 3)]);
}

const [mode, target] = process.argv.slice(2);
if (mode === "dump" && target) {
  process.stdout.write(JSON.stringify(dump(target)) + "\n");
} else if (mode === "write" && target) {
  const table = sampleTable();
  writeFileSync(join(target, "node-file.arrow"), arrow.tableToIPC(table, "file"));
  writeFileSync(join(target, "node-stream.arrows"), arrow.tableToIPC(table, "stream"));
} else {
  console.error("usage: node arrow_dump.mjs dump FILE | write DIR");
  process.exit(2);
}
