#include "io/hdf5_dataset.h"

#include <hdf5.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <system_error>
#include <utility>
#include <vector>

#include "core/memory_limit.h"
#include "core/utf8.h"

namespace chunkwise::io {

namespace {

// One libhdf5 identifier, closed by its kind's close call when it goes.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// libhdf5 prints every failure's error stack to stderr unless told not to;
// here failures are Statuses. A thread-safe libhdf5 keeps the setting per
// thread, so each entry point of this file silences it and puts it back.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

herr_t KeepInnermost(unsigned, const H5E_error2_t* error, void* data) {
  if (error->desc != nullptr && *error->desc != '\0')
    *static_cast<std::string*>(data) = error->desc;
  return 0;
}

// libhdf5's innermost reason for this thread's last failure (walked from
// the API call down to where it was found), and the stack cleared.
std::string LibraryReason() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, KeepInnermost, &text);
  H5Eclear2(H5E_DEFAULT);
  return text.empty() ? "libhdf5 gives no reason" : text;
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "/a/b" for "a/b", "/a/b/" and "//a//b": the form lookups and messages use.
std::string NormalPath(std::string_view path) {
  std::string normal;
  std::size_t at = 0;
  while (at < path.size()) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    if (end > at) normal += "/" + std::string(path.substr(at, end - at));
    at = end + 1;
  }
  return normal.empty() ? "/" : normal;
}

// The group holding `path` ("/" for "/a").
std::string ParentOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

// NotFound naming the first link along `path` that is not there.
Status FindObject(hid_t file, const std::string& name, const std::string& path) {
  for (std::size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string prefix = path.substr(0, end);
    const htri_t there = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
    if (there <= 0) {
      H5Eclear2(H5E_DEFAULT);
      const std::string parent = ParentOf(prefix);
      const std::string last = prefix.substr(prefix.rfind('/') + 1);
      return Status::NotFound(
          name + ": no such dataset (" +
          (there < 0 ? parent + " is not a group" : "nothing named \"" + last + "\" in " + parent) +
          ")");
    }
    if (end == std::string::npos) return Status::Ok();
  }
}

// The datasets under a group, for a message: a few, found depth-first
// through hard and soft links (never into other files).
struct DatasetList {
  std::vector<std::string> found;
  std::string prefix;  // The group's path with a trailing "/".
  int depth = 0;
  int visited = 0;
  bool more = false;
};
constexpr std::size_t kListedDatasets = 8;
constexpr int kListDepth = 8;
constexpr int kListVisits = 2000;

herr_t ListMember(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto& list = *static_cast<DatasetList*>(data);
  if (++list.visited > kListVisits || list.found.size() > kListedDatasets) {
    list.more = true;
    return 1;  // Stop: enough for a message.
  }
  if (info->type == H5L_TYPE_EXTERNAL) return 0;
  Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (!object.valid()) return 0;
  const std::string path = list.prefix + name;
  const H5I_type_t type = H5Iget_type(object.get());
  if (type == H5I_DATASET) list.found.push_back(path);
  if (type == H5I_GROUP && list.depth < kListDepth) {
    DatasetList inner{std::move(list.found), path + "/", list.depth + 1, list.visited, false};
    H5Literate(object.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, ListMember, &inner);
    list.found = std::move(inner.found);
    list.visited = inner.visited;
    list.more = list.more || inner.more;
  }
  return 0;
}

// " (datasets in it: /g/a, /g/b)", or " (no datasets in it)".
std::string DatasetsUnder(hid_t file, const std::string& group_path) {
  Handle group(H5Gopen2(file, group_path.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) return "";
  DatasetList list;
  list.prefix = group_path == "/" ? "/" : group_path + "/";
  H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, ListMember, &list);
  H5Eclear2(H5E_DEFAULT);
  if (list.found.empty()) return " (no datasets in it)";
  std::string text = " (datasets in it: ";
  for (std::size_t i = 0; i < list.found.size() && i < kListedDatasets; ++i) {
    text += (i > 0 ? ", " : "") + list.found[i];
  }
  return text + (list.more || list.found.size() > kListedDatasets ? ", ...)" : ")");
}

// The IEEE 754 layout of a float of `bytes` bytes: sign, exponent and
// mantissa positions and sizes, and the exponent bias.
bool IsIeeeFloat(hid_t type, std::size_t bytes) {
  std::size_t sign = 0, exponent_at = 0, exponent_bits = 0, mantissa_at = 0, mantissa_bits = 0;
  if (H5Tget_fields(type, &sign, &exponent_at, &exponent_bits, &mantissa_at, &mantissa_bits) < 0) {
    return false;
  }
  const std::size_t bias = H5Tget_ebias(type);
  const bool dense = H5Tget_precision(type) == bytes * 8 && H5Tget_offset(type) == 0;
  switch (bytes) {
    case 2:
      return dense && sign == 15 && exponent_at == 10 && exponent_bits == 5 && mantissa_at == 0 &&
             mantissa_bits == 10 && bias == 15;
    case 4:
      return dense && sign == 31 && exponent_at == 23 && exponent_bits == 8 && mantissa_at == 0 &&
             mantissa_bits == 23 && bias == 127;
    case 8:
      return dense && sign == 63 && exponent_at == 52 && exponent_bits == 11 && mantissa_at == 0 &&
             mantissa_bits == 52 && bias == 1023;
    default:
      return false;
  }
}

// h5py's numpy bool: an enum of a one-byte integer, FALSE = 0 and TRUE = 1.
bool IsH5pyBool(hid_t type) {
  if (H5Tget_size(type) != 1 || H5Tget_nmembers(type) != 2) return false;
  for (unsigned i = 0; i < 2; ++i) {
    char* name = H5Tget_member_name(type, i);
    unsigned char value = 0xff;
    const bool read = name != nullptr && H5Tget_member_value(type, i, &value) >= 0;
    const std::string text = name != nullptr ? name : "";
    H5free_memory(name);
    if (!read || text != (value == 0 ? "FALSE" : "TRUE") || value > 1) return false;
  }
  return true;
}

// A copy of the native type for integers of `bytes` bytes.
Handle NativeInteger(std::size_t bytes, bool is_signed) {
  hid_t native = H5I_INVALID_HID;
  switch (bytes) {
    case 1:
      native = is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8;
      break;
    case 2:
      native = is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16;
      break;
    case 4:
      native = is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
      break;
    default:
      native = is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
      break;
  }
  return Handle(H5Tcopy(native), H5Tclose);
}

// The class of a data type in words, for Unsupported.
std::string ClassName(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_TIME:
      return "time";
    case H5T_STRING:
      return "string";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum";
    case H5T_VLEN:
      return "variable-length";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

constexpr const char* kTypesRead =
    " (integers of 8 to 64 bits, IEEE floats of 16, 32 or 64 bits and h5py's booleans are "
    "imported)";

// What `file_type` is as a volume, and the type libhdf5 converts it to in
// memory (host byte order); Unsupported naming `name` otherwise.
Result<std::pair<core::DataType, Handle>> VolumeTypeOf(hid_t file_type, const std::string& name) {
  using core::DataTypeId;
  const H5T_class_t type_class = H5Tget_class(file_type);
  const std::size_t bytes = H5Tget_size(file_type);
  if (type_class == H5T_INTEGER && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) {
    const bool is_signed = H5Tget_sign(file_type) == H5T_SGN_2;
    static constexpr DataTypeId kSigned[] = {DataTypeId::kInt8, DataTypeId::kInt16,
                                             DataTypeId::kInt32, DataTypeId::kInt64};
    static constexpr DataTypeId kUnsigned[] = {DataTypeId::kUInt8, DataTypeId::kUInt16,
                                               DataTypeId::kUInt32, DataTypeId::kUInt64};
    const int width = std::countr_zero(bytes);  // 1, 2, 4, 8 bytes: 0..3.
    return std::pair(core::DataType(is_signed ? kSigned[width] : kUnsigned[width]),
                     NativeInteger(bytes, is_signed));
  }
  if (type_class == H5T_FLOAT && IsIeeeFloat(file_type, bytes)) {
    // The file's own layout in host order: a plain copy for float16, which
    // has no native C type, and the same as H5T_NATIVE_FLOAT/DOUBLE otherwise.
    Handle memory(H5Tcopy(file_type), H5Tclose);
    H5Tset_order(memory.get(),
                 std::endian::native == std::endian::little ? H5T_ORDER_LE : H5T_ORDER_BE);
    const DataTypeId id = bytes == 2   ? DataTypeId::kFloat16
                          : bytes == 4 ? DataTypeId::kFloat32
                                       : DataTypeId::kFloat64;
    return std::pair(core::DataType(id), std::move(memory));
  }
  if (type_class == H5T_ENUM && IsH5pyBool(file_type)) {
    return std::pair(core::DataType(DataTypeId::kBool), Handle(H5Tcopy(file_type), H5Tclose));
  }
  std::string what = type_class == H5T_INTEGER ? std::to_string(bytes) + "-byte integer"
                     : type_class == H5T_FLOAT
                         ? std::to_string(bytes) + "-byte float that is not IEEE 754"
                         : ClassName(type_class);
  return Status::Unsupported(name + ": a dataset of " + what + " values" + kTypesRead);
}

// Unsupported naming the first filter of `dcpl` that this libhdf5 cannot
// decode (a plugin it lacks: LZF, blosc, ...), before any value is read.
Status CheckFilters(hid_t dcpl, const std::string& name) {
  const int count = H5Pget_nfilters(dcpl);
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t values = 0;
    char filter_name[80] = "";
    const H5Z_filter_t filter = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &values,
                                               nullptr, sizeof(filter_name), filter_name, &config);
    if (filter < 0) return Status::Corruption(name + ": its filters: " + LibraryReason());
    unsigned info = 0;
    const bool decodes = H5Zfilter_avail(filter) > 0 && H5Zget_filter_info(filter, &info) >= 0 &&
                         (info & H5Z_FILTER_CONFIG_DECODE_ENABLED) != 0;
    H5Eclear2(H5E_DEFAULT);
    if (!decodes) {
      return Status::Unsupported(
          name + ": stored with HDF5 filter " + std::to_string(filter) +
          (*filter_name != '\0' ? " (" + std::string(filter_name) + ")" : "") +
          ", which this libhdf5 cannot decode");
    }
  }
  return Status::Ok();
}

// A float attribute value as JSON: NaN and the infinities as zarr v3 spells
// them in fill values, since JSON has no numbers for them.
nlohmann::json FloatJson(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

// `values` nested by `dims` (C order); the lone value for no dims.
nlohmann::json Nest(const std::vector<nlohmann::json>& values, std::span<const hsize_t> dims,
                    std::size_t& next) {
  if (dims.empty()) return values[next++];
  nlohmann::json array = nlohmann::json::array();
  for (hsize_t i = 0; i < dims[0]; ++i) array.push_back(Nest(values, dims.subspan(1), next));
  return array;
}

constexpr std::size_t kMaxAttributeText = 1 << 20;

// The strings of a string attribute; nullopt for text that is not UTF-8 or
// more than kMaxAttributeText bytes.
std::optional<std::vector<nlohmann::json>> StringValues(hid_t attribute, hid_t type, hid_t space,
                                                        std::size_t count) {
  std::vector<std::string> texts;
  if (H5Tis_variable_str(type) > 0) {
    Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.get(), H5T_VARIABLE);
    H5Tset_cset(memory.get(), H5Tget_cset(type));
    std::vector<char*> pointers(count, nullptr);
    if (H5Aread(attribute, memory.get(), pointers.data()) < 0) return std::nullopt;
    for (char* text : pointers) texts.emplace_back(text != nullptr ? text : "");
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(memory.get(), space, H5P_DEFAULT, pointers.data());
#else
    H5Dvlen_reclaim(memory.get(), space, H5P_DEFAULT, pointers.data());
#endif
  } else {
    const std::size_t size = H5Tget_size(type);
    if (size == 0 || count > kMaxAttributeText / size) return std::nullopt;
    Handle memory(H5Tcopy(type), H5Tclose);
    std::vector<char> buffer(count * size);
    if (H5Aread(attribute, memory.get(), buffer.data()) < 0) return std::nullopt;
    const bool space_padded = H5Tget_strpad(type) == H5T_STR_SPACEPAD;
    for (std::size_t i = 0; i < count; ++i) {
      std::string_view text(buffer.data() + i * size, size);
      text = text.substr(0, text.find('\0'));
      if (space_padded) text = text.substr(0, text.find_last_not_of(' ') + 1);
      texts.emplace_back(text);
    }
  }
  std::vector<nlohmann::json> values;
  std::size_t total = 0;
  for (std::string& text : texts) {
    total += text.size();
    if (total > kMaxAttributeText || !core::IsUtf8(text)) return std::nullopt;
    values.emplace_back(std::move(text));
  }
  return values;
}

// The attribute `name` of `location` as JSON, or nullopt where JSON does
// not hold it as it is (Hdf5Dataset::attributes).
std::optional<nlohmann::json> AttributeValue(hid_t location, const char* name) {
  Handle attribute(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) return std::nullopt;
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  Handle space(H5Aget_space(attribute.get()), H5Sclose);
  const H5S_class_t kind = H5Sget_simple_extent_type(space.get());
  if (!type.valid() || (kind != H5S_SCALAR && kind != H5S_SIMPLE)) return std::nullopt;
  std::vector<hsize_t> dims(
      static_cast<std::size_t>(std::max(0, H5Sget_simple_extent_ndims(space.get()))));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points < 0 || static_cast<std::uint64_t>(points) > Hdf5Dataset::kMaxAttributeValues) {
    return std::nullopt;
  }
  const auto count = static_cast<std::size_t>(points);
  const H5T_class_t type_class = H5Tget_class(type.get());
  const std::size_t bytes = H5Tget_size(type.get());
  std::vector<nlohmann::json> values;
  if (type_class == H5T_INTEGER && bytes <= 8) {
    const bool is_signed = H5Tget_sign(type.get()) == H5T_SGN_2;
    std::vector<std::int64_t> numbers(count);  // Read as int64 or uint64: the same bytes.
    if (H5Aread(attribute.get(), is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, numbers.data()) <
        0) {
      return std::nullopt;
    }
    for (const std::int64_t number : numbers) {
      values.push_back(is_signed ? nlohmann::json(number)
                                 : nlohmann::json(static_cast<std::uint64_t>(number)));
    }
  } else if (type_class == H5T_FLOAT && bytes <= 8) {
    std::vector<double> numbers(count);
    if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, numbers.data()) < 0) return std::nullopt;
    for (const double number : numbers) values.push_back(FloatJson(number));
  } else if (type_class == H5T_STRING) {
    std::optional<std::vector<nlohmann::json>> texts =
        StringValues(attribute.get(), type.get(), space.get(), count);
    if (!texts) return std::nullopt;
    values = *std::move(texts);
  } else {
    return std::nullopt;
  }
  if (kind == H5S_SCALAR) return values.empty() ? std::nullopt : std::optional(values[0]);
  std::size_t next = 0;
  return Nest(values, dims, next);
}

herr_t KeepAttribute(hid_t location, const char* name, const H5A_info_t*, void* data) {
  try {
    std::optional<nlohmann::json> value = AttributeValue(location, name);
    if (value && core::IsUtf8(name))
      (*static_cast<nlohmann::json*>(data))[name] = *std::move(value);
  } catch (const std::exception&) {
    // Memory for one attribute's JSON: it is left out, as any attribute JSON cannot hold.
  }
  H5Eclear2(H5E_DEFAULT);
  return 0;
}

}  // namespace

bool HasHdf5Extension(const std::filesystem::path& path) {
  const std::string extension = Lower(path.extension().string());
  return extension == ".h5" || extension == ".hdf5" || extension == ".hdf" || extension == ".he5";
}

std::optional<Hdf5Source> SplitHdf5Source(std::string_view source) {
  for (std::size_t colon = source.find(":/"); colon != std::string_view::npos;
       colon = source.find(":/", colon + 1)) {
    const std::string file(source.substr(0, colon));
    if (HasHdf5Extension(file)) return Hdf5Source{file, std::string(source.substr(colon + 1))};
  }
  return std::nullopt;
}

struct Hdf5Dataset::Handles {
  Handle file;
  Handle dataset;
  Handle memory_type;  // The values' type in memory (host byte order).
};

Hdf5Dataset::~Hdf5Dataset() {
  if (handles_ == nullptr) return;
  QuietErrors quiet;
  handles_.reset();
}

Result<std::unique_ptr<Hdf5Dataset>> Hdf5Dataset::Open(const std::filesystem::path& file,
                                                       std::string_view dataset) {
  const std::string file_text = file.string();
  const std::string path = NormalPath(dataset);
  std::unique_ptr<Hdf5Dataset> opened(new Hdf5Dataset);
  opened->name_ = file_text + ":" + path;
  const std::string& name = opened->name_;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (!std::filesystem::exists(status)) {
    return Status::NotFound(name + ": no such file " + file_text);
  }
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument(name + ": " + file_text + " is a folder, not an HDF5 file");
  }
  QuietErrors quiet;
  const htri_t is_hdf5 = H5Fis_hdf5(file_text.c_str());
  if (is_hdf5 == 0) {
    return Status::InvalidArgument(name + ": " + file_text +
                                   " is not an HDF5 file (no HDF5 signature in it)");
  }
  if (is_hdf5 < 0) {
    return Status::IOError(name + ": cannot read " + file_text + ": " + LibraryReason());
  }
  opened->handles_ = std::make_unique<Handles>();
  Handles& handles = *opened->handles_;
  handles.file = Handle(H5Fopen(file_text.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!handles.file.valid()) {
    return Status::Corruption(name + ": libhdf5 cannot open " + file_text + ": " + LibraryReason());
  }
  const hid_t file_id = handles.file.get();
  if (dataset.empty()) {
    return Status::InvalidArgument(file_text + ": no dataset named; name one after the file, as " +
                                   file_text + ":/path/to/dataset" + DatasetsUnder(file_id, "/"))
        .WithField("dataset");
  }
  if (path != "/") CHUNKWISE_RETURN_IF_ERROR(FindObject(file_id, name, path));
  Handle object(H5Oopen(file_id, path.c_str(), H5P_DEFAULT), H5Oclose);
  if (!object.valid()) {
    return Status::NotFound(name + ": no such dataset (a link to nothing: " + LibraryReason() +
                            ")");
  }
  const H5I_type_t type = H5Iget_type(object.get());
  object.reset();
  if (type == H5I_GROUP) {
    return Status::InvalidArgument(name + ": a group, not a dataset" +
                                   DatasetsUnder(file_id, path));
  }
  if (type != H5I_DATASET) {
    return Status::InvalidArgument(name + ": a named data type, not a dataset");
  }
  // Room for the chunks of a few slabs' rows, so that an HDF5 chunk that a
  // slab boundary cuts is decoded once rather than once per slab.
  Handle access(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
  H5Pset_chunk_cache(access.get(), 12421, std::size_t{64} << 20, 1.0);
  handles.dataset = Handle(H5Dopen2(file_id, path.c_str(), access.get()), H5Dclose);
  if (!handles.dataset.valid()) {
    return Status::Corruption(name + ": libhdf5 cannot open it: " + LibraryReason());
  }
  CHUNKWISE_RETURN_IF_ERROR(opened->Describe());
  return opened;
}

Status Hdf5Dataset::Describe() {
  const hid_t dataset = handles_->dataset.get();
  Handle space(H5Dget_space(dataset), H5Sclose);
  const H5S_class_t kind = H5Sget_simple_extent_type(space.get());
  if (kind != H5S_SCALAR && kind != H5S_SIMPLE) {
    return Status::Unsupported(name_ + ": a dataset with a null dataspace holds no values");
  }
  const int rank = std::max(0, H5Sget_simple_extent_ndims(space.get()));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  for (const hsize_t dim : dims) {
    if (dim > static_cast<hsize_t>(INT64_MAX)) {
      return Status::Unsupported(name_ + ": a dimension of " + std::to_string(dim) + " elements");
    }
    shape_.push_back(static_cast<core::Index>(dim));
  }
  Handle file_type(H5Dget_type(dataset), H5Tclose);
  if (!file_type.valid()) {
    return Status::Corruption(name_ + ": its data type: " + LibraryReason());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto type, VolumeTypeOf(file_type.get(), name_));
  data_type_ = type.first;
  handles_->memory_type = std::move(type.second);

  Handle create(H5Dget_create_plist(dataset), H5Pclose);
  if (H5Pget_layout(create.get()) == H5D_CHUNKED && rank > 0) {
    std::vector<hsize_t> chunk(dims.size());
    if (H5Pget_chunk(create.get(), rank, chunk.data()) == rank) {
      core::Shape clipped;
      for (int d = 0; d < rank; ++d) {
        clipped.push_back(std::max<core::Index>(
            1, std::min(static_cast<core::Index>(chunk[d]), shape_[static_cast<std::size_t>(d)])));
      }
      chunks_ = std::move(clipped);
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckFilters(create.get(), name_));
  H5Aiterate2(dataset, H5_INDEX_NAME, H5_ITER_INC, nullptr, KeepAttribute, &attributes_);
  H5Eclear2(H5E_DEFAULT);
  return Status::Ok();
}

std::uint64_t Hdf5Dataset::row_bytes() const {
  std::uint64_t bytes = data_type_.size();
  for (std::size_t d = 1; d < shape_.size(); ++d) {
    bytes = core::SaturatingProduct(bytes, static_cast<std::uint64_t>(shape_[d]));
  }
  return bytes;
}

Status Hdf5Dataset::ReadRows(core::Index first, core::Index count, std::span<std::uint8_t> out) {
  const core::Index rows = shape_.empty() ? 1 : shape_[0];
  const std::string which = "rows " + std::to_string(first) + ".." + std::to_string(first + count);
  if (first < 0 || count < 0 || first > rows - count) {
    return Status::OutOfRange(name_ + ": " + which + " outside its " + std::to_string(rows));
  }
  if (out.size() != core::SaturatingProduct(static_cast<std::uint64_t>(count), row_bytes())) {
    return Status::OutOfRange(name_ + ": " + which + " need " +
                              std::to_string(static_cast<std::uint64_t>(count) * row_bytes()) +
                              " bytes, given " + std::to_string(out.size()));
  }
  if (out.empty()) return Status::Ok();
  QuietErrors quiet;
  const hid_t dataset = handles_->dataset.get();
  // The selections live until the reason is taken: closing them would clear
  // the error stack (every libhdf5 call starts with an empty one).
  Handle file_space;
  Handle memory_space;
  herr_t read = -1;
  if (shape_.empty()) {
    read = H5Dread(dataset, handles_->memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  } else {
    std::vector<hsize_t> start(shape_.size(), 0);
    std::vector<hsize_t> extent(shape_.begin(), shape_.end());
    start[0] = static_cast<hsize_t>(first);
    extent[0] = static_cast<hsize_t>(count);
    file_space = Handle(H5Dget_space(dataset), H5Sclose);
    memory_space =
        Handle(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr), H5Sclose);
    if (file_space.valid() && memory_space.valid() &&
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(),
                            nullptr) >= 0) {
      read = H5Dread(dataset, handles_->memory_type.get(), memory_space.get(), file_space.get(),
                     H5P_DEFAULT, out.data());
    }
  }
  if (read < 0) {
    return Status::Corruption(name_ + ": " + which +
                              ": libhdf5 cannot read them: " + LibraryReason());
  }
  return Status::Ok();
}

}  // namespace chunkwise::io
