#include "apply_pending.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "sys/netns_id.h"

namespace fastrestore::apply {
namespace {

std::string base_dir() {
  if (const char *dir = std::getenv("FASTRESTORE_APPLY_DIR"))
    return dir;
  return "/run/fastrestore/apply";
}

// This network namespace's part of the names (its cookie; "ns" when the
// kernel cannot tell, which only one namespace at a time can use).
std::string netns_part() {
  std::string why;
  const auto id = current_netns_id(&why);
  return id ? std::to_string(id->cookie) : "ns";
}

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exists(const std::string &path) {
  return access(path.c_str(), F_OK) == 0;
}

// The watcher's work, in its detached process: wait for the deadline or a
// confirmation; at the deadline (or when asked at once), put the tables
// back when they are as the load left them.
Outcome watch(const std::string &dir, const Target &t, int seconds) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  const std::string input = read_file(dir + "/input");
  while (std::chrono::steady_clock::now() < deadline &&
         !exists(dir + "/rollback-now")) {
    if (exists(dir + "/confirmed"))
      return {0, "confirmed: " + input + " stays (" + t.name() + ")"};
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (exists(dir + "/confirmed"))
    return {0, "confirmed: " + input + " stays (" + t.name() + ")"};
  std::vector<std::string> tables;
  {
    std::istringstream in(read_file(dir + "/tables"));
    for (std::string table; std::getline(in, table);)
      if (!table.empty())
        tables.push_back(table);
  }
  if (tables_text(t, tables) != read_file(dir + "/after.rules"))
    return {4, "not confirmed, but the tables " + input +
                   " loaded were changed since by another program: left as "
                   "they are, not rolled back (" +
                   t.name() + ")"};
  std::vector<std::string> args = t.options();
  if (t.family != Family::bridge)
    args.push_back("-c");
  if (t.backend == Backend::nft)
    args.push_back("--all-or-nothing");
  const int status = run_self(args, dir + "/rollback.rules", nullptr, false);
  if (status != 0)
    return {1, "not confirmed, and the rollback of " + input +
                   " failed (status " + std::to_string(status) + "): the " +
                   t.name() + " tables are as it loaded them"};
  return {3, "not confirmed: rolled back " + input + " (" + t.name() +
                 " tables as they were before it" +
                 (t.backend == Backend::legacy
                      ? "; legacy: one table replacement each"
                      : "; one transaction") +
                 ")"};
}

} // namespace

void remove_dir(const std::string &dir) {
  if (DIR *d = opendir(dir.c_str())) {
    while (const dirent *e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..")
        unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

bool write_text(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

std::vector<std::string> Target::options() const {
  std::vector<std::string> out;
  if (backend == Backend::legacy)
    out.push_back("--legacy");
  out.push_back(family == Family::ipv6     ? "-6"
                : family == Family::bridge ? "--bridge"
                                           : "-4");
  return out;
}

std::vector<std::string> save_args(const Target &t, const std::string &table,
                                   bool counters) {
  std::vector<std::string> args = {"save"};
  for (const std::string &o : t.options())
    args.push_back(o);
  if (counters)
    args.push_back("-c");
  args.push_back("-t");
  args.push_back(table);
  return args;
}

std::string Target::name() const {
  return family == Family::ipv6     ? "IPv6"
         : family == Family::bridge ? "bridge"
                                    : "IPv4";
}

int run_self(const std::vector<std::string> &args, const std::string &input,
             std::string *out, bool show_errors) {
  int pipefd[2] = {-1, -1};
  if (out != nullptr && pipe2(pipefd, O_CLOEXEC) != 0)
    return -1;
  const pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    const int in = open(input.empty() ? "/dev/null" : input.c_str(), O_RDONLY);
    const int null = open("/dev/null", O_WRONLY);
    if (in < 0 || null < 0)
      _exit(127);
    dup2(in, 0);
    dup2(out != nullptr ? pipefd[1] : null, 1);
    if (!show_errors)
      dup2(null, 2);
    std::vector<char *> argv;
    std::string argv0 = "fastrestore";
    argv.push_back(argv0.data());
    std::vector<std::string> copy = args;
    for (std::string &a : copy)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  if (out != nullptr) {
    close(pipefd[1]);
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = read(pipefd[0], buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      out->append(buf, static_cast<size_t>(n));
    }
    close(pipefd[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string tables_text(const Target &t,
                        const std::vector<std::string> &tables) {
  std::string text;
  for (const std::string &table : tables) {
    std::string out;
    if (run_self(save_args(t, table, false), "", &out, false) != 0)
      continue; // no such table
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.front() == '#')
        continue;
      if (!line.empty() && line.front() == ':')
        if (const size_t b = line.rfind(" ["); b != std::string::npos)
          line.erase(b);
      text += line + "\n";
    }
  }
  return text;
}

std::string pending_dir(const Target &t) {
  return base_dir() + "/" + netns_part() + "-" +
         (t.family == Family::ipv6     ? "6"
          : t.family == Family::bridge ? "bridge"
                                       : "4");
}

std::vector<std::string> pending_dirs() {
  std::vector<std::string> out;
  for (Family f : {Family::ipv4, Family::ipv6, Family::bridge}) {
    const std::string dir = pending_dir(Target{f, Backend::nft});
    if (exists(dir + "/input"))
      out.push_back(dir);
  }
  return out;
}

bool start_watcher(const std::string &dir, const Target &t, int seconds) {
  const pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  // The first child: a new session (no terminal, no job control signal
  // reaches it), then the watcher forks off it and this child ends.
  if (setsid() < 0)
    _exit(1);
  signal(SIGHUP, SIG_IGN);
  const pid_t watcher = fork();
  if (watcher < 0)
    _exit(1);
  if (watcher > 0)
    _exit(0);
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
  }
  if (chdir("/") != 0) {
    // (the pending directory is named whole)
  }
  const Outcome o = watch(dir, t, seconds);
  write_text(dir + ".result", std::to_string(o.status) + "\n" + o.text + "\n");
  remove_dir(dir);
  openlog("fastrestore", LOG_PID, LOG_USER);
  syslog(o.status == 0 || o.status == 3 ? LOG_NOTICE : LOG_ERR, "apply: %s",
         o.text.c_str());
  closelog();
  _exit(0);
}

bool wait_outcome(const std::string &dir, double seconds, Outcome &out) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (!exists(dir) && exists(dir + ".result")) {
      std::istringstream in(read_file(dir + ".result"));
      std::string status;
      std::getline(in, status);
      std::getline(in, out.text);
      out.status = std::atoi(status.c_str());
      unlink((dir + ".result").c_str());
      return true;
    }
    if (std::chrono::steady_clock::now() >= until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

} // namespace fastrestore::apply
