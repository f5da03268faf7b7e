#include "hlo/proto_reader.h"

#include <fmt/format.h>

#include <unordered_map>

#include "base/proto_wire.h"
#include "base/utf8.h"

namespace mlprof::hlo {

namespace {

using proto::kFixed32;
using proto::kFixed64;
using proto::kLen;
using proto::kVarint;
using proto::ReadRepeatedVarint;
using proto::Wire;

ElementType FromProtoType(int64_t t) {
  switch (t) {
    case 1:
      return ElementType::kPred;
    case 2:
      return ElementType::kS8;
    case 3:
      return ElementType::kS16;
    case 4:
      return ElementType::kS32;
    case 5:
      return ElementType::kS64;
    case 6:
      return ElementType::kU8;
    case 7:
      return ElementType::kU16;
    case 8:
      return ElementType::kU32;
    case 9:
      return ElementType::kU64;
    case 10:
      return ElementType::kF16;
    case 11:
      return ElementType::kF32;
    case 12:
      return ElementType::kF64;
    case 13:
      return ElementType::kTuple;
    case 14:
      return ElementType::kOpaque;
    case 15:
      return ElementType::kC64;
    case 16:
      return ElementType::kBF16;
    case 17:
      return ElementType::kToken;
    case 18:
      return ElementType::kC128;
    case 19:
      return ElementType::kF8E5M2;
    case 20:
      return ElementType::kF8E4M3FN;
    case 21:
      return ElementType::kS4;
    case 22:
      return ElementType::kU4;
    case 23:
      return ElementType::kF8E4M3B11FNUZ;
    case 24:
      return ElementType::kF8E5M2FNUZ;
    case 25:
      return ElementType::kF8E4M3FNUZ;
    case 26:
      return ElementType::kS2;
    case 27:
      return ElementType::kU2;
    case 28:
      return ElementType::kF8E4M3;
    case 29:
      return ElementType::kF8E3M4;
    case 30:
      return ElementType::kS1;
    case 31:
      return ElementType::kU1;
    case 32:
      return ElementType::kF4E2M1FN;
    case 33:
      return ElementType::kF8E8M0FNU;
    default:
      return ElementType::kInvalid;
  }
}

std::string JoinInts(const std::vector<int64_t>& v, std::string_view sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

std::string Quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

struct RawInstruction {
  Instruction in;
  int64_t id = -1;
  std::vector<int64_t> operand_ids;
  std::vector<int64_t> called_ids;
};

class ProtoReader {
 public:
  ProtoReader(std::string_view bytes, std::string_view path) : all_(bytes), path_(path) {}

  StatusOr<Module> ReadHloProto() {
    Wire w(all_.data(), all_);
    std::string_view module;
    bool found = false;
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of HloProto");
      if (f == 1 && t == kLen) {
        if (!w.Bytes(&module)) return Err(at, "an HloModuleProto of the stated length (the data may be truncated)");
        found = true;
      } else if (!w.Skip(t)) {
        return Err(at, fmt::format("a valid value for HloProto field {}", f));
      }
    }
    if (!found) return Err(0, "an HloProto with an hlo_module (field 1)");
    return ReadModule(module);
  }

  StatusOr<Module> ReadModule(std::string_view msg) {
    Module m;
    m.source = std::string(path_);
    arena_ = m.strings.get();
    std::string entry_name;
    int64_t entry_id = -1;
    std::vector<std::vector<RawInstruction>> raw;
    std::vector<int64_t> comp_ids, root_ids;
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of HloModuleProto");
      std::string_view s;
      uint64_t v = 0;
      bool ok = true;
      if (f == 1 && t == kLen) {
        ok = w.Bytes(&s), m.name = std::string(s);
      } else if (f == 2 && t == kLen) {
        ok = w.Bytes(&s), entry_name = std::string(s);
      } else if (f == 3 && t == kLen) {
        ok = w.Bytes(&s);
        if (ok) {
          Computation c;
          int64_t id = -1, root = -1;
          raw.emplace_back();
          RETURN_IF_ERROR(ReadComputation(s, &c, &id, &root, &raw.back()));
          m.computations.push_back(std::move(c));
          comp_ids.push_back(id);
          root_ids.push_back(root);
        }
      } else if (f == 6 && t == kVarint) {
        ok = w.Varint(&v), entry_id = static_cast<int64_t>(v);
      } else {
        ok = w.Skip(t);
      }
      if (!ok) return Err(at, fmt::format("a valid value for HloModuleProto field {}", f));
    }
    if (m.computations.empty()) return Err(0, "an HloModuleProto with computations");

    std::unordered_map<int64_t, size_t> comp_by_id;
    for (size_t i = 0; i < comp_ids.size(); ++i) comp_by_id[comp_ids[i]] = i;
    for (size_t i = 0; i < m.computations.size(); ++i) {
      Computation& c = m.computations[i];
      c.is_entry = (entry_id >= 0 && comp_ids[i] == entry_id) || (entry_id < 0 && c.name == entry_name);
      std::unordered_map<int64_t, std::string_view> names;
      for (const auto& r : raw[i]) names[r.id] = r.in.name;
      for (auto& r : raw[i]) {
        for (int64_t op : r.operand_ids) {
          auto it = names.find(op);
          if (it == names.end())
            return DataLoss(
                fmt::format("{}: HloProto instruction '{}' uses operand id {} that is not in computation '{}'", path_,
                            r.in.name, op, c.name));
          r.in.operand_names.push_back(it->second);
        }
        // Called computations, named after the attribute the text form uses.
        std::vector<std::string_view> callee;
        for (int64_t id : r.called_ids) {
          auto it = comp_by_id.find(id);
          if (it == comp_by_id.end())
            return DataLoss(fmt::format("{}: HloProto instruction '{}' calls computation id {} that does not exist",
                                        path_, r.in.name, id));
          callee.push_back(m.computations[it->second].name);
        }
        if (!callee.empty()) {
          const std::string_view op = r.in.opcode;
          if (op == "while" && callee.size() == 2) {
            r.in.attrs.emplace_back("condition", callee[0]);
            r.in.attrs.emplace_back("body", callee[1]);
          } else if (op == "conditional") {
            std::string list = "{";
            for (size_t k = 0; k < callee.size(); ++k) list += fmt::format("{}{}", k ? ", " : "", callee[k]);
            r.in.attrs.emplace_back("branch_computations", Keep(list + "}"));
          } else if (op == "fusion" || op == "call" || op == "async-start" || op == "custom-call") {
            r.in.attrs.emplace_back(op == "call" || op == "custom-call" ? "to_apply" : "calls", callee[0]);
          } else {
            r.in.attrs.emplace_back("to_apply", callee[0]);
          }
          r.in.called.assign(callee.begin(), callee.end());
        }
        r.in.is_root = r.id == root_ids[i];
        // proto3 leaves a zero out: parameter 0 carries no parameter_number.
        if (r.in.opcode == "parameter" && r.in.parameter_number < 0) r.in.parameter_number = 0;
        c.instructions.push_back(std::move(r.in));
      }
    }
    Status st = m.Link();
    if (!st.ok()) return DataLoss(fmt::format("{}: HloProto module '{}': {}", path_, m.name, st.message()));
    st = m.Validate(fmt::format("{}: HloProto module '{}'", path_, m.name));
    if (!st.ok()) return st;
    return m;
  }

 private:
  Status Err(uint64_t at, std::string_view expected) const {
    return DataLoss(fmt::format("{}: invalid HloProto at byte {}: expected {}", path_, at, expected));
  }

  Status ReadComputation(std::string_view msg, Computation* c, int64_t* id, int64_t* root,
                         std::vector<RawInstruction>* out) {
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of HloComputationProto");
      std::string_view s;
      uint64_t v = 0;
      bool ok = true;
      if (f == 1 && t == kLen) {
        ok = w.Bytes(&s), c->name = Keep(s);
      } else if (f == 2 && t == kLen) {
        ok = w.Bytes(&s);
        if (ok) {
          out->emplace_back();
          RETURN_IF_ERROR(ReadInstruction(s, &out->back()));
        }
      } else if (f == 5 && t == kVarint) {
        ok = w.Varint(&v), *id = static_cast<int64_t>(v);
      } else if (f == 6 && t == kVarint) {
        ok = w.Varint(&v), *root = static_cast<int64_t>(v);
      } else if (f == 8 && t == kLen) {
        ok = w.Bytes(&s), c->execution_thread = Keep(s);
      } else {
        ok = w.Skip(t);
      }
      if (!ok) return Err(at, fmt::format("a valid value for HloComputationProto field {}", f));
    }
    return OkStatus();
  }

  Status ReadShape(std::string_view msg, Shape* shape, int depth = 0) {
    if (depth > 64) return Err(static_cast<uint64_t>(msg.data() - all_.data()), "a shape nested less deeply");
    Wire w(all_.data(), msg);
    std::vector<int64_t> dynamic;
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of ShapeProto");
      std::string_view s;
      uint64_t v = 0;
      bool ok = true;
      if (f == 2 && t == kVarint) {
        ok = w.Varint(&v), shape->type = FromProtoType(static_cast<int64_t>(v));
      } else if (f == 3) {
        ok = ReadRepeatedVarint(w, t, &shape->dims);
      } else if (f == 4 && t == kLen) {
        ok = w.Bytes(&s);
        if (ok) {
          shape->tuple.emplace_back();
          RETURN_IF_ERROR(ReadShape(s, &shape->tuple.back(), depth + 1));
        }
      } else if (f == 5 && t == kLen) {
        ok = w.Bytes(&s);
        if (ok) RETURN_IF_ERROR(ReadLayout(s, &shape->layout));
      } else if (f == 6) {
        ok = ReadRepeatedVarint(w, t, &dynamic);
      } else {
        ok = w.Skip(t);
      }
      if (!ok) return Err(at, fmt::format("a valid value for ShapeProto field {}", f));
    }
    for (int64_t d : shape->dims)
      if (d < 0 && !shape->is_tuple())
        return Err(static_cast<uint64_t>(msg.data() - all_.data()), "dimension sizes >= 0");
    if (!shape->size_ok())
      return Err(static_cast<uint64_t>(msg.data() - all_.data()), "a shape of at most 2^48 elements");
    // A layout orders every dimension once (what the text parser checks too).
    if (const auto& mtm = shape->layout.minor_to_major; !shape->is_tuple() && !mtm.empty()) {
      std::vector<bool> seen(shape->dims.size(), false);
      bool ok = mtm.size() == shape->dims.size();
      for (int64_t d : mtm) {
        ok = ok && d >= 0 && static_cast<size_t>(d) < seen.size() && !seen[static_cast<size_t>(d)];
        if (ok) seen[static_cast<size_t>(d)] = true;
      }
      if (!ok)
        return Err(static_cast<uint64_t>(msg.data() - all_.data()),
                   "a layout (minor_to_major) listing each dimension of the shape once");
    }
    shape->dynamic.clear();
    for (size_t i = 0; i < dynamic.size() && i < shape->dims.size(); ++i) {
      if (dynamic[i] == 0) continue;
      shape->dynamic.resize(shape->dims.size(), false);
      shape->dynamic[i] = true;
    }
    if (shape->type == ElementType::kInvalid)
      return Err(static_cast<uint64_t>(msg.data() - all_.data()), "a known element type in ShapeProto");
    return OkStatus();
  }

  Status ReadLayout(std::string_view msg, Layout* l) {
    l->present = true;
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of LayoutProto");
      std::string_view s;
      uint64_t v = 0;
      bool ok = true;
      if (f == 1) {
        ok = ReadRepeatedVarint(w, t, &l->minor_to_major);
      } else if (f == 6 && t == kLen) {
        ok = w.Bytes(&s);
        if (ok) {
          Tile tile;
          Wire tw(all_.data(), s);
          while (ok && !tw.done()) {
            uint32_t tf, tt;
            ok = tw.Tag(&tf, &tt) && (tf == 1 ? ReadRepeatedVarint(tw, tt, &tile) : tw.Skip(tt));
          }
          for (int64_t& d : tile)
            if (d == INT64_MIN) d = -1;  // kCombineDimension, printed '*'
          l->tiles.push_back(std::move(tile));
        }
      } else if (f == 7 && t == kVarint) {
        ok = w.Varint(&v) && v <= 1024, l->element_size_bits = static_cast<int64_t>(v);
      } else if (f == 8 && t == kVarint) {
        ok = w.Varint(&v), l->memory_space = static_cast<int64_t>(v);
      } else {
        ok = w.Skip(t);
      }
      if (!ok) return Err(at, fmt::format("a valid value for LayoutProto field {}", f));
    }
    return OkStatus();
  }

  // Reads a message of repeated-int fields into `fields[number]`.
  bool ReadIntFields(std::string_view msg, std::unordered_map<uint32_t, std::vector<int64_t>>* fields) {
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      if (!w.Tag(&f, &t)) return false;
      if (t == kVarint || t == kLen) {
        if (!ReadRepeatedVarint(w, t, &(*fields)[f])) return false;
      } else if (!w.Skip(t)) {
        return false;
      }
    }
    return true;
  }

  bool ReadReplicaGroupList(std::string_view msg, std::vector<std::vector<int64_t>>* groups) {
    Wire w(all_.data(), msg);
    std::string_view g;
    uint32_t f, t;
    if (!w.Tag(&f, &t) || f != 1 || t != kLen || !w.Bytes(&g)) return false;
    std::unordered_map<uint32_t, std::vector<int64_t>> ids;
    if (!ReadIntFields(g, &ids)) return false;
    groups->push_back(ids[1]);
    return w.done();
  }

  static std::string GroupsText(const std::vector<std::vector<int64_t>>& groups) {
    std::string s = "{";
    for (size_t i = 0; i < groups.size(); ++i) s += fmt::format("{}{{{}}}", i ? "," : "", JoinInts(groups[i]));
    return s + "}";
  }

  static std::string IotaText(std::unordered_map<uint32_t, std::vector<int64_t>>& f) {
    int64_t g = f[1].empty() ? 0 : f[1][0], n = f[2].empty() ? 0 : f[2][0];
    std::string s = fmt::format("[{},{}]<=[{}]", g, n, JoinInts(f[3]));
    if (!f[4].empty()) s += "T(" + JoinInts(f[4]) + ")";
    return s;
  }

  Status ReadInstruction(std::string_view msg, RawInstruction* r) {
    Instruction& in = r->in;
    Wire w(all_.data(), msg);
    std::vector<std::vector<int64_t>> groups;
    std::string iota_groups;
    std::string slice;  // slice={[0:4:1], [2:8:1]}, one field per dim
    while (!w.done()) {
      uint32_t f, t;
      uint64_t at = w.offset();
      if (!w.Tag(&f, &t)) return Err(at, "a field tag of HloInstructionProto");
      std::string_view s;
      uint64_t v = 0;
      bool ok = true;
      std::unordered_map<uint32_t, std::vector<int64_t>> fields;
      switch (t == kLen ? f : (t == kVarint ? f + 1000 : 0)) {
        case 1:
          ok = w.Bytes(&s), in.name = Keep(s);
          break;
        case 2:
          ok = w.Bytes(&s), in.opcode = Keep(s);
          break;
        case 3:
          ok = w.Bytes(&s);
          if (ok) RETURN_IF_ERROR(ReadShape(s, &in.shape));
          break;
        case 7:
          ok = w.Bytes(&s) && ReadMetadata(s, &in.metadata);
          break;
        case 1009:
          ok = w.Varint(&v), in.parameter_number = static_cast<int64_t>(v);
          break;
        case 11:
          ok = w.Bytes(&s), in.attrs.emplace_back("kind", Keep(s));
          break;
        case 1013:
          ok = w.Varint(&v), in.attrs.emplace_back("index", Keep(std::to_string(v)));
          break;
        case 14: {
          std::vector<int64_t> d;
          ok = ReadRepeatedVarint(w, t, &d);
          in.attrs.emplace_back("dimensions", Keep(fmt::format("{{{}}}", JoinInts(d))));
          break;
        }
        case 15:
          ok = w.Bytes(&s) && AddWindow(s, &in);
          break;
        case 16:
          ok = w.Bytes(&s) && ReadIntFields(s, &fields) && AddConvDims(fields, &in);
          break;
        case 17:  // slice_dimensions, one message per dim
          ok = w.Bytes(&s) && ReadIntFields(s, &fields);
          if (ok) AppendSlice(fields, &slice);
          break;
        case 20: {
          std::vector<int64_t> d;
          ok = ReadRepeatedVarint(w, t, &d);
          in.attrs.emplace_back("dynamic_slice_sizes", Keep(fmt::format("{{{}}}", JoinInts(d))));
          break;
        }
        case 1026:
          ok = w.Varint(&v), in.attrs.emplace_back("channel_id", Keep(std::to_string(v)));
          break;
        case 28:
          ok = w.Bytes(&s), in.attrs.emplace_back("custom_call_target", Keep(Quote(s)));
          break;
        case 30:
          ok = w.Bytes(&s) && ReadIntFields(s, &fields);
          if (ok) {
            const char* names[] = {"", "lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims",
                                   "rhs_batch_dims"};
            for (uint32_t k = 3; k <= 4; ++k)
              if (!fields[k].empty()) in.attrs.emplace_back(names[k], Keep(fmt::format("{{{}}}", JoinInts(fields[k]))));
            for (uint32_t k = 1; k <= 2; ++k)
              in.attrs.emplace_back(names[k], Keep(fmt::format("{{{}}}", JoinInts(fields[k]))));
          }
          break;
        case 1035:
          ok = w.Varint(&v), r->id = static_cast<int64_t>(v);
          break;
        case 36:
        case 1036:
          ok = ReadRepeatedVarint(w, t, &r->operand_ids);
          break;
        case 38:
        case 1038:
          ok = ReadRepeatedVarint(w, t, &r->called_ids);
          break;
        case 43:
          ok = w.Bytes(&s);
          if (ok && !s.empty()) in.attrs.emplace_back("backend_config", Keep(s));
          break;
        case 49:
          ok = w.Bytes(&s) && ReadIntFields(s, &fields);
          if (ok) groups.push_back(fields[1]);
          break;
        case 1050:
          ok = w.Varint(&v), in.attrs.emplace_back("feature_group_count", Keep(std::to_string(v)));
          break;
        case 1058:
          ok = w.Varint(&v), in.attrs.emplace_back("batch_group_count", Keep(std::to_string(v)));
          break;
        case 1071:
          ok = w.Varint(&v);
          if (v) in.attrs.emplace_back("use_global_device_ids", "true");
          break;
        case 87: {  // CollectiveDeviceListProto: replica_groups=1, iota_replica_group_list=2
          ok = w.Bytes(&s);
          Wire cw(all_.data(), s);
          while (ok && !cw.done()) {
            uint32_t cf, ct;
            std::string_view cs;
            ok = cw.Tag(&cf, &ct);
            if (!ok) break;
            if (cf == 1 && ct == kLen) {
              std::unordered_map<uint32_t, std::vector<int64_t>> ids;
              ok = cw.Bytes(&cs) && ReadIntFields(cs, &ids);
              groups.push_back(ids[1]);
            } else if (cf == 2 && ct == kLen) {
              std::unordered_map<uint32_t, std::vector<int64_t>> iota;
              ok = cw.Bytes(&cs) && ReadIntFields(cs, &iota);
              if (ok) iota_groups = IotaText(iota);
            } else {
              ok = cw.Skip(ct);
            }
          }
          break;
        }
        case 92:
          ok = w.Bytes(&s) && ReadIntFields(s, &fields);
          if (ok) iota_groups = IotaText(fields);
          break;
        default:
          ok = w.Skip(t);
      }
      if (!ok) return Err(at, fmt::format("a valid value for HloInstructionProto field {}", f));
    }
    if (in.name.empty() || in.opcode.empty())
      return Err(static_cast<uint64_t>(msg.data() - all_.data()), "an instruction with a name and an opcode");
    if (!slice.empty()) in.attrs.emplace_back("slice", Keep("{" + slice + "}"));
    if (!iota_groups.empty())
      in.attrs.emplace_back("replica_groups", Keep(iota_groups));
    else if (!groups.empty())
      in.attrs.emplace_back("replica_groups", Keep(GroupsText(groups)));
    return OkStatus();
  }

  bool ReadMetadata(std::string_view msg, OpMetadata* md) {
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      if (!w.Tag(&f, &t)) return false;
      std::string_view s;
      uint64_t v = 0;
      bool ok;
      if (t == kLen && (f == 1 || f == 2 || f == 3)) {
        ok = w.Bytes(&s);
        (f == 1 ? md->op_type : f == 2 ? md->op_name : md->source_file) = Keep(s);
      } else if (f == 4 && t == kVarint) {
        ok = w.Varint(&v), md->source_line = static_cast<int64_t>(v);
      } else {
        ok = w.Skip(t);
      }
      if (!ok) return false;
    }
    return true;
  }

  bool AddWindow(std::string_view msg, Instruction* in) {
    // Window { repeated WindowDimension dimensions = 1 }: size=1 stride=2
    // padding_low=3 padding_high=4 window_dilation=5 base_dilation=6.
    std::vector<std::unordered_map<uint32_t, std::vector<int64_t>>> dims;
    Wire w(all_.data(), msg);
    while (!w.done()) {
      uint32_t f, t;
      std::string_view s;
      if (!w.Tag(&f, &t)) return false;
      if (f == 1 && t == kLen) {
        if (!w.Bytes(&s)) return false;
        dims.emplace_back();
        if (!ReadIntFields(s, &dims.back())) return false;
      } else if (!w.Skip(t)) {
        return false;
      }
    }
    auto get = [](auto& m, uint32_t k, int64_t def) { return m[k].empty() ? def : m[k].back(); };
    std::string size, stride, pad, lhs, rhs;
    for (size_t i = 0; i < dims.size(); ++i) {
      std::string_view x = i ? "x" : "";
      size += fmt::format("{}{}", x, get(dims[i], 1, 1));
      stride += fmt::format("{}{}", x, get(dims[i], 2, 1));
      pad += fmt::format("{}{}_{}", x, get(dims[i], 3, 0), get(dims[i], 4, 0));
      rhs += fmt::format("{}{}", x, get(dims[i], 5, 1));
      lhs += fmt::format("{}{}", x, get(dims[i], 6, 1));
    }
    in->attrs.emplace_back("window", Keep(fmt::format("{{size={} stride={} pad={} lhs_dilate={} rhs_dilate={}}}", size,
                                                      stride, pad, lhs, rhs)));
    return true;
  }

  bool AddConvDims(std::unordered_map<uint32_t, std::vector<int64_t>>& f, Instruction* in) {
    auto labels = [](int64_t a, char ca, int64_t b, char cb, const std::vector<int64_t>& sp) -> std::string {
      size_t rank = 2 + sp.size();
      std::string s(rank, '?');
      auto put = [&](int64_t pos, char c) {
        if (pos >= 0 && static_cast<size_t>(pos) < rank) s[static_cast<size_t>(pos)] = c;
      };
      put(a, ca);
      put(b, cb);
      for (size_t k = 0; k < sp.size() && k < 10; ++k) put(sp[k], static_cast<char>('0' + k));
      return s;
    };
    auto one = [&](uint32_t k) { return f[k].empty() ? int64_t{0} : f[k].back(); };
    std::string text = labels(one(7), 'b', one(8), 'f', f[11]) + "_" + labels(one(3), 'i', one(4), 'o', f[6]) + "->" +
                       labels(one(9), 'b', one(10), 'f', f[12]);
    in->attrs.emplace_back("dim_labels", Keep(text));
    return true;
  }

  static void AppendSlice(std::unordered_map<uint32_t, std::vector<int64_t>>& f, std::string* slice) {
    auto get = [&](uint32_t k, int64_t def) { return f[k].empty() ? def : f[k].back(); };
    if (!slice->empty()) *slice += ", ";
    *slice += fmt::format("[{}:{}:{}]", get(1, 0), get(2, 0), get(3, 1));
  }

  // A copy of `s` in the module's arena (the bytes being read may not
  // outlive the module).
  std::string_view Keep(std::string_view s) {
    std::string_view kept = arena_->Copy(s);
    // Names reach every output: invalid UTF-8 bytes become '?'.
    if (!IsValidUtf8(kept)) {
      uint64_t first = 0;
      RepairUtf8(const_cast<char*>(kept.data()), kept.size(), &first);
    }
    return kept;
  }

  std::string_view all_;
  StringArena* arena_ = nullptr;
  std::string_view path_;
};

}  // namespace

StatusOr<Module> ReadHloProto(std::string_view bytes, std::string_view path, bool module_only) {
  ProtoReader r(bytes, path);
  return module_only ? r.ReadModule(bytes) : r.ReadHloProto();
}

bool LooksLikeHloProto(std::string_view h) {
  // 0x0a <len varint> 0x0a (module field 1 = name, length-delimited).
  if (h.size() < 4 || static_cast<uint8_t>(h[0]) != 0x0a) return false;
  size_t i = 1;
  while (i < h.size() && (static_cast<uint8_t>(h[i]) & 0x80)) ++i;
  ++i;
  return i < h.size() && static_cast<uint8_t>(h[i]) == 0x0a;
}

}  // namespace mlprof::hlo
