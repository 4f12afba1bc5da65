// The state journal one chain at a time (journal.h): a chain read with the
// record's head and its own rules alone, and a single command's change to
// a chain written into the record, without a kernel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "journal/journal.h"
#include "journal_samples.h"

using namespace fastrestore;
using namespace fastrestore::test;

namespace {

// Reads from `bytes` as a record file would be read.
ReadAt reader(const std::string &bytes) {
  return [&bytes](uint64_t offset, size_t len, std::string_view &out) {
    if (offset > bytes.size() || len > bytes.size() - offset)
      return false;
    out = std::string_view(bytes).substr(offset, len);
    return true;
  };
}

StateChain chain(const std::string &name,
                 const std::vector<std::pair<uint64_t, uint64_t>> &rules) {
  StateChain c;
  c.name = name;
  for (const auto &[key, handle] : rules)
    c.rules.push_back({key, handle, 0, false, false, 0, 0});
  return c;
}

} // namespace

TEST_CASE("journal: one chain of a record is read alone, with its own checks",
          "[journal]") {
  const JournalKey key{ns(), 2, "filter"};
  const TableState t = sample(5);
  const std::string bytes = encode_table_record(key, 9, t);
  std::string why;
  for (const StateChain &c : t.chains) {
    auto got = decode_chain_record(reader(bytes), key, 9, c.name, &why);
    INFO(c.name << ": " << why);
    REQUIRE(got);
    REQUIRE(got->chain);
    CHECK(same_chain(*got->chain, c));
    CHECK(got->fingerprint == t.fingerprint);
    CHECK(got->next_handle == t.next_handle);
  }
  auto none = decode_chain_record(reader(bytes), key, 9, "nope", &why);
  REQUIRE(none);
  CHECK_FALSE(none->chain);
  CHECK_FALSE(decode_chain_record(reader(bytes), key, 8, "INPUT", &why));
  CHECK(why == "not the record the index names");

  // A byte of INPUT's rules altered: INPUT is refused, the chains after
  // it are still read (their own hashes), the whole record is refused.
  const size_t rules_start = bytes.size() - 8 - (5 + 1) * 17;
  std::string bad = bytes;
  bad[rules_start + 3] ^= 1;
  CHECK_FALSE(decode_chain_record(reader(bad), key, 9, "INPUT", &why));
  CHECK(why == "its checksum does not match (truncated or altered)");
  CHECK(decode_chain_record(reader(bad), key, 9, "returns", &why)->chain);
  CHECK_FALSE(decode_table_record(bad, key, 9, &why));
  // The head altered, or the file cut short.
  bad = bytes;
  bad[20] ^= 1;
  CHECK_FALSE(decode_chain_record(reader(bad), key, 9, "web", &why));
  const std::string cut = bytes.substr(0, rules_start + 10);
  CHECK_FALSE(decode_chain_record(reader(cut), key, 9, "INPUT", &why));
  CHECK(why == "it is truncated");
  CHECK_FALSE(
      decode_chain_record(reader(bytes.substr(0, 30)), key, 9, "INPUT", &why));
}

TEST_CASE("journal: a rule is found by key in its chain's part of a record",
          "[journal]") {
  const JournalKey key{ns(), 2, "filter"};
  TableState t = sample(5);
  t.chains.push_back(chain("keys", {{7, 100}, {8, 90}, {7, 300}, {9, 301}}));
  const std::string bytes = encode_table_record(key, 9, t);
  std::string why;
  // Each rule of every chain by its own key: the first with that key.
  for (const StateChain &c : t.chains)
    for (const StateRule &r : c.rules) {
      auto got =
          find_chain_rule(reader(bytes), key, 9, c.name, {r.key, 0}, &why);
      INFO(c.name << " " << r.key << ": " << why);
      REQUIRE(got);
      CHECK(got->chain);
      const auto first =
          std::find_if(c.rules.begin(), c.rules.end(),
                       [&](const StateRule &x) { return x.key == r.key; });
      CHECK(got->handle == first->handle);
    }
  // Either key of the pair; none; a chain the record lacks.
  CHECK(find_chain_rule(reader(bytes), key, 9, "keys", {1, 9}, &why)->handle ==
        301u);
  CHECK(find_chain_rule(reader(bytes), key, 9, "keys", {8, 1}, &why)->handle ==
        90u);
  auto none = find_chain_rule(reader(bytes), key, 9, "keys", {1, 2}, &why);
  REQUIRE(none);
  CHECK(none->chain);
  CHECK_FALSE(none->handle);
  auto lacking = find_chain_rule(reader(bytes), key, 9, "nope", {7, 8}, &why);
  REQUIRE(lacking);
  CHECK_FALSE(lacking->chain);
  // Another serial, a byte of the chain's part altered: refused.
  CHECK_FALSE(find_chain_rule(reader(bytes), key, 8, "keys", {7, 0}, &why));
  std::string bad = bytes;
  bad[bytes.size() - 8 - 10] ^= 1;
  CHECK_FALSE(find_chain_rule(reader(bad), key, 9, "keys", {7, 0}, &why));
  CHECK(why == "its checksum does not match (truncated or altered)");
}

TEST_CASE("journal: a command's change to one chain is written into the record",
          "[journal]") {
  const JournalKey key{ns(), 2, "filter"};
  const TableState t = sample(5);
  const std::string bytes = encode_table_record(key, 9, t);
  StateChain input = t.chains[0];
  input.rules.erase(input.rules.begin() + 1);                 // -D INPUT 2
  input.rules.push_back({0xabc, 0, 500, false, false, 0, 0}); // -A INPUT
  StateChain back = t.chains[2];
  back.name = "back"; // -E returns back
  const std::vector<ChainEdit> edits = {
      {"INPUT", input},
      {"web", std::nullopt},                             // -X web
      {"f2b", chain("f2b", {{0x51, 501}, {0x52, 502}})}, // -N f2b, -A f2b
      {"returns", back},
      {"gone", std::nullopt}, // not recorded: nothing to do
  };
  std::string why;
  auto pieces = edit_table_record(bytes, key, 9, 10, edits, 503, &why);
  INFO(why);
  REQUIRE(pieces);
  const std::string edited = pieces->joined();
  // A chain not edited (INPUT) is written from the record's own bytes,
  // not a copy.
  auto one = edit_table_record(
      bytes, key, 9, 10, {{"f2b", chain("f2b", {{0x51, 501}})}}, 503, &why);
  REQUIRE(one);
  CHECK(std::any_of(one->pieces.begin(), one->pieces.end(),
                    [&](std::string_view p) {
                      return p.data() >= bytes.data() &&
                             p.data() < bytes.data() + bytes.size();
                    }));
  REQUIRE(decode_table_record(one->joined(), key, 10, &why));
  TableState want = t;
  want.chains = {input, back, chain("f2b", {{0x51, 501}, {0x52, 502}})};
  want.block = 0; // no longer what a block made
  want.next_handle = 503;
  auto got = decode_table_record(edited, key, 10, &why);
  REQUIRE(got);
  CHECK(same(*got, want));
  auto f2b = decode_chain_record(reader(edited), key, 10, "f2b", &why);
  REQUIRE(f2b);
  REQUIRE(f2b->chain);
  CHECK(same_chain(*f2b->chain, want.chains[2]));
  // Only the record it names is edited.
  CHECK_FALSE(edit_table_record(bytes, key, 8, 10, edits, 503, &why));
  CHECK(why == "not the record the index names");
}

TEST_CASE("journal: a command's edit and a chain's read follow the generation",
          "[journal]") {
  Dir d;
  Journal j(d.path, ns());
  const TableState t = sample(4);
  std::string why;
  REQUIRE(keep(j, 2, "filter", 0, 5, &t, 5, &why));
  REQUIRE(keep(j, 2, "nat", 5, 6, &t, 6, &why));
  auto input = j.load_chain(2, "filter", "INPUT", 6, &why);
  INFO(why);
  REQUIRE(input);
  REQUIRE(input->chain);
  CHECK(same_chain(*input->chain, t.chains[0]));
  CHECK_FALSE(j.load_chain(2, "filter", "INPUT", 7, &why));
  CHECK(why.rfind("stale", 0) == 0);

  // The command's commit moved the generation from 6 to 7.
  const StateChain web = chain("web", {{0x77, 100}});
  auto now = [](uint32_t g) { return [g] { return g; }; };
  CHECK_FALSE(j.edit(2, "filter", 6, 7, {{"web", web}}, 101, now(8), &why));
  CHECK(why == "another program committed right after this one");
  REQUIRE(j.edit(2, "filter", 6, 7, {{"web", web}}, 101, now(7), &why));
  auto got = j.load_chain(2, "filter", "web", 7, &why);
  REQUIRE(got);
  REQUIRE(got->chain);
  CHECK(same_chain(*got->chain, web));
  CHECK(got->next_handle == 101);
  auto whole = j.load(2, "filter", 7, &why);
  REQUIRE(whole);
  CHECK(whole->block == 0);
  CHECK(same_chain(whole->chains[0], t.chains[0]));
  // The namespace's other record stays current.
  CHECK(j.load(2, "nat", 7, &why));

  // From a generation the index was not at (another tool committed in
  // between): the table's record is forgotten, and every other one stale.
  CHECK_FALSE(j.edit(2, "filter", 8, 9, {{"web", web}}, 102, now(9), &why));
  CHECK_FALSE(j.load(2, "filter", 9, &why));
  CHECK(why == "no record of this table");
  CHECK_FALSE(j.load(2, "nat", 9, &why));
}
