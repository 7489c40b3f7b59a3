// OpDefBuilder: parses TensorFlow-style spec strings ("T: {float, int32} = DT_FLOAT",
// "values: N * T", "ref: Ref(dtype)") into an OpDef. Consistency across attrs and args is
// checked again by OpRegistry::Register, which also sees OpDefs that did not come from here.
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "core/ops/op_registry.h"
#include "core/graph/proto_limits.h"

namespace tgraph {

OpDefBuilder::OpDefBuilder(std::string op_name) : op_name_(std::move(op_name)) {}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  stateful_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  commutative_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  aggregate_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  allows_uninit_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string summary) {
  summary_ = std::move(summary);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::NewerThanTf1(std::string attr_name) {
  newer_than_tf1_.push_back(std::move(attr_name));
  return *this;
}

namespace {

// Shorthands TF accepts in place of a "{...}" list of types, in DataType order.
const std::vector<DataType>* NamedTypeSet(std::string_view name) {
  static const std::vector<DataType> kRealNumber = {
      DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_UINT8, DT_INT16,  DT_INT8,
      DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64};
  static const std::vector<DataType> kNumber = {
      DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_UINT8,    DT_INT16,   DT_INT8,   DT_COMPLEX64,
      DT_INT64,  DT_QINT8,  DT_QUINT8, DT_QINT32,   DT_BFLOAT16, DT_QINT16, DT_QUINT16,
      DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64};
  static const std::vector<DataType> kQuantized = {DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16,
                                                   DT_QUINT16};
  if (name == "numbertype" || name == "numerictype") return &kNumber;
  if (name == "realnumbertype" || name == "realnumerictype") return &kRealNumber;
  if (name == "quantizedtype") return &kQuantized;
  return nullptr;
}

bool Fail(std::string* why, std::string message) {
  *why = std::move(message);
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A cursor over one spec string. Every Consume* skips leading blanks.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : rest_(text) {}

  bool AtEnd() {
    SkipSpace();
    return rest_.empty();
  }
  std::string_view rest() {
    SkipSpace();
    return rest_;
  }
  bool Consume(std::string_view token) {
    SkipSpace();
    if (!rest_.starts_with(token)) return false;
    rest_.remove_prefix(token.size());
    return true;
  }
  // [A-Za-z_][A-Za-z0-9_]*; empty when there is none.
  std::string_view Identifier() {
    SkipSpace();
    size_t n = 0;
    while (n < rest_.size()) {
      const unsigned char ch = static_cast<unsigned char>(rest_[n]);
      if (!(std::isalpha(ch) || ch == '_' || (n > 0 && std::isdigit(ch)))) break;
      ++n;
    }
    std::string_view id = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return id;
  }
  // Everything up to the matching close of an already consumed `open`.
  bool UntilClose(char open, char close, std::string_view* inside) {
    int depth = 1;
    char quote = 0;
    for (size_t i = 0; i < rest_.size(); ++i) {
      const char ch = rest_[i];
      if (quote) {
        if (ch == '\\') ++i;
        else if (ch == quote) quote = 0;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == open) {
        ++depth;
      } else if (ch == close && --depth == 0) {
        *inside = rest_.substr(0, i);
        rest_.remove_prefix(i + 1);
        return true;
      }
    }
    return false;
  }

 private:
  void SkipSpace() {
    while (!rest_.empty() && std::isspace(static_cast<unsigned char>(rest_.front())))
      rest_.remove_prefix(1);
  }
  std::string_view rest_;
};

// Splits on commas that are not inside quotes, (), [] or {}.
bool SplitTopLevel(std::string_view text, std::vector<std::string_view>* items) {
  items->clear();
  text = Trim(text);
  if (text.empty()) return true;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quote) {
      if (ch == '\\') ++i;
      else if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      ++depth;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (--depth < 0) return false;
    } else if (ch == ',' && depth == 0) {
      items->push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (quote || depth != 0) return false;
  items->push_back(Trim(text.substr(start)));
  for (auto item : *items)
    if (item.empty()) return false;
  return true;
}

bool IsQuoted(std::string_view s) {
  return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front();
}

// 'text' or "text" with \\, \', \", \n, \t escapes.
bool ParseQuoted(std::string_view s, std::string* out) {
  if (!IsQuoted(s)) return false;
  out->clear();
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char ch = s[i];
    if (ch == '\\') {
      if (i + 2 >= s.size()) return false;
      ch = s[++i];
      if (ch == 'n') ch = '\n';
      else if (ch == 't') ch = '\t';
    }
    out->push_back(ch);
  }
  return true;
}

bool ParseInt(std::string_view s, int64_t* out) {
  s = Trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

// "float", "DT_FLOAT" (the spelling of OpDef text) and "float_ref" are all accepted.
std::optional<DataType> ParseTypeName(std::string_view s) {
  s = Trim(s);
  if (s.starts_with("DT_")) {
    std::string lower(s.substr(3));
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return DataTypeFromName(lower);
  }
  return DataTypeFromName(s);
}

// One value of a scalar attr kind ("int", "shape", ...) into `out`.
bool ParseScalarValue(const std::string& kind, std::string_view text, tf::AttrValue* out,
                      std::string* why) {
  text = Trim(text);
  if (kind == "string") {
    std::string s;
    if (!ParseQuoted(text, &s)) return Fail(why, "expected a quoted string");
    out->set_s(s);
  } else if (kind == "int") {
    int64_t v;
    if (!ParseInt(text, &v)) return Fail(why, "expected an integer");
    out->set_i(v);
  } else if (kind == "float") {
    std::string copy(text);
    char* end = nullptr;
    const float v = std::strtof(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size()) {
      return Fail(why, "expected a number");
    }
    out->set_f(v);
  } else if (kind == "bool") {
    if (text == "true") out->set_b(true);
    else if (text == "false") out->set_b(false);
    else return Fail(why, "expected true or false");
  } else if (kind == "type") {
    auto dtype = ParseTypeName(text);
    if (!dtype || IsRefType(*dtype)) return Fail(why, "expected a dtype such as DT_FLOAT");
    out->set_type(static_cast<tf::DataType>(*dtype));
  } else if (kind == "shape" && text.starts_with("[")) {
    // Shorthand "[2, ?, 3]" ("?" or -1 unknown); "{ unknown_rank: true }" below.
    std::vector<std::string_view> items;
    if (!text.ends_with("]") || !SplitTopLevel(text.substr(1, text.size() - 2), &items)) {
      return Fail(why, "expected a shape such as [2, ?]");
    }
    auto* shape = out->mutable_shape();
    for (auto item : items) {
      int64_t d = -1;
      if (item != "?" && (!ParseInt(item, &d) || d < -1)) {
        return Fail(why, "expected a shape such as [2, ?]");
      }
      shape->add_dim()->set_size(d);
    }
  } else if (kind == "shape" || kind == "tensor" || kind == "func") {
    // Protobuf text of the message, in braces: "{ unknown_rank: true }".
    if (!text.starts_with("{") || !text.ends_with("}")) {
      return Fail(why, "expected a text proto in braces");
    }
    const std::string body(text.substr(1, text.size() - 2));
    google::protobuf::Message* msg = nullptr;
    if (kind == "shape") msg = out->mutable_shape();
    else if (kind == "tensor") msg = out->mutable_tensor();
    else msg = out->mutable_func();
    // Collect the parser's complaint for our message instead of letting it log.
    struct Collector : google::protobuf::io::ErrorCollector {
      std::string first;
      void AddError(int line, google::protobuf::io::ColumnNumber column,
                    const std::string& message) override {
        if (first.empty()) first = message;
      }
    } collector;
    google::protobuf::TextFormat::Parser parser;
    LimitNesting(&parser);
    parser.RecordErrorsTo(&collector);
    if (!parser.ParseFromString(body, msg)) {
      return Fail(why, "cannot parse the text proto: " + collector.first);
    }
  } else {
    return Fail(why, "unknown attr kind '" + kind + "'");
  }
  return true;
}

void AppendToList(const tf::AttrValue& v, tf::AttrValue::ListValue* list) {
  switch (v.value_case()) {
    case tf::AttrValue::kS: list->add_s(v.s()); break;
    case tf::AttrValue::kI: list->add_i(v.i()); break;
    case tf::AttrValue::kF: list->add_f(v.f()); break;
    case tf::AttrValue::kB: list->add_b(v.b()); break;
    case tf::AttrValue::kType: list->add_type(v.type()); break;
    case tf::AttrValue::kShape: *list->add_shape() = v.shape(); break;
    case tf::AttrValue::kTensor: *list->add_tensor() = v.tensor(); break;
    case tf::AttrValue::kFunc: *list->add_func() = v.func(); break;
    default: break;
  }
}

// A default in spec syntax for the attr kind `type` ("int", "list(type)", ...).
bool ParseDefault(const std::string& type, std::string_view text, tf::AttrValue* out,
                  std::string* why) {
  text = Trim(text);
  if (!type.starts_with("list(")) return ParseScalarValue(type, text, out, why);
  const std::string element = type.substr(5, type.size() - 6);
  std::vector<std::string_view> items;
  if (!text.starts_with("[") || !text.ends_with("]") ||
      !SplitTopLevel(text.substr(1, text.size() - 2), &items)) {
    return Fail(why, "expected a list such as [1, 2]");
  }
  auto* list = out->mutable_list();  // set even when empty: `list {}`
  for (auto item : items) {
    tf::AttrValue one;
    if (!ParseScalarValue(element, item, &one, why)) return false;
    AppendToList(one, list);
  }
  return true;
}

// The attr's type: a kind name, a type-set shorthand, "{...}" of types or of quoted
// strings, or list(...) of any of those.
bool ParseAttrType(Scanner& scan, tf::OpDef::AttrDef* attr, std::string* why) {
  const bool is_list = scan.Consume("list");
  if (is_list && !scan.Consume("(")) return Fail(why, "expected '(' after list");
  std::string kind;
  if (scan.Consume("{")) {
    std::string_view inside;
    std::vector<std::string_view> items;
    if (!scan.UntilClose('{', '}', &inside) || !SplitTopLevel(inside, &items) || items.empty()) {
      return Fail(why, "bad set of allowed values");
    }
    auto* allowed = attr->mutable_allowed_values()->mutable_list();
    kind = IsQuoted(items.front()) ? "string" : "type";
    for (auto item : items) {
      if (kind == "string") {
        std::string s;
        if (!ParseQuoted(item, &s)) return Fail(why, "mixed strings and types in {...}");
        allowed->add_s(s);
      } else {
        auto dtype = ParseTypeName(item);
        if (!dtype || IsRefType(*dtype)) {
          return Fail(why, "unknown type '" + std::string(item) + "' in {...}");
        }
        allowed->add_type(static_cast<tf::DataType>(*dtype));
      }
    }
  } else {
    kind = std::string(scan.Identifier());
    if (const std::vector<DataType>* set = NamedTypeSet(kind)) {
      kind = "type";
      auto* allowed = attr->mutable_allowed_values()->mutable_list();
      for (DataType t : *set) allowed->add_type(static_cast<tf::DataType>(t));
    } else if (kind != "string" && kind != "int" && kind != "float" && kind != "bool" &&
               kind != "type" && kind != "shape" && kind != "tensor" && kind != "func") {
      return Fail(why, kind.empty() ? "missing attr type" : "unknown attr type '" + kind + "'");
    }
  }
  if (is_list && !scan.Consume(")")) return Fail(why, "expected ')' to close list(");
  attr->set_type(is_list ? "list(" + kind + ")" : kind);
  return true;
}

Status SpecError(const std::string& op, const char* what, const std::string& spec,
                 const std::string& why) {
  return InvalidArgument("Op '", op, "': bad ", what, " spec '", spec, "': ", why);
}

Status ParseAttrSpec(const std::string& op, const std::string& spec, tf::OpDef::AttrDef* attr) {
  Scanner scan(spec);
  std::string why;
  const std::string name(scan.Identifier());
  if (name.empty()) return SpecError(op, "attr", spec, "expected a name");
  attr->set_name(name);
  if (!scan.Consume(":")) return SpecError(op, "attr", spec, "expected ':' after the name");
  if (!ParseAttrType(scan, attr, &why)) return SpecError(op, "attr", spec, why);
  if (scan.Consume(">=")) {
    int64_t minimum = 0;
    std::string_view rest = scan.rest();
    const size_t end = rest.find('=');
    if (!ParseInt(rest.substr(0, end), &minimum)) {
      return SpecError(op, "attr", spec, "expected an integer after '>='");
    }
    if (attr->type() != "int" && !attr->type().starts_with("list(")) {
      return SpecError(op, "attr", spec, "a minimum applies only to int and list attrs");
    }
    attr->set_has_minimum(true);
    attr->set_minimum(minimum);
    scan = Scanner(end == std::string_view::npos ? std::string_view() : rest.substr(end));
  }
  if (scan.Consume("=")) {
    if (!ParseDefault(attr->type(), scan.rest(), attr->mutable_default_value(), &why)) {
      return SpecError(op, "attr", spec, "bad default: " + why);
    }
  } else if (!scan.AtEnd()) {
    return SpecError(op, "attr", spec, "unexpected '" + std::string(scan.rest()) + "'");
  }
  return Status::OK();
}

const tf::OpDef::AttrDef* FindAttrDef(const tf::OpDef& def, std::string_view name) {
  for (const auto& a : def.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

// "name: [Ref(] [N *] (T | Tlist | dtype) [)]"
Status ParseArgSpec(const std::string& op, const char* what, const std::string& spec,
                    const tf::OpDef& def, tf::OpDef::ArgDef* arg) {
  Scanner scan(spec);
  const std::string name(scan.Identifier());
  if (name.empty()) return SpecError(op, what, spec, "expected a name");
  arg->set_name(name);
  if (!scan.Consume(":")) return SpecError(op, what, spec, "expected ':' after the name");
  const bool is_ref = scan.Consume("Ref(");
  arg->set_is_ref(is_ref);
  std::string type_name(scan.Identifier());
  if (scan.Consume("*")) {
    arg->set_number_attr(type_name);
    const tf::OpDef::AttrDef* n = FindAttrDef(def, type_name);
    if (n == nullptr || n->type() != "int") {
      return SpecError(op, what, spec, "'" + type_name + "' must be an attr of type int");
    }
    type_name = std::string(scan.Identifier());
  }
  if (type_name.empty()) return SpecError(op, what, spec, "expected a type or type attr");
  if (is_ref && !scan.Consume(")")) return SpecError(op, what, spec, "expected ')' after Ref(");
  if (!scan.AtEnd()) {
    return SpecError(op, what, spec, "unexpected '" + std::string(scan.rest()) + "'");
  }
  // An attr of that name wins over a dtype spelling (as in TF).
  if (const tf::OpDef::AttrDef* attr = FindAttrDef(def, type_name)) {
    if (attr->type() == "type") {
      arg->set_type_attr(type_name);
    } else if (attr->type() == "list(type)") {
      if (!arg->number_attr().empty()) {
        return SpecError(op, what, spec, "a list(type) attr cannot be repeated with '*'");
      }
      arg->set_type_list_attr(type_name);
    } else {
      return SpecError(op, what, spec,
                       "attr '" + type_name + "' has type " + attr->type() +
                           ", expected type or list(type)");
    }
  } else if (auto dtype = DataTypeFromName(type_name); dtype && !IsRefType(*dtype)) {
    arg->set_type(static_cast<tf::DataType>(*dtype));
  } else {
    return SpecError(op, what, spec, "'" + type_name + "' is neither an attr nor a dtype");
  }
  return Status::OK();
}

}  // namespace

namespace {
const tf::AttrValue* FindDefault(const tf::OpDef& def, const std::string& attr) {
  for (const auto& a : def.attr()) {
    if (a.name() == attr && a.has_default_value()) return &a.default_value();
  }
  return nullptr;
}
}  // namespace

Status OpDefBuilder::Finalize(OpRegistration* out) const {
  OpRegistration reg;
  tf::OpDef& def = reg.op_def;
  def.set_name(op_name_);
  // Attrs first: argument specs refer to them by name.
  for (const auto& spec : attrs_) {
    tf::OpDef::AttrDef attr;
    TG_RETURN_IF_ERROR(ParseAttrSpec(op_name_, spec, &attr));
    if (FindAttrDef(def, attr.name()) != nullptr) {
      return SpecError(op_name_, "attr", spec, "duplicate attr '" + attr.name() + "'");
    }
    *def.add_attr() = std::move(attr);
  }
  for (const auto& spec : inputs_) {
    TG_RETURN_IF_ERROR(ParseArgSpec(op_name_, "input", spec, def, def.add_input_arg()));
  }
  for (const auto& spec : outputs_) {
    TG_RETURN_IF_ERROR(ParseArgSpec(op_name_, "output", spec, def, def.add_output_arg()));
  }
  def.set_is_stateful(stateful_);
  def.set_is_commutative(commutative_);
  def.set_is_aggregate(aggregate_);
  def.set_allows_uninitialized_input(allows_uninit_);
  def.set_summary(summary_);
  reg.shape_fn = shape_fn_;
  for (const std::string& attr : newer_than_tf1_) {
    bool known = false;
    for (const auto& a : def.attr()) known = known || a.name() == attr;
    if (!known || FindDefault(def, attr) == nullptr) {
      return InvalidArgument("op '", op_name_, "': attr '", attr,
                             "' marked newer than TF 1.x must exist and have a default");
    }
  }
  reg.attrs_newer_than_tf1 = newer_than_tf1_;
  *out = std::move(reg);
  return Status::OK();
}

}  // namespace tgraph
