"""export-shards interop: a synthetic segmentation goes into a DVID labelmap, gets
merges, is exported to neuroglancer-sharded Arrow IPC files, and is checked by
readers independent of chunkwise's C++.

- Volume: SIZE³ (default 256³; --size 512 for the full-size run, which needs
  ~1 GiB per volume copy) of ~2,400 wavy box-shaped supervoxels, one empty
  corner block; 3 scales (ingest --scales 2). A mapping merges 300 supervoxels
  into 60 bodies and splits one (maps it to 0).
- Exports: IPC file + x,y,z,rec index (identity hash), IPC stream + DVID's
  offsets index, and murmurhash3_x86_128 sharding (hex shard names).
- `dvid read-shards` reads the whole volume at every scale; it must equal the
  input after mapping (scale 0; numpy applies the mapping), `dvid read --mapped`
  (scales > 0), and with --supervoxels the input / `dvid read`.
- apache-arrow (node, tests/interop/node/arrow_dump.mjs) opens every .arrow;
  its rows match the CSV rows one to one; each row's labels are the mapping of
  its supervoxels; at scale 0 its zstd frame (numcodecs) holds uncompressed_size
  bytes that the spec-written Python DVID decoder (dvid_interop.decode_block)
  decodes to exactly the input's chunk.
- `dvid shard` lists shards and writes single chunks (file and stream), and
  reads a DVID-style stream shard whose index says schema_size=0.
- Bad input exits 1 with a clear message and leaves nothing in DEST: a
  truncated .arrow, a CSV row past the record count, a corrupt gzip value in
  the database, chunk sizes other than 64, an unsupported hash, an existing DEST.

usage: /usr/bin/python3 export_interop.py --chunkwise build/chunkwise --tool build/.../export_interop_tool
           --node-script tests/interop/node/arrow_dump.mjs --workdir DIR [--size 256]
"""
import argparse
import csv
import json
import pathlib
import shutil
import sys
import time

import numcodecs
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dvid_interop import decode_block  # noqa: E402
from interop_check import Checks, run  # noqa: E402

NUM_SCALES = 3


def segmentation(n):
    z, y, x = np.ogrid[0:n, 0:n, 0:n]
    a = (z + (5 * np.sin(x / 23.0)).astype(np.int64)) // 16
    b = (y + (5 * np.sin(z / 19.0)).astype(np.int64)) // 20
    c = (x + (5 * np.sin(y / 29.0)).astype(np.int64)) // 24
    volume = ((a + 1) * 10000 + (b + 1) * 100 + (c + 1)).astype(np.uint64)
    volume[:64, :64, :64] = 0  # One block without labels: not stored, not exported.
    return volume


def make_mapping(volume, seed=7):
    rng = np.random.default_rng(seed)
    ids = np.unique(volume)
    ids = ids[ids != 0]
    chosen = rng.choice(ids, 301, replace=False)
    mapping = {int(sv): 1_000_000_000 + i % 60 for i, sv in enumerate(chosen[:300])}
    mapping[int(chosen[300])] = 0  # A split supervoxel.
    return mapping


def apply_mapping(volume, mapping):
    unique, inverse = np.unique(volume, return_inverse=True)
    mapped = np.array([mapping.get(int(u), int(u)) for u in unique], np.uint64)
    return mapped[inverse].reshape(volume.shape)


def spec(n, hash_name="identity", chunk=64, preshift=0, minishard=1, shard=5):
    scales = []
    for s in range(NUM_SCALES):
        size = -(-n // (1 << s))
        scales.append({"key": f"s{s}", "size": [size] * 3, "resolution": [8 << s] * 3,
                       "chunk_sizes": [[chunk] * 3], "encoding": "compressed_segmentation",
                       "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": preshift,
                                    "hash": hash_name, "minishard_bits": minishard, "shard_bits": shard,
                                    "minishard_index_encoding": "gzip", "data_encoding": "gzip"}})
    return {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1, "scales": scales}


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def no_leftovers(directory):
    return not [p.name for p in directory.iterdir() if p.name.startswith(".") and ".tmp." in p.name]


def check_read_back(checks, binary, work, dest, expected):
    for s in range(NUM_SCALES):
        out = work / f"{dest.name}-s{s}.npy"
        cli(binary, "dvid", "read-shards", dest, "--scale", s, "--output", out, "--overwrite")
        checks.expect(np.array_equal(np.load(out), expected["mapped"][s]),
                      f"{dest.name}: read-shards scale {s} = mapped input ({expected['mapped'][s].shape})")
        cli(binary, "dvid", "read-shards", dest, "--scale", s, "--output", out, "--supervoxels", "--overwrite")
        checks.expect(np.array_equal(np.load(out), expected["supervoxels"][s]),
                      f"{dest.name}: read-shards --supervoxels scale {s} = supervoxels")
    n = expected["mapped"][0].shape[0]
    box = f"{n // 3}:{n - 5},7:{n // 2 + 3},{n // 4 + 1}:{n - 1}"
    out = work / f"{dest.name}-box.npy"
    cli(binary, "dvid", "read-shards", dest, "--region", box, "--output", out, "--overwrite")
    z0, z1 = n // 3, n - 5
    checks.expect(np.array_equal(np.load(out), expected["mapped"][0][z0:z1, 7:n // 2 + 3, n // 4 + 1:n - 1]),
                  f"{dest.name}: unaligned box {box} across shards")


def csv_rows(path):
    lines = path.read_text().splitlines()
    if lines and lines[0].startswith("#"):
        lines = lines[1:]
    return list(csv.DictReader(lines))


def check_shard_file(checks, node, arrow_path, mapping, volume):
    """apache-arrow's rows against the CSV rows; scale-0 blocks against the input."""
    dump = json.loads(run(["node", node, "dump", arrow_path]).stdout)
    rows = csv_rows(arrow_path.with_suffix(".csv"))
    ok = sum(dump["batches"]) == len(rows) and all(b == 1 for b in dump["batches"])
    if rows and "offset" in rows[0]:  # Records lie in file order; rank them by offset.
        order = sorted(range(len(rows)), key=lambda i: int(rows[i]["offset"]))
        record_of = {i: r for r, i in enumerate(order)}
    else:
        record_of = {i: int(row["rec"]) for i, row in enumerate(rows)}
    zstd = numcodecs.Zstd()
    columns = dump["columns"]
    for i, row in enumerate(rows):
        r = record_of[i]
        chunk = [int(row["x"]), int(row["y"]), int(row["z"])]
        svs = [int(v) for v in columns["supervoxels"][r]]
        ok &= [int(columns[f"chunk_{a}"][r]) for a in "xyz"] == chunk
        ok &= [int(v) for v in columns["labels"][r]] == [mapping.get(v, v) for v in svs]
        block = zstd.decode(bytes.fromhex(columns["dvid_compressed_block"][r]))
        ok &= len(block) == int(columns["uncompressed_size"][r])
        ok &= list(np.frombuffer(block, "<u8", len(svs), 16)) == svs
        if volume is not None:
            x, y, z = (c * 64 for c in chunk)
            ok &= np.array_equal(decode_block(block), volume[z:z + 64, y:y + 64, x:x + 64])
    return ok, len(rows)


def check_arrow_files(checks, node, dest, mapping, volume):
    for s in range(NUM_SCALES):
        files = sorted((dest / f"s{s}").glob("*.arrow"))
        results = [check_shard_file(checks, node, f, mapping, volume if s == 0 else None) for f in files]
        bad = [f.name for f, (ok, _) in zip(files, results) if not ok]
        checks.expect(files and not bad,
                      f"{dest.name} s{s}: apache-arrow opens {len(files)} .arrow files, "
                      f"{sum(n for _, n in results)} rows match their CSV rows{' (bad: ' + ', '.join(bad) + ')' if bad else ''}")


def check_shard_command(checks, binary, work, dest, expected):
    """`dvid shard` describes a shard and writes one chunk, mapped or not."""
    arrow_path = sorted((dest / "s0").glob("*.arrow"))[-1]
    rows = csv_rows(arrow_path.with_suffix(".csv"))
    listing = cli(binary, "dvid", "shard", arrow_path, "--list").stdout
    fmt = "stream" if "stream" in dest.name else "file"
    checks.expect(f"Arrow IPC {fmt} format" in listing and f"{len(rows)} chunks" in listing
                  and len(listing.splitlines()) == len(rows) + 2,
                  f"{dest.name}: dvid shard --list describes {arrow_path.name} ({fmt}, {len(rows)} chunks)")
    x, y, z = (int(rows[-1][a]) for a in "xyz")
    for flag, key in ((["--mapped"], "mapped"), ([], "supervoxels")):
        out = work / f"{dest.name}-chunk-{key}.npy"
        cli(binary, "dvid", "shard", arrow_path, "--chunk", f"{x},{y},{z}", "--output", out, "--overwrite", *flag)
        want = expected[key][0][z * 64:z * 64 + 64, y * 64:y * 64 + 64, x * 64:x * 64 + 64]
        checks.expect(np.array_equal(np.load(out), want), f"{dest.name}: dvid shard --chunk {x},{y},{z} {key}")


def check_dvid_lazy_schema_index(checks, binary, work, dest, expected):
    """DVID's own output: a stream whose CSV says schema_size=0 and whose first
    range starts at 0, including the schema message (docs/formats/dvid.md,
    "DVID quirks not copied", 2)."""
    source = sorted((dest / "s0").glob("*.arrow"))[-1]
    copy = work / "dvid-style.arrow"
    shutil.copy(source, copy)
    lines = source.with_suffix(".csv").read_text().splitlines()
    rows = list(csv.DictReader(lines[1:]))
    first = min(rows, key=lambda r: int(r["offset"]))
    first["size"], first["offset"] = str(int(first["size"]) + int(first["offset"])), "0"
    text = "# schema_size=0\nx,y,z,offset,size,batch_idx\n" + "".join(
        f"{r['x']},{r['y']},{r['z']},{r['offset']},{r['size']},{r['batch_idx']}\n" for r in rows)
    copy.with_suffix(".csv").write_text(text)
    x, y, z = (int(first[a]) for a in "xyz")
    out = work / "dvid-style-chunk.npy"
    cli(binary, "dvid", "shard", copy, "--chunk", f"{x},{y},{z}", "--output", out, "--overwrite", "--mapped")
    want = expected["mapped"][0][z * 64:z * 64 + 64, y * 64:y * 64 + 64, x * 64:x * 64 + 64]
    checks.expect(np.array_equal(np.load(out), want),
                  "dvid shard reads a DVID-style stream shard (schema_size=0, first range from byte 0)")


def export(checks, binary, db, spec_path, dest, *options):
    start = time.monotonic()
    cli(binary, "dvid", "export-shards", db, spec_path, dest, "--workers", "2", *options)
    log = (dest / "export.log").read_text().splitlines()[-1]
    print(f"     {dest.name}: {time.monotonic() - start:.1f} s; {log}")
    checks.expect((dest / "info").exists() and no_leftovers(dest.parent), f"{dest.name}: info written, no temporaries")


def check_bad_inputs(checks, args, work, db, spec_path, good):
    binary = args.chunkwise
    bad = work / "bad-truncated"
    shutil.copytree(good, bad)
    victim = sorted((bad / "s0").glob("*.arrow"))[-1]
    victim.write_bytes(victim.read_bytes()[:victim.stat().st_size // 2])
    result = cli(binary, "dvid", "read-shards", bad, "--output", work / "never.npy", ok=False)
    checks.expect(result.returncode == 1 and victim.name in result.stderr and not (work / "never.npy").exists(),
                  f"truncated .arrow refused naming it: {result.stderr.strip()[:160]}")
    result = cli(binary, "dvid", "shard", victim, ok=False)
    checks.expect(result.returncode == 1 and victim.name in result.stderr, "dvid shard refuses the truncated file")

    bad = work / "bad-csv"
    shutil.copytree(good, bad)
    index = sorted((bad / "s0").glob("*.csv"))[0]
    records = len(csv_rows(index))
    with open(index, "a") as f:
        f.write(f"99,99,99,{records}\n")
    result = cli(binary, "dvid", "read-shards", bad, "--output", work / "never.npy", ok=False)
    checks.expect(result.returncode == 1 and index.name in result.stderr and "past" in result.stderr,
                  f"CSV row past the record count refused: {result.stderr.strip()[:160]}")

    bad_db = work / "bad.db"
    shutil.copytree(db, bad_db)
    run([args.tool, "corrupt-value", bad_db, 0, 1, 1, 1])
    dest = work / "bad-gzip-out"
    result = cli(binary, "dvid", "export-shards", bad_db, spec_path, dest, ok=False)
    checks.expect(result.returncode == 1 and "1,1,1" in result.stderr and not dest.exists() and no_leftovers(work),
                  f"corrupt gzip value: clear error, no DEST: {result.stderr.strip()[:160]}")

    for name, text, words in [("chunk32.json", spec(args.size, chunk=32), "chunk_sizes"),
                              ("sha.json", spec(args.size, hash_name="sha256"), "hash")]:
        (work / name).write_text(json.dumps(text))
        dest = work / f"bad-{name}-out"
        result = cli(binary, "dvid", "export-shards", db, work / name, dest, ok=False)
        checks.expect(result.returncode == 1 and words in result.stderr and name in result.stderr and not dest.exists(),
                      f"{name} refused: {result.stderr.strip()[:160]}")

    result = cli(binary, "dvid", "export-shards", db, spec_path, good, ok=False)
    checks.expect(result.returncode == 1 and "--overwrite" in result.stderr and (good / "info").exists(),
                  "an existing DEST is refused without --overwrite and left as it was")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--node-script", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    checks = Checks()
    binary = args.chunkwise

    volume = segmentation(args.size)
    mapping = make_mapping(volume)
    print(f"     volume {volume.shape}, {len(np.unique(volume)) - 1} supervoxels, {len(mapping)} mapped")
    np.save(work / "labels.npy", volume)
    db = work / "labelmap.db"
    cli(binary, "dvid", "ingest", db, "--input", work / "labels.npy", "--scales", NUM_SCALES - 1)
    np.array(sorted(mapping.items()), "<u8").tofile(work / "pairs.bin")
    cli(binary, "dvid", "map", db, "--pairs", work / "pairs.bin")

    expected = {"mapped": [apply_mapping(volume, mapping)], "supervoxels": [volume]}
    for s in range(1, NUM_SCALES):
        n = -(-args.size // (1 << s))
        for key, flag in (("mapped", ["--mapped"]), ("supervoxels", [])):
            out = work / f"dvid-s{s}-{key}.npy"
            cli(binary, "dvid", "read", db, "--scale", s, "--shape", f"{n},{n},{n}", "--output", out, *flag)
            expected[key].append(np.load(out))

    identity, murmur = work / "spec.json", work / "spec-murmur.json"
    identity.write_text(json.dumps(spec(args.size)))
    murmur.write_text(json.dumps(spec(args.size, "murmurhash3_x86_128", minishard=1, shard=3)))
    exports = [(work / "out-file-rec", identity, []),
               (work / "out-stream-offsets", identity, ["--arrow-format", "stream", "--index", "offsets"]),
               (work / "out-murmur", murmur, [])]
    for dest, spec_path, options in exports:
        export(checks, binary, db, spec_path, dest, *options)
        check_read_back(checks, binary, work, dest, expected)
        check_arrow_files(checks, args.node_script, dest, mapping, volume)
        check_shard_command(checks, binary, work, dest, expected)
    check_dvid_lazy_schema_index(checks, binary, work, work / "out-stream-offsets", expected)
    murmur_names = [p.stem for p in (work / "out-murmur" / "s0").glob("*.arrow")]
    checks.expect(murmur_names and all(len(n) == 1 and int(n, 16) < 8 for n in murmur_names),
                  f"murmurhash shards are named by shard number in hex: {sorted(murmur_names)}")
    check_bad_inputs(checks, args, work, db, identity, work / "out-file-rec")
    checks.finish()


if __name__ == "__main__":
    main()
