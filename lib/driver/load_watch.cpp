#include "load_watch.h"

#include <pwd.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace fastrestore {
namespace {

// Who runs the load: the user's name and id, and the one sudo ran it for.
std::string who() {
  const uid_t uid = getuid();
  const passwd *pw = getpwuid(uid);
  std::string out = "uid " + std::to_string(uid);
  if (pw != nullptr && pw->pw_name != nullptr)
    out += " (" + std::string(pw->pw_name) + ")";
  if (const char *sudo = std::getenv("SUDO_USER"); sudo != nullptr)
    out += " via sudo by " + std::string(sudo);
  return out;
}

const char *family_name(Family f) {
  switch (f) {
  case Family::ipv6:
    return "IPv6";
  case Family::bridge:
    return "bridge";
  default:
    return "IPv4";
  }
}

} // namespace

LoadWatch::LoadWatch(const RestoreConfig &cfg, std::ostream &err)
    : cfg_(cfg), err_(err), progress_(cfg.progress),
      start_(std::chrono::steady_clock::now()) {}

void LoadWatch::table(std::string_view name) {
  const size_t end = name.find_first_of(" \t\r");
  const std::string t(name.substr(0, end));
  if (!t.empty() &&
      std::find(tables_.begin(), tables_.end(), t) == tables_.end())
    tables_.push_back(t);
}

void LoadWatch::tick() {
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  if (s < 1.0)
    return;
  char buf[160];
  std::snprintf(
      buf, sizeof(buf),
      "\rfastrestore: %llu lines read, %llu rules, %.0f rules/s\033[K",
      static_cast<unsigned long long>(lines_),
      static_cast<unsigned long long>(rules_), rules_ / s);
  err_ << buf << std::flush;
  shown_ = true;
}

void LoadWatch::clear() {
  if (!shown_)
    return;
  err_ << "\r\033[K" << std::flush;
  shown_ = false;
}

void LoadWatch::done(int status, const std::string &error) {
  clear();
  if (!cfg_.log)
    return;
  std::string tables;
  for (const std::string &t : tables_)
    tables += (tables.empty() ? "" : ", ") + t;
  const char *what = cfg_.test      ? "tested"
                     : cfg_.noflush ? "added to the tables"
                                    : "loaded";
  std::string msg =
      who() + " " + what + " " +
      (cfg_.input_name.empty() ? "standard input" : cfg_.input_name) + " (" +
      family_name(cfg_.family) + ", " +
      (cfg_.backend == Backend::legacy ? "legacy" : "nf_tables") +
      "): tables " + (tables.empty() ? "none" : tables) + ", " +
      std::to_string(rules_) + " rules: ";
  if (status == 0)
    msg += "done";
  else
    msg += "failed with status " + std::to_string(status) +
           (error.empty() ? "" : ": " + error);
  openlog("fastrestore", LOG_PID, LOG_USER);
  syslog(status == 0 ? LOG_NOTICE : LOG_ERR, "%s", msg.c_str());
  closelog();
}

} // namespace fastrestore
