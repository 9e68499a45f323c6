// Decodes a zstd frame or a gzip member that chunkwise wrote, with readers
// chunkwise did not write, and compares the result to the expected bytes.
//
// usage: node decode_stream.mjs zstd|gzip|blosc ENCODED EXPECTED
//   zstd  -> numcodecs.js Zstd (the wasm codec zarrita uses) and fzstd (pure JS)
//   gzip  -> node's zlib.gunzipSync and numcodecs.js GZip
//   blosc -> numcodecs.js Blosc
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { decompress as fzstdDecompress } from "fzstd";
import Zstd from "numcodecs/zstd";
import GZip from "numcodecs/gzip";
import Blosc from "numcodecs/blosc";

const [kind, encodedPath, expectedPath] = process.argv.slice(2);
if (!kind || !encodedPath || !expectedPath) {
  console.error("usage: node decode_stream.mjs zstd|gzip|blosc ENCODED EXPECTED");
  process.exit(2);
}
const encoded = new Uint8Array(readFileSync(encodedPath));
const expected = new Uint8Array(readFileSync(expectedPath));

const decoders = {
  zstd: [
    ["numcodecs.js Zstd", async (b) => new Zstd().decode(b)],
    ["fzstd", async (b) => fzstdDecompress(b)],
  ],
  gzip: [
    ["node zlib.gunzipSync", async (b) => new Uint8Array(gunzipSync(b))],
    ["numcodecs.js GZip", async (b) => new GZip().decode(b)],
  ],
  blosc: [["numcodecs.js Blosc", async (b) => (await Blosc.fromConfig({})).decode(b)]],
};
if (!(kind in decoders)) {
  console.error(`unknown kind ${kind}`);
  process.exit(2);
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

let failed = false;
for (const [name, decode] of decoders[kind]) {
  const decoded = new Uint8Array(await decode(encoded));
  const at = firstDifference(decoded, expected);
  if (at >= 0) {
    console.error(`FAIL ${name}: ${decoded.length} bytes decoded, ${expected.length} expected, first difference at ${at}`);
    failed = true;
  } else {
    console.log(`ok ${name}: ${decoded.length} bytes match`);
  }
}
process.exit(failed ? 1 : 0);
