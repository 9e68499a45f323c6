// The hyparquet half of the Parquet references interop test.
//
// usage: node parquet_dump.mjs FILE...   prints one JSON object per line:
// {"file", "num_rows", "row_groups", "schema": [{name, type, repetition_type,
//  converted_type, logical_type}], "rows": [{column: value}]}
// Strings stay strings, binary becomes {"hex": "..."}, 64-bit integers become
// decimal strings, nulls stay null.
import { readFileSync } from "node:fs";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";

function plain(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return { hex: Buffer.from(value).toString("hex") };
  return value;
}

for (const path of process.argv.slice(2)) {
  const bytes = readFileSync(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({ file, compressors, utf8: false });
  console.log(JSON.stringify({
    file: path,
    num_rows: Number(metadata.num_rows),
    row_groups: metadata.row_groups.length,
    schema: metadata.schema.slice(1).map((element) => ({
      name: element.name,
      type: element.type ?? null,
      repetition_type: element.repetition_type ?? null,
      converted_type: element.converted_type ?? null,
      logical_type: element.logical_type?.type ?? null,
    })),
    rows: rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)]))),
  }));
}
