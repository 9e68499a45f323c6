// chunkwise.h: the library's front door.
//
// One include gives a program what the CLI and the Python module use:
//   Context, OpenStore(url)           facade/context.h, facade/store_registry.h
//   CallOptions (one call's threads,
//     progress, cancellation)         facade/call_options.h
//   DetectFormat(store, prefix)       facade/format_detection.h
//   ParseCodecs, ParseDataType,
//     ParseArrayShape,
//     ParseDimensionNames             facade/options.h
//   ZarrArray, CreateZarrArray,
//     OpenZarrArray, ReadRegion,
//     WriteRegion, ConvertZarrArray   facade/zarr_arrays.h
//   ImportArrayFileIntoZarr,
//     ExportZarrRegionToFile          facade/zarr_array_files.h
//   SetZarrAttributes,
//     ResizeZarrArray                 facade/zarr_array_updates.h
//   ZarrInfo, ZarrArrayInfo           facade/zarr_info.h
//   DescribeZarrStringArray,
//     ReadZarrStrings (vlen-utf8),
//     ImportNpyIntoZarrStrings        facade/zarr_strings.h
//   OpenZarrGroup, CreateZarrGroup,
//     SetZarrGroupAttributes,
//     ListZarrGroupMembers            facade/zarr_groups.h
//   ImportNpyAsZarrArray              facade/zarr_import.h
//   ImportVolumeAsZarrArray (.npy,
//     TIFF stacks, OME-TIFF, HDF5),
//     DetectVolumeSource              facade/volume_import.h
//   FrameStreamWriter,
//     DescribeFrameStream             facade/frame_stream.h
//   ZarrArrayFromMetadata,
//     ReadZarrChunks, WriteZarrChunks facade/zarr_chunk_batches.h
//   OpenLabelmap, ReadLabelmapRegion,
//     ExportShards, OpenExportShard,
//     OpenExportedVolume,
//     ReadExportedRegion              facade/dvid_export.h
//   IngestLabels, SetLabelMappings,
//     PutLabelBlock, LabelmapRegionBox facade/dvid_labelmaps.h
//   Labelmap (versions, blocks,
//     mapping, stats of one database) facade/labelmap.h
//   ExportToPrecomputed (and its job
//     of tasks: Prepare/Part/Publish)  facade/precomputed_conversion.h
//   OpenPrecomputed, ReadPrecomputed-
//     Region, ZarrToPrecomputed       facade/precomputed_volumes.h
//   Skeletonize, ReadSkeleton         facade/skeletons.h
//   BuildReferences, WriteReferences,
//     OpenReferenceStore, Combine-
//     References, DescribeReferences  facade/references.h
//   CreateBcolz, AppendBcolz,
//     OpenBcolz, DescribeBcolz        facade/bcolz_datasets.h
//   WriteVectors, BuildVectorsPyramid,
//     ReadVectors, DescribeVectors,
//     ValidateVectors                 facade/vectors.h
//   ConvertVectors (0.8 <-> 0.9)      facade/vectors_conversion.h
//   JoinJobRanks (the job's ranks;
//     defined in chunkwise_parallel)  facade/job_ranks.h
//   NoGpuReason, DescribeGpus         facade/cuda_support.h
//   ReadUrl, LocateUrlValue           facade/url_value.h
//   GenerateDemoVolume                facade/synthetic_data.h
//   StoreServer                       facade/store_server.h
//   Viewer, FindNeuroglancerClient
//     (data + client, one address)    facade/viewer.h
//   BuildViewerState (layers,
//     contrast, position)             facade/viewer_state.h
//   ParseByteRange, PutFileAsKey,
//     ReadLocalFile                   facade/store_keys.h
//   EncodeBytes, DecodeBytes,
//     MeasureCodecs, CodecNames       facade/codec_bytes.h
//   DescribeChunkGrid,
//     CompressedMortonCode            facade/chunk_grid_report.h
//   GenerateMeshes (meshes and
//     segment properties of labels)   facade/meshes.h
//   MeshJobPart, MergeMeshJobPart,
//     FinishMeshJob, AbandonMeshJob
//     (meshing split into parts)      facade/mesh_jobs.h
//   ScanSkeletonJobPart,
//     SkeletonizeJobPart,
//     FinishSkeletonJob,
//     AbandonSkeletonJob (skeletons
//     split into parts)               facade/skeleton_jobs.h
//   CheckOutputFits (memory limit)    facade/memory_limit.h
// docs/api.md shows each in a short example. Errors are Status/Result
// (core/status.h); no call throws.
#ifndef CHUNKWISE_CHUNKWISE_H_
#define CHUNKWISE_CHUNKWISE_H_

#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/bcolz_datasets.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/chunk_grid_report.h"
#include "chunkwise/facade/codec_bytes.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/cuda_support.h"
#include "chunkwise/facade/dvid_export.h"
#include "chunkwise/facade/dvid_labelmaps.h"
#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/frame_stream.h"
#include "chunkwise/facade/job_ranks.h"
#include "chunkwise/facade/labelmap.h"
#include "chunkwise/facade/memory_limit.h"
#include "chunkwise/facade/mesh_jobs.h"
#include "chunkwise/facade/meshes.h"
#include "chunkwise/facade/options.h"
#include "chunkwise/facade/precomputed_conversion.h"
#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/references.h"
#include "chunkwise/facade/skeleton_jobs.h"
#include "chunkwise/facade/skeletons.h"
#include "chunkwise/facade/store_keys.h"
#include "chunkwise/facade/store_registry.h"
#include "chunkwise/facade/store_server.h"
#include "chunkwise/facade/synthetic_data.h"
#include "chunkwise/facade/url_value.h"
#include "chunkwise/facade/vectors.h"
#include "chunkwise/facade/vectors_conversion.h"
#include "chunkwise/facade/viewer.h"
#include "chunkwise/facade/viewer_state.h"
#include "chunkwise/facade/volume_import.h"
#include "chunkwise/facade/zarr_array_files.h"
#include "chunkwise/facade/zarr_array_updates.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "chunkwise/facade/zarr_chunk_batches.h"
#include "chunkwise/facade/zarr_groups.h"
#include "chunkwise/facade/zarr_import.h"
#include "chunkwise/facade/zarr_info.h"
#include "chunkwise/facade/zarr_strings.h"

#endif  // CHUNKWISE_CHUNKWISE_H_
