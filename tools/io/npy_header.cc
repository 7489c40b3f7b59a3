#include "npy_header.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <limits>

namespace tgraph::tool {
namespace {

constexpr size_t kAlignment = 64;
// numpy leaves room in the header for the growing axis to reach this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;

// A recursive-descent reader of the Python literal subset numpy writes in headers:
// {'key': value, ...} with strings, True/False and tuples of integers.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  IoError Parse(NpyHeader* header) {
    if (!Consume('{')) return Malformed("does not start with '{'");
    bool have_descr = false, have_order = false, have_shape = false;
    while (!Consume('}')) {
      std::string key;
      if (IoError e = ParseString(&key); !e.ok()) return e;
      if (!Consume(':')) return Malformed("expected ':' after '" + key + "'");
      IoError e;
      if (key == "descr") {
        e = Once(&have_descr, key);
        if (e.ok()) e = ParseDescrValue(&header->descr);
      } else if (key == "fortran_order") {
        e = Once(&have_order, key);
        if (e.ok()) e = ParseBool(&header->fortran_order);
      } else if (key == "shape") {
        e = Once(&have_shape, key);
        if (e.ok()) e = ParseShape(&header->shape);
      } else {
        return Malformed("unexpected key '" + key + "'");
      }
      if (!e.ok()) return e;
      if (!Consume(',')) {
        if (!Consume('}')) return Malformed("expected ',' or '}' after the value of '" + key + "'");
        break;
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) return Malformed("unexpected text after the closing '}'");
    if (!have_descr || !have_order || !have_shape) {
      return Malformed("lacks one of the keys 'descr', 'fortran_order', 'shape'");
    }
    return Ok();
  }

 private:
  IoError Malformed(const std::string& what) const {
    return Fail(TG_INVALID_ARGUMENT,
                "malformed header (" + what + " at offset " + std::to_string(pos_) + ")");
  }

  IoError Once(bool* seen, const std::string& key) const {
    if (*seen) return Malformed("duplicate key '" + key + "'");
    *seen = true;
    return Ok();
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  IoError ParseString(std::string* out) {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Malformed("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Malformed("unterminated string");
    std::string_view body = text_.substr(pos_, end - pos_);
    if (body.find('\\') != std::string_view::npos) return Malformed("escape in a string");
    out->assign(body);
    pos_ = end + 1;
    return Ok();
  }

  IoError ParseDescrValue(std::string* out) {
    if (Peek('[')) {
      return Fail(TG_UNIMPLEMENTED,
                  "structured arrays (a list as 'descr') are not supported: tgraph tensors "
                  "have one element type");
    }
    return ParseString(out);
  }

  IoError ParseBool(bool* out) {
    SkipSpace();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::string_view(word).size();
        *out = value;
        return Ok();
      }
    }
    return Malformed("expected True or False");
  }

  IoError ParseDim(int64_t* out) {
    SkipSpace();
    if (Peek('-')) {
      return Fail(TG_INVALID_ARGUMENT, "the shape has a negative dimension");
    }
    const char* begin = text_.data() + pos_;
    const char* end = text_.data() + text_.size();
    auto [next, ec] = std::from_chars(begin, end, *out);
    if (ec == std::errc::result_out_of_range) {
      return Fail(TG_INVALID_ARGUMENT, "a dimension of the shape overflows int64");
    }
    if (ec != std::errc()) return Malformed("expected an integer in the shape");
    pos_ += static_cast<size_t>(next - begin);
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2's long suffix
    return Ok();
  }

  // A Python tuple: (), (n,), (n, m), (n, m,).
  IoError ParseShape(std::vector<int64_t>* shape) {
    if (!Consume('(')) return Malformed("the shape is not a tuple");
    shape->clear();
    bool comma_after_last = false;
    while (!Consume(')')) {
      if (shape->size() == kMaxNpyRank) {
        return Fail(TG_INVALID_ARGUMENT,
                    "the shape has more than " + std::to_string(kMaxNpyRank) + " dimensions");
      }
      int64_t dim = 0;
      if (IoError e = ParseDim(&dim); !e.ok()) return e;
      shape->push_back(dim);
      comma_after_last = Consume(',');
      if (!comma_after_last && !Peek(')')) return Malformed("expected ',' or ')' in the shape");
    }
    if (shape->size() == 1 && !comma_after_last) return Malformed("the shape is not a tuple");
    return Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void AppendLittleEndian(uint64_t value, size_t bytes, std::string* out) {
  for (size_t i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

IoError ParseNpyHeader(std::string_view text, NpyHeader* header) {
  return HeaderParser(text).Parse(header);
}

IoError ParseNpyDescr(std::string_view descr, NpyDescr* out) {
  std::string quoted(1, '\'');
  quoted.append(descr).push_back('\'');
  if (descr.size() < 2) return Fail(TG_INVALID_ARGUMENT, "malformed descr " + quoted);
  char order = descr[0];
  if (order == '=') order = std::endian::native == std::endian::little ? '<' : '>';
  if (order != '<' && order != '>' && order != '|') {
    return Fail(TG_INVALID_ARGUMENT, "descr " + quoted + " has no byte order ('<', '>', '|')");
  }
  const char kind = descr[1] == 'a' ? 'S' : descr[1];  // 'a' is an old alias of 'S'
  if (kind == 'O') {
    return Fail(TG_UNIMPLEMENTED,
                "object arrays (descr " + quoted + ", pickled Python objects) are not supported");
  }
  size_t itemsize = 0;
  std::string_view digits = descr.substr(2);
  auto [next, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), itemsize);
  if (ec != std::errc() || next != digits.data() + digits.size()) {
    if (std::string_view("fiucbSU").find(kind) == std::string_view::npos) {
      return Fail(TG_UNIMPLEMENTED, "descr " + quoted + " is not a type tgraph supports");
    }
    return Fail(TG_INVALID_ARGUMENT, "malformed descr " + quoted);
  }
  if (kind == 'U') {
    // The number counts UCS-4 characters, not bytes.
    if (itemsize > std::numeric_limits<size_t>::max() / 4) {
      return Fail(TG_INVALID_ARGUMENT, "descr " + quoted + " overflows");
    }
    itemsize *= 4;
  }
  if ((kind == 'S' || kind == 'U') && itemsize == 0) {
    return Fail(TG_INVALID_ARGUMENT, "descr " + quoted + " has zero-width elements");
  }
  *out = NpyDescr{order, kind, itemsize};
  return Ok();
}

std::string EncodeNpyPreamble(const NpyHeader& header) {
  std::string dict = "{'descr': '" + header.descr +
                     "', 'fortran_order': " + (header.fortran_order ? "True" : "False") +
                     ", 'shape': " + ShapeRepr(header.shape) + ", }";
  if (!header.shape.empty()) {
    const size_t axis = header.fortran_order ? header.shape.size() - 1 : 0;
    const size_t digits = std::to_string(header.shape[axis]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // Version 1.0 stores the header length in 2 bytes, 2.0 in 4.
  for (const auto& [major, length_bytes] : {std::pair{1, size_t{2}}, std::pair{2, size_t{4}}}) {
    const size_t unpadded = kNpyMagic.size() + 2 + length_bytes + dict.size() + 1;
    const size_t padding = kAlignment - unpadded % kAlignment;
    const uint64_t header_length = dict.size() + padding + 1;
    if (header_length >= (uint64_t{1} << (8 * length_bytes))) continue;
    std::string out(kNpyMagic);
    out.push_back(static_cast<char>(major));
    out.push_back('\0');
    AppendLittleEndian(header_length, length_bytes, &out);
    out += dict;
    out.append(padding, ' ');
    out.push_back('\n');
    return out;
  }
  return {};  // unreachable: a header of 4 GiB would need hundreds of millions of dims
}

}  // namespace tgraph::tool
