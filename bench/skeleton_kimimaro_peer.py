"""A peer of bench/skeleton_bench.cc: kimimaro.skeletonize on the same label
volume, invalidation ball and threads.

usage: python skeleton_kimimaro_peer.py VOLUME.raw Z,Y,X VX,VY,VZ SCALE CONST THREADS RUNS
VOLUME.raw is the z,y,x C-order uint64 volume; it is loaded (and given to
kimimaro as x, y, z in Fortran order, its layout, without a copy) before
timing. Prints one JSON line: {"seconds": [...], "cpu_seconds": [...],
"cable_length": nm}; CPU seconds are user + system of this process and of
the worker processes kimimaro starts for parallel > 1.
"""
import json
import resource
import sys
import time

import numpy as np

import kimimaro


def _cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main():
    raw, shape_text, voxel_text, scale, const, threads, runs = sys.argv[1:8]
    shape = tuple(int(v) for v in shape_text.split(","))
    anisotropy = tuple(float(v) for v in voxel_text.split(","))
    labels = np.fromfile(raw, dtype="<u8").reshape(shape).transpose(2, 1, 0)  # x, y, z, Fortran
    params = {"scale": float(scale), "const": float(const), "pdrf_scale": 100000, "pdrf_exponent": 4}
    seconds, cpu_seconds, cable = [], [], 0.0
    for _ in range(int(runs)):
        cpu_start = _cpu_seconds()
        start = time.perf_counter()
        skeletons = kimimaro.skeletonize(labels, teasar_params=params, anisotropy=anisotropy,
                                         dust_threshold=0, progress=False, parallel=int(threads),
                                         fix_borders=True, fix_branching=True)
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(_cpu_seconds() - cpu_start)
        cable = float(sum(s.cable_length() for s in skeletons.values()))
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "cable_length": cable}))


if __name__ == "__main__":
    main()
