// JSON strings and one-line objects (json.h).
#include "diag/json.h"

#include <cstdio>

namespace fastrestore {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x",
                      static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
  return out;
}

void JsonObject::key(std::string_view k) {
  if (!body_.empty())
    body_ += ',';
  body_ += json_quote(k);
  body_ += ':';
}

JsonObject &JsonObject::text(std::string_view k, std::string_view value) {
  key(k);
  body_ += json_quote(value);
  return *this;
}

JsonObject &JsonObject::number(std::string_view k, uint64_t value) {
  key(k);
  body_ += std::to_string(value);
  return *this;
}

JsonObject &JsonObject::real(std::string_view k, double value, int decimals) {
  key(k);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  body_ += buf;
  return *this;
}

JsonObject &JsonObject::boolean(std::string_view k, bool value) {
  key(k);
  body_ += value ? "true" : "false";
  return *this;
}

JsonObject &JsonObject::raw(std::string_view k, std::string_view json) {
  key(k);
  body_ += json;
  return *this;
}

} // namespace fastrestore
