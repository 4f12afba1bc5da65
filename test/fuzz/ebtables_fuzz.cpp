// libFuzzer target: the ebtables command line (the words after
// `ebtables`), as fastrestore's ebtables command hands them to its rule
// parser: one word per input line. A first line "-t NAME" picks the table.
// Every rule that parses is encoded as the NEWRULE message it would send.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastrestore/diagnostic.h"
#include "fastrestore/eb_parser.h"
#include "lex/lexer.h"
#include "nft/nft_rule.h"

using namespace fastrestore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static EbParser parser;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::vector<Token> words;
  std::string table = "filter";
  int col = 1;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string word(text.substr(0, nl));
    text =
        nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (words.empty() && word.rfind("-t ", 0) == 0) {
      table = word.substr(3);
      continue;
    }
    Token t;
    t.text = word;
    t.col_begin = col;
    t.col_end = col + static_cast<int>(word.size());
    col = t.col_end + 2;
    words.push_back(std::move(t));
  }
  if (table != "filter" && table != "nat" && table != "broute")
    return 0; // the command line refuses other tables before parsing
  try {
    Command cmd = parser.parse(words, table, 1, "", nullptr);
    for (const Rule &r : cmd.rules)
      nft::rule_message(r, Family::bridge, table, cmd.chain);
  } catch (const Error &) {
  }
  return 0;
}
