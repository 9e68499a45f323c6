"""A peer of bench/mesh_bench.cc: zmesh's marching cubes and simplification
of every label of the same volume, with the same factor and error.

usage: python mesh_zmesh_peer.py VOLUME.raw Z,Y,X VX,VY,VZ FACTOR MAX_ERROR RUNS
VOLUME.raw is the z,y,x C-order uint64 volume; it is loaded (and given to
zmesh as x, y, z in Fortran order, its layout, without a copy) before
timing. Prints one JSON line: {"seconds": [...], "cpu_seconds": [...] (the
process's CPU time of each run), "faces": all labels' faces}.
"""
import json
import sys
import time

import numpy as np

import zmesh


def main():
    raw, shape_text, voxel_text, factor, max_error, runs = sys.argv[1:7]
    shape = tuple(int(v) for v in shape_text.split(","))
    resolution = tuple(float(v) for v in voxel_text.split(","))
    labels = np.fromfile(raw, dtype="<u8").reshape(shape).transpose(2, 1, 0)  # x, y, z, Fortran
    seconds, cpu_seconds, faces = [], [], 0
    for _ in range(int(runs)):
        start, cpu_start = time.perf_counter(), time.process_time()
        mesher = zmesh.Mesher(resolution)
        mesher.mesh(labels, close=True)
        faces = 0
        for label in mesher.ids():
            mesh = mesher.get(label, normals=False, reduction_factor=float(factor),
                              max_error=float(max_error), voxel_centered=False)
            faces += len(mesh.faces)
            mesher.erase(label)
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "faces": faces}))


if __name__ == "__main__":
    main()
