# Type stubs of chunkwise._core, the native half of the package (python/src).
# Users call chunkwise.open/create, chunkwise.zarr.Store and chunkwise.StreamWriter.
from collections.abc import Callable, Sequence
from typing import Any

# A progress callback: (bytes done, total bytes or None when unknown).
_Progress = Callable[[int, int | None], Any] | None

import numpy as np
from numpy.typing import NDArray

__version__: str

def set_cache_bytes(nbytes: int) -> None: ...
def cache_stats() -> dict[str, int]: ...
def reset_cache_stats() -> None: ...
def set_read_coalescing(
    remote: bool, local: bool, max_gap: int, max_waste: float, max_request: int, small_gap: int
) -> None: ...
def read_coalescing() -> dict[str, bool | int | float]: ...

class CancelToken:
    def __init__(self) -> None: ...
    def cancel(self) -> None: ...
    def reset(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...

class CreateRequest:
    shape: list[int]
    dtype: str
    byte_order: str
    chunks: list[int]
    shards: list[int] | None
    codec: str | None
    codecs_json: str | None
    fill_value: str | None
    dimension_names: list[str | None]
    attributes_json: str
    zarr_format: int
    index_location: str
    checksum: str
    def __init__(self) -> None: ...

class ConvertRequest:
    chunks: list[int] | None
    shards: list[int] | None
    unsharded: bool
    codecs: str | None
    checksum: str
    index_location: str
    zarr_format: int
    overwrite: bool
    resume: bool
    blosc_encoder: str
    threads: int
    def __init__(self) -> None: ...

class ImportRequest:
    overwrite: bool
    resume: bool
    blosc_encoder: str
    threads: int
    dataset: str
    def __init__(self) -> None: ...

class ZarrToPrecomputedRequest:
    type: str | None
    encoding: str | None
    chunk: list[int]
    resolution: list[float]
    num_scales: int
    sharded: bool
    sharding_json: str | None
    gzip_level: int
    overwrite: bool
    threads: int
    def __init__(self) -> None: ...

def zarr_info_json(url: str) -> str: ...
def describe_string_array(url: str) -> dict[str, Any]: ...
def read_strings(url: str, start: Sequence[int], stop: Sequence[int]) -> list[str]: ...
def write_strings(
    url: str, start: Sequence[int], stop: Sequence[int], values: Sequence[str]
) -> None: ...
def read_bytes(url: str, start: Sequence[int], stop: Sequence[int]) -> list[bytes]: ...
def write_bytes(
    url: str, start: Sequence[int], stop: Sequence[int], values: list[bytes]
) -> None: ...
def create_string_array(
    url: str,
    shape: Sequence[int],
    chunks: Sequence[int],
    shards: Sequence[int] | None,
    codec: str,
    fill_value: bytes,
    dimension_names: Sequence[str | None],
    attributes_json: str,
    zarr_format: int,
    checksum: str,
    overwrite: bool,
    bytes: bool = False,
) -> dict[str, Any]: ...
def zarr_to_precomputed(
    source: str,
    dest: str,
    request: ZarrToPrecomputedRequest,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...

class Array:
    @staticmethod
    def open(url: str) -> Array: ...
    @staticmethod
    def import_npy(
        path: str,
        url: str,
        layout: CreateRequest,
        request: ImportRequest,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> Array: ...
    @staticmethod
    def import_volume(
        path: str,
        url: str,
        layout: CreateRequest,
        request: ImportRequest,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> Array: ...
    @staticmethod
    def convert(
        source: str,
        destination: str,
        request: ConvertRequest,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> Array: ...
    @staticmethod
    def create(
        url: str,
        request: CreateRequest,
        overwrite: bool,
        publish: bool = True,
        data: NDArray[Any] | None = None,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> Array: ...
    @staticmethod
    def join_unpublished(url: str, metadata_json: str, codec: str | None = None) -> Array: ...
    @property
    def url(self) -> str: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def chunks(self) -> list[int]: ...
    @property
    def shards(self) -> list[int] | None: ...
    @property
    def zarr_format(self) -> int: ...
    @property
    def metadata_json(self) -> str: ...
    @property
    def attributes_json(self) -> str: ...
    def read_into(
        self,
        start: list[int],
        stop: list[int],
        out: NDArray[Any],
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> None: ...
    def read_new(
        self,
        start: list[int],
        stop: list[int],
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> NDArray[np.uint8]: ...
    def read_chunk(self, chunk: list[int]) -> NDArray[np.uint8]: ...
    def write(
        self,
        start: list[int],
        stop: list[int],
        data: NDArray[Any],
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> None: ...
    def set_attributes(self, attributes_json: str) -> None: ...
    def resize(self, shape: list[int]) -> None: ...
    def publish(self) -> None: ...
    def info_json(self) -> str: ...
    def stats(self) -> dict[str, int]: ...

class Group:
    @staticmethod
    def open(url: str) -> Group: ...
    @staticmethod
    def create(url: str, zarr_format: int, attributes_json: str, overwrite: bool) -> Group: ...
    @property
    def url(self) -> str: ...
    @property
    def zarr_format(self) -> int: ...
    @property
    def attributes_json(self) -> str: ...
    def set_attributes(self, attributes_json: str) -> None: ...
    def members(self) -> list[tuple[str, bool]]: ...

class Store:
    @staticmethod
    def open(url: str, create: bool) -> Store: ...
    @staticmethod
    def open_references(url: str, roots: list[str], allow_remote: bool) -> Store: ...
    @property
    def url(self) -> str: ...
    def get(self, key: str) -> NDArray[np.uint8] | None: ...
    def get_range(
        self, key: str, offset: int, length: int | None, suffix: bool
    ) -> NDArray[np.uint8] | None: ...
    def set(self, key: str, data: NDArray[Any]) -> None: ...
    def erase(self, key: str) -> None: ...
    def exists(self, key: str) -> bool: ...
    def size(self, key: str) -> int | None: ...
    def list(self, prefix: str) -> list[str]: ...
    def describe(self, key: str) -> str: ...
    def capabilities(self) -> dict[str, bool]: ...

class StreamRequest:
    shape: list[int]
    dtype: str
    chunks: list[int]
    tiles_per_shard: list[int] | None
    codec: str
    checksum: str
    fill_value: str | None
    dimension_names: list[str]
    index_location: str
    backend: str
    threads: int
    max_memory: int
    levels: int
    downsample: str
    downsample_factors: list[int]
    voxel_size: list[float]
    unit: str
    def __init__(self) -> None: ...

def stream_memory_estimate(request: StreamRequest) -> dict[str, int]: ...

class StreamWriter:
    def __init__(
        self,
        url: str,
        request: StreamRequest,
        overwrite: bool,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> None: ...
    def append(self, data: NDArray[Any]) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> dict[str, Any]: ...
    def abort(self) -> None: ...
    def stats(self) -> dict[str, Any]: ...
    @property
    def closed(self) -> bool: ...
    @property
    def frame_bytes(self) -> int: ...
    @property
    def memory(self) -> dict[str, int]: ...
    def describe(self) -> str: ...

# chunkwise.zarr.CodecPipeline's native half (chunk_batch_binding.cc).
def check_zarr_metadata(text: str, zattrs: str | None, zarr_format: int) -> None: ...

class ChunkBatchArray:
    # url None: an array for read_values/write_values only (a store zarr-python reaches).
    def __init__(
        self, url: str | None, prefix: str, text: str, zattrs: str | None, zarr_format: int
    ) -> None: ...
    @property
    def dtype(self) -> str: ...
    @property
    def chunk_shape(self) -> list[int]: ...
    # transfers: int64 rows of shape (n, 4, rank): chunk, box start, box stop, buffer origin.
    def read(self, transfers: NDArray[np.int64], out: NDArray[Any]) -> list[bool]: ...
    def write(self, transfers: NDArray[np.int64], data: NDArray[Any]) -> None: ...
    # The same from (and to) chunk values zarr-python fetches (and stores); None: no value.
    def read_values(
        self,
        transfers: NDArray[np.int64],
        out: NDArray[Any],
        values: list[NDArray[np.uint8] | None],
    ) -> list[bool]: ...
    def write_values(
        self,
        transfers: NDArray[np.int64],
        data: NDArray[Any],
        old_values: list[NDArray[np.uint8] | None],
    ) -> list[NDArray[np.uint8] | None]: ...
# DVID (dvid_binding.cc); users call chunkwise.dvid.
class Labelmap:
    def __init__(self, path: str, create: bool, read_only: bool) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    @property
    def num_scales(self) -> int: ...
    def versions(self) -> list[dict[str, Any]]: ...
    @property
    def newest(self) -> int: ...
    @property
    def newest_open(self) -> int: ...
    def ingest(
        self,
        volume: NDArray[np.uint64],
        offset: list[int],
        version: int,
        scales: int,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, Any]: ...
    def set_mappings(self, pairs: NDArray[np.uint64], version: int) -> None: ...
    def merge(self, label: int, supervoxels: NDArray[np.uint64], version: int) -> None: ...
    def split(self, supervoxels: NDArray[np.uint64], version: int) -> None: ...
    def mapping(self, version: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]: ...
    def commit(self, version: int, note: str) -> int: ...
    def branch(self, parent: int, note: str) -> int: ...
    def stored_extent(self, version: int, scale: int) -> tuple[list[int], list[int]] | None: ...
    def read(
        self,
        offset: list[int],
        shape: list[int],
        version: int,
        scale: int,
        mapped: bool,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> NDArray[np.uint64]: ...
    def stats(self) -> dict[str, Any]: ...
    def get_block_bytes(
        self, block: list[int], scale: int, version: int, stored: bool
    ) -> bytes | None: ...
    def put_block_bytes(self, block: list[int], data: bytes, scale: int, version: int) -> None: ...

class ExportSpec:
    @staticmethod
    def parse(text: str, name: str) -> ExportSpec: ...
    @staticmethod
    def read(url: str) -> ExportSpec: ...
    @property
    def info_json(self) -> str: ...
    @property
    def num_scales(self) -> int: ...

def default_export_spec(
    labelmap: Labelmap, version: int, resolution: tuple[float, float, float]
) -> ExportSpec: ...
def export_shards(
    labelmap: Labelmap,
    spec: ExportSpec,
    dest: str,
    scales: int,
    version: int,
    threads: int,
    format: str,
    index: str,
    overwrite: bool,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...

class ArrowShardReader:
    def __init__(self, url: str, read_whole: bool) -> None: ...
    @property
    def url(self) -> str: ...
    @property
    def is_file_format(self) -> bool: ...
    @property
    def num_record_batches(self) -> int: ...
    @property
    def index_form(self) -> str: ...
    def list_chunks(self) -> list[list[int]]: ...
    def get_chunk(self, x: int, y: int, z: int) -> dict[str, Any] | None: ...
    def get_block(self, x: int, y: int, z: int, supervoxels: bool) -> NDArray[np.uint64]: ...

class ExportedVolume:
    def __init__(self, url: str) -> None: ...
    @property
    def url(self) -> str: ...
    @property
    def num_scales(self) -> int: ...
    def shape(self, scale: int) -> list[int]: ...
    def scale_key(self, scale: int) -> str: ...
    def read(
        self,
        scale: int,
        offset: list[int],
        shape: list[int],
        supervoxels: bool,
        progress: _Progress = None,
        cancel: CancelToken | None = None,
    ) -> NDArray[np.uint64]: ...
    def read_into(
        self,
        scale: int,
        offset: list[int],
        shape: list[int],
        supervoxels: bool,
        out: NDArray[np.uint64],
    ) -> None: ...

# export-shards as a job of tasks (export_job_binding.cc); users call chunkwise.dask.
def export_shard_count(spec_url: str) -> int: ...
def export_shards_prepare(dest_url: str, overwrite: bool, resume: bool) -> None: ...
def export_shards_part(
    labelmap: str,
    spec_url: str,
    dest_url: str,
    part: int,
    parts: int,
    workers: int,
    version: int,
    num_scales: int,
    resume: bool,
    cancel: CancelToken | None = None,
) -> str: ...
def export_shards_publish(
    labelmap: str,
    spec_url: str,
    dest_url: str,
    parts: list[str],
    version: int,
    num_scales: int,
) -> tuple[str, str]: ...

# export → precomputed as a job of tasks (precomputed_job_binding.cc); users call chunkwise.dask.
class PrecomputedRequest:
    scales: list[int]
    threads: int
    supervoxels: bool
    data_encoding: str
    gzip_level: int
    overwrite: bool
    resume: bool
    def __init__(self) -> None: ...

def to_precomputed_count(export_url: str, spec_url: str, request: PrecomputedRequest) -> int: ...
def to_precomputed_prepare(
    export_url: str, dest_url: str, spec_url: str, request: PrecomputedRequest
) -> None: ...
def to_precomputed_part(
    export_url: str,
    dest_url: str,
    spec_url: str,
    part: int,
    parts: int,
    request: PrecomputedRequest,
) -> str: ...
def to_precomputed_publish(
    export_url: str,
    dest_url: str,
    spec_url: str,
    parts: list[str],
    request: PrecomputedRequest,
) -> tuple[str, str]: ...


class ReferenceBuildRequest:
    format: str
    url_base: str
    templates: bool
    record_size: int
    root_array_name: str
    overwrite: bool
    def __init__(self) -> None: ...

def build_references(
    source: str,
    output: str,
    request: ReferenceBuildRequest,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...

class BcolzWriteRequest:
    descr: str
    shape: list[int]
    cname: str
    clevel: int
    shuffle: int
    chunklen: int
    threads: int
    overwrite: bool
    append: bool
    def __init__(self) -> None: ...

def bcolz_write(
    url: str,
    request: BcolzWriteRequest,
    data: NDArray[Any],
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> int: ...
def bcolz_read(
    url: str,
    slice: str,
    columns: list[str],
    where: str,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> tuple[str, list[int], NDArray[np.uint8]]: ...
def bcolz_info(url: str) -> str: ...

class BcolzImportRequest:
    cname: str
    clevel: int
    shuffle: int
    chunklen: int
    threads: int
    overwrite: bool
    append: bool
    def __init__(self) -> None: ...

def bcolz_import(
    url: str,
    input: str,
    request: BcolzImportRequest,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...

class VectorsWriteRequest:
    type: str
    chunk_shape: list[float]
    overwrite: bool
    layout: str
    vertex_attribute_names: list[str]
    link_attribute_names: list[str]
    link_attribute_channels: list[int]
    def __init__(self) -> None: ...

def vectors_write(
    url: str,
    request: VectorsWriteRequest,
    positions: NDArray[np.float32],
    links: NDArray[np.int64] | None,
    object_ids: NDArray[np.int64] | None,
    vertex_attributes: list[NDArray[np.float32]],
    link_attributes: list[NDArray[np.float32]],
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, int]: ...
def vectors_convert(
    source: str,
    destination: str,
    layout: str,
    overwrite: bool,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, int]: ...
def vectors_read(
    url: str,
    level: int,
    region: str,
    object_id: int | None,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...
def mesh(
    source: str,
    dest: str,
    format: str,
    labels: list[int] | None,
    names: str | None,
    overwrite: bool,
    threads: int,
    lods: int = 3,
    chunk: list[int] | None = None,
    simplification_factor: float = 100,
    max_simplification_error: float = 40,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...

# meshing as a job of tasks (mesh_binding.cc); users call chunkwise.dask.mesh.
class MeshRequest:
    format: str
    labels: list[int] | None
    names: str | None
    overwrite: bool
    threads: int
    lods: int
    chunk: list[int] | None
    simplification_factor: float
    max_simplification_error: float
    def __init__(self) -> None: ...

def mesh_job_part(
    source: str,
    dest: str,
    part: int,
    parts: int,
    request: MeshRequest,
    cancel: CancelToken | None = None,
) -> None: ...
def mesh_job_merge(
    source: str,
    dest: str,
    part: int,
    parts: int,
    request: MeshRequest,
    cancel: CancelToken | None = None,
) -> None: ...
def mesh_job_finish(source: str, dest: str, parts: int, request: MeshRequest) -> dict[str, Any]: ...
def mesh_job_abandon(dest: str, parts: int, request: MeshRequest, merged: bool) -> None: ...
def skeletonize(
    source: str,
    dest: str,
    format: str,
    labels: list[int],
    scale: float,
    constant: float,
    voxel_size: list[float] | None,
    overwrite: bool,
    directory: str,
    chunk_shape: list[float] | None,
    threads: int,
    max_memory: int = 0,
    progress: _Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]: ...
def read_skeleton(url: str, label: int) -> dict[str, Any]: ...

class SkeletonRequest:
    format: str
    labels: list[int]
    scale: float
    constant: float
    voxel_size: list[float] | None
    overwrite: bool
    directory: str
    chunk_shape: list[float] | None
    threads: int
    max_memory: int
    def __init__(self) -> None: ...

def skeleton_job_scan(
    source: str,
    dest: str,
    part: int,
    parts: int,
    request: SkeletonRequest,
    cancel: CancelToken | None = None,
) -> None: ...
def skeleton_job_part(
    source: str,
    dest: str,
    part: int,
    parts: int,
    request: SkeletonRequest,
    cancel: CancelToken | None = None,
) -> None: ...
def skeleton_job_finish(
    source: str, dest: str, parts: int, request: SkeletonRequest
) -> dict[str, Any]: ...
def skeleton_job_abandon(
    source: str, dest: str, parts: int, request: SkeletonRequest, skeletonized: bool
) -> None: ...

class Viewer:
    @property
    def url(self) -> str: ...
    @property
    def link(self) -> str: ...
    @property
    def state_json(self) -> str: ...
    @property
    def layers(self) -> list[dict[str, Any]]: ...
    def stop(self) -> None: ...

def start_viewer(
    urls: list[str], client_dir: str, host: str, port: int, threads: int
) -> Viewer: ...
