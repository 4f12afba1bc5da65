#include "fastrestore/diagnostic.h"

#include <algorithm>

namespace fastrestore {

std::string format_diagnostic(const Diagnostic &d,
                              const std::string &input_name) {
  std::string out = "fastrestore: ";
  if (!input_name.empty())
    out += input_name + ": ";
  if (d.loc.line > 0) {
    out += "line " + std::to_string(d.loc.line);
    if (d.loc.col_begin > 0) {
      out += ", column " + std::to_string(d.loc.col_begin);
      if (d.loc.col_end > d.loc.col_begin)
        out += "-" + std::to_string(d.loc.col_end);
    }
    out += ": ";
  }
  out += d.message + "\n";
  if (d.loc.line > 0 && !d.source.empty()) {
    std::string num = std::to_string(d.loc.line);
    out += "  " + num + " | " + d.source + "\n";
    if (d.loc.col_begin > 0) {
      int end = std::max(d.loc.col_end, d.loc.col_begin);
      end = std::min<int>(end, static_cast<int>(d.source.size()));
      std::string pad(num.size() + 2, ' ');
      std::string under;
      for (int i = 1; i < d.loc.col_begin; ++i)
        under += d.source[i - 1] == '\t' ? '\t' : ' ';
      under += std::string(std::max(1, end - d.loc.col_begin + 1), '^');
      out += pad + " | " + under + "\n";
    }
  }
  return out;
}

} // namespace fastrestore
