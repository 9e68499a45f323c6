// zarrita (node) as the independent zarr v3 reader and writer of the interop tests.
//
//   node zarr_tool.mjs read MANIFEST.json
//     MANIFEST: [{"dir": ARRAY_DIR, "out": RAW_FILE}, ...]. Reads each whole
//     array with zarrita and writes its elements, C order, little-endian, to
//     RAW_FILE. Prints one JSON line per array: {"dir", "shape", "dtype"} or {"dir", "error"}.
//   node zarr_tool.mjs write ARRAY_DIR SPEC.json RAW_FILE
//     SPEC: {"shape", "chunk_shape", "dtype", "codecs", "fill_value"}. Creates
//     the array with zarrita and writes RAW_FILE's elements into it.
import * as fs from "node:fs";
import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";

const TYPED = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array,
};

function bytesOf(data) {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

async function readOne(entry) {
  const store = new FileSystemStore(entry.dir);
  const array = await zarr.open(zarr.root(store), { kind: "array" });
  const chunk = await zarr.get(array);
  fs.writeFileSync(entry.out, bytesOf(chunk.data));
  return { dir: entry.dir, shape: chunk.shape, dtype: array.dtype };
}

async function readMany(manifestPath) {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
  for (const entry of manifest) {
    try {
      console.log(JSON.stringify(await readOne(entry)));
    } catch (error) {
      console.log(JSON.stringify({ dir: entry.dir, error: String(error) }));
    }
  }
}

async function write(dir, specPath, rawPath) {
  const spec = JSON.parse(fs.readFileSync(specPath, "utf8"));
  const store = new FileSystemStore(dir);
  const array = await zarr.create(zarr.root(store), {
    shape: spec.shape, chunkShape: spec.chunk_shape, dtype: spec.dtype,
    codecs: spec.codecs, fillValue: spec.fill_value,
  });
  const raw = fs.readFileSync(rawPath);
  const Typed = spec.dtype === "bool" ? Uint8Array : TYPED[spec.dtype];
  const copy = new Uint8Array(raw.byteLength);
  copy.set(raw);
  let data = new Typed(copy.buffer, 0, raw.byteLength / Typed.BYTES_PER_ELEMENT);
  if (spec.dtype === "bool") data = new zarr.BoolArray(copy.buffer);
  const stride = [];
  let step = 1;
  for (let d = spec.shape.length - 1; d >= 0; --d) {
    stride.unshift(step);
    step *= spec.shape[d];
  }
  await zarr.set(array, null, { data, shape: spec.shape, stride });
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "read") {
  await readMany(args[0]);
} else if (mode === "write") {
  await write(args[0], args[1], args[2]);
} else {
  console.error("usage: zarr_tool.mjs read MANIFEST | write DIR SPEC RAW");
  process.exit(2);
}
