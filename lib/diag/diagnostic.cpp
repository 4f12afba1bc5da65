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
  return out + caret_display(d);
}

std::string caret_display(const Diagnostic &d) {
  std::string out;
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
    // A file written on DOS or Windows: every line's last word holds a CR.
    if (d.source.back() == '\r')
      out += std::string(num.size() + 2, ' ') +
             " = hint: line ends in CR (a DOS file?)\n";
  }
  return out;
}

namespace {

Frame frame_of(const Diagnostic &d) {
  if (d.frame != Frame::by_code)
    return d.frame;
  switch (d.code) {
  case ExitCode::format:
    return Frame::line_failed;
  case ExitCode::kernel:
    return Frame::kernel;
  default:
    return Frame::tool;
  }
}

// What the tool says of `d`: its own words where they differ.
std::string text(const Diagnostic &d) {
  return d.upstream ? *d.upstream : d.message;
}

// "NAME vVERSION: ", as xtables_error starts its messages.
std::string tool_prefix(const UpstreamTool &tool) {
  return tool.name + " v" + tool.version + ": ";
}

} // namespace

std::string format_upstream(const Diagnostic &first,
                            const std::vector<Diagnostic> &more,
                            const UpstreamTool &tool) {
  const std::string prefix = tool_prefix(tool);
  const std::string line = std::to_string(first.loc.line);
  std::string out;
  switch (frame_of(first)) {
  case Frame::by_code:
  case Frame::tool:
    out = prefix + text(first) + "\n";
    break;
  case Frame::bare:
    out = text(first) + "\n";
    break;
  case Frame::tool_line:
    out = tool.name + ": " + text(first) + "\n";
    break;
  case Frame::tool_named:
    out = prefix + tool.name + ": " + text(first) + "\n";
    break;
  case Frame::line_failed:
    out = tool.name + ": line " + line + " failed";
    if (!text(first).empty())
      out += ": " + text(first);
    out += "\n";
    break;
  case Frame::kernel:
    // iptables-nft gathers every refused object into one message.
    out = prefix;
    out += "\nline " + line + ": " + text(first);
    for (const Diagnostic &d : more)
      out += "\nline " + std::to_string(d.loc.line) + ": " + text(d);
    out += "\n";
    break;
  }
  if (first.code == ExitCode::parameter)
    out += "Error occurred at line: " + line + "\nTry `" + tool.name +
           " -h' or '" + tool.name + " --help' for more information.\n";
  out += caret_display(first);
  for (const Diagnostic &d : more)
    out += caret_display(d);
  return out;
}

std::string format_upstream_command(const Diagnostic &first,
                                    const UpstreamTool &tool) {
  const std::string prefix = tool_prefix(tool);
  std::string out;
  switch (frame_of(first)) {
  case Frame::by_code:
  case Frame::tool:
  case Frame::tool_named:
    out = prefix + text(first) + "\n";
    break;
  case Frame::bare:
    out = text(first) + "\n";
    break;
  case Frame::tool_line:
  case Frame::line_failed:
    // The command iptables refused: "iptables: REASON", with a pointer to
    // the kernel's log for what it reports as EINVAL.
    out = tool.name + ": " + text(first);
    if (text(first) == "Bad policy name.")
      out += " Run `dmesg' for more information.";
    out += "\n";
    break;
  case Frame::kernel:
    // The first object the kernel refused (a restore names each).
    out = prefix + " " + text(first) + "\n";
    break;
  }
  if (first.code == ExitCode::parameter)
    out += "Try `" + tool.name + " -h' or '" + tool.name +
           " --help' for more information.\n";
  return out;
}

} // namespace fastrestore
