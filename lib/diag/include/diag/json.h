// JSON for the machine-readable outputs (--stats=json, diff --json): one
// object on one line, its members in the order they are added. Strings
// are escaped as JSON asks (quotes, backslashes, control characters);
// other bytes pass as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fastrestore {

// `s` as a JSON string, quotes included.
std::string json_quote(std::string_view s);

class JsonObject {
public:
  JsonObject &text(std::string_view key, std::string_view value);
  JsonObject &number(std::string_view key, uint64_t value);
  // `value` with `decimals` digits after the point.
  JsonObject &real(std::string_view key, double value, int decimals);
  JsonObject &boolean(std::string_view key, bool value);
  // `json`, already JSON (an array or an object), as the member's value.
  JsonObject &raw(std::string_view key, std::string_view json);
  // The object: {"key":value,...}.
  std::string str() const { return "{" + body_ + "}"; }

private:
  void key(std::string_view k);
  std::string body_;
};

} // namespace fastrestore
