#include "distributed/csrc/tcp_store.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

enum Command : uint8_t {
  kHello = 1,
  kSet,
  kSetNoReply,
  kGet,
  kAdd,
  kWait,
  kCheck,
  kDelete,
  kBye,
};

using Clock = std::chrono::steady_clock;

// Grace beyond a request's own timeout before the client gives up on the
// server's answer (the server enforces the request's timeout itself).
constexpr int64_t kReplyGraceMs = 10000;

template <typename T>
void PutPod(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void PutBytes(std::string* out, const char* data, size_t size) {
  PutPod<uint32_t>(out, static_cast<uint32_t>(size));
  out->append(data, size);
}

void PutString(std::string* out, const std::string& s) { PutBytes(out, s.data(), s.size()); }

// Moves exactly `size` bytes with io(p, n) (a recv or a send), retrying after a signal;
// false on EOF or error (the connection is done).
template <typename Byte, typename Io>
bool TransferFull(Byte* p, size_t size, Io&& io) {
  while (size > 0) {
    const ssize_t n = io(p, size);
    if (n == 0) return false;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadFull(int fd, void* buf, size_t size) {
  return TransferFull(static_cast<char*>(buf), size,
                      [fd](char* p, size_t n) { return ::recv(fd, p, n, 0); });
}

bool WriteFull(int fd, const void* buf, size_t size) {
  return TransferFull(static_cast<const char*>(buf), size,
                      [fd](const char* p, size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); });
}

template <typename T>
bool ReadPod(int fd, T* v) {
  return ReadFull(fd, v, sizeof(T));
}

// Strings longer than this are a protocol error (or a stranger on the port).
constexpr uint32_t kMaxValueSize = 1u << 30;

bool ReadBytes(int fd, std::vector<char>* out) {
  uint32_t size;
  if (!ReadPod(fd, &size) || size > kMaxValueSize) return false;
  out->resize(size);
  return size == 0 || ReadFull(fd, out->data(), size);
}

bool ReadString(int fd, std::string* out) {
  std::vector<char> bytes;
  if (!ReadBytes(fd, &bytes)) return false;
  out->assign(bytes.begin(), bytes.end());
  return true;
}

void SetNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

std::string ErrnoText() { return std::strerror(errno); }

int64_t ToMs(std::chrono::milliseconds d) { return static_cast<int64_t>(d.count()); }

double Seconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

}  // namespace

std::string ExitedKey(int rank) { return StrCat("__exited__/", rank); }

// ---------------------------------------------------------------- server

TcpStoreServer::TcpStoreServer(int port) {
  // A dual-stack socket serves IPv4 and IPv6 clients; fall back to IPv4 alone.
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1, zero = 0;
  bool bound = false;
  int bind_errno = 0;
  if (fd >= 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    addr.sin6_port = htons(static_cast<uint16_t>(port));
    bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (!bound) {
      bind_errno = errno;
      ::close(fd);
    }
  }
  if (!bound && (fd < 0 || bind_errno == EAFNOSUPPORT || bind_errno == EADDRNOTAVAIL)) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw CommError(StrCat("TCP store: cannot create a socket: ", ErrnoText()));
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (!bound) {
      bind_errno = errno;
      ::close(fd);
    }
  }
  if (!bound) {
    throw CommError(StrCat("TCP store: cannot listen on port ", port, ": ",
                           std::strerror(bind_errno),
                           " (is MASTER_PORT used by another process?)"));
  }
  if (::listen(fd, 1024) != 0) {
    std::string e = ErrnoText();
    ::close(fd);
    throw CommError(StrCat("TCP store: listen() on port ", port, " failed: ", e));
  }
  sockaddr_storage bound_addr{};
  socklen_t len = sizeof(bound_addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound_addr), &len);
  port_ = bound_addr.ss_family == AF_INET6
              ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound_addr)->sin6_port)
              : ntohs(reinterpret_cast<sockaddr_in*>(&bound_addr)->sin_port);
  listen_fd_ = fd;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

TcpStoreServer::~TcpStoreServer() {
  stopping_ = true;
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
  accept_thread_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Wakes workers blocked in recv(); each closes its own fd.
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  changed_.notify_all();
  for (auto& t : workers) t.join();
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void TcpStoreServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int r = ::poll(fds, 2, -1);
    if (r < 0 && errno != EINTR) return;
    if (stopping_) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    SetNoDelay(fd);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    client_fds_.insert(fd);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

bool TcpStoreServer::WaitForKeys(std::unique_lock<std::mutex>& lock,
                                 const std::vector<std::string>& keys, int64_t timeout_ms) {
  auto ready = [&] {
    if (stopping_) return true;
    for (const auto& k : keys) {
      if (data_.find(k) == data_.end()) return false;
    }
    return true;
  };
  changed_.wait_until(lock, Clock::now() + std::chrono::milliseconds(timeout_ms), ready);
  return !stopping_ && ready();
}

void TcpStoreServer::Serve(int fd) {
  int rank = -1;
  bool said_bye = false;
  for (;;) {
    uint8_t cmd;
    if (!ReadPod(fd, &cmd)) break;
    std::string reply;
    bool ok = true;
    switch (cmd) {
      case kHello: {
        int32_t r;
        ok = ReadPod(fd, &r);
        rank = r;
        PutPod<uint8_t>(&reply, 1);
        break;
      }
      case kSet:
      case kSetNoReply: {
        std::string key;
        std::vector<char> value;
        ok = ReadString(fd, &key) && ReadBytes(fd, &value);
        if (ok) {
          std::lock_guard<std::mutex> lock(mu_);
          data_[key] = std::move(value);
        }
        changed_.notify_all();
        if (cmd == kSet) PutPod<uint8_t>(&reply, 1);
        break;
      }
      case kGet: {
        std::string key;
        int64_t timeout_ms;
        ok = ReadString(fd, &key) && ReadPod(fd, &timeout_ms);
        if (!ok) break;
        std::unique_lock<std::mutex> lock(mu_);
        if (WaitForKeys(lock, {key}, timeout_ms)) {
          PutPod<uint8_t>(&reply, 1);
          const auto& v = data_[key];
          PutBytes(&reply, v.data(), v.size());
        } else {
          PutPod<uint8_t>(&reply, 0);
        }
        break;
      }
      case kAdd: {
        std::string key;
        int64_t delta;
        ok = ReadString(fd, &key) && ReadPod(fd, &delta);
        if (!ok) break;
        int64_t sum;
        {
          std::lock_guard<std::mutex> lock(mu_);
          auto& v = data_[key];
          // A value that is not a number counts as 0 (never throw on a server thread).
          sum = std::strtoll(std::string(v.begin(), v.end()).c_str(), nullptr, 10) + delta;
          std::string text = std::to_string(sum);
          v.assign(text.begin(), text.end());
        }
        changed_.notify_all();
        PutPod<int64_t>(&reply, sum);
        break;
      }
      case kWait:
      case kCheck: {
        uint32_t n;
        ok = ReadPod(fd, &n);
        std::vector<std::string> keys(ok ? n : 0);
        for (auto& k : keys) ok = ok && ReadString(fd, &k);
        int64_t timeout_ms = 0;
        if (ok && cmd == kWait) ok = ReadPod(fd, &timeout_ms);
        if (!ok) break;
        std::unique_lock<std::mutex> lock(mu_);
        PutPod<uint8_t>(&reply, WaitForKeys(lock, keys, timeout_ms) ? 1 : 0);
        break;
      }
      case kDelete: {
        std::string key;
        ok = ReadString(fd, &key);
        if (!ok) break;
        std::lock_guard<std::mutex> lock(mu_);
        PutPod<uint8_t>(&reply, data_.erase(key) ? 1 : 0);
        break;
      }
      case kBye:
        said_bye = true;
        PutPod<uint8_t>(&reply, 1);
        break;
      default:
        ok = false;  // not our protocol: drop the connection
    }
    if (!ok || (!reply.empty() && !WriteFull(fd, reply.data(), reply.size())) || said_bye) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!said_bye && rank >= 0 && !stopping_) {
    std::string one = "1";
    data_[ExitedKey(rank)] = std::vector<char>(one.begin(), one.end());
    changed_.notify_all();
  }
  client_fds_.erase(fd);
  ::close(fd);
}

// ---------------------------------------------------------------- client

TcpStore::TcpStore(const std::string& host, int port, int rank, std::chrono::milliseconds timeout)
    : host_(host), port_(port), rank_(rank), owner_pid_(::getpid()), timeout_(timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no address";
  while (fd_ < 0) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) {
      last_error = StrCat("cannot resolve '", host, "': ", ::gai_strerror(rc));
    }
    for (addrinfo* ai = res; ai != nullptr && fd_ < 0; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        fd_ = fd;
      } else {
        last_error = ErrnoText();
        ::close(fd);
      }
    }
    if (res != nullptr) ::freeaddrinfo(res);
    if (fd_ >= 0) break;
    if (Clock::now() >= deadline) {
      throw CommTimeoutError(
          StrCat("rank ", rank, " could not connect to the TCP store at ", address(), " within ",
                 Seconds(ToMs(timeout)), " s (last error: ", last_error,
                 "); rank 0 hosts the store: is it running, and are MASTER_ADDR and "
                 "MASTER_PORT the same on every rank?"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  SetNoDelay(fd_);
  std::string req;
  PutPod<uint8_t>(&req, kHello);
  PutPod<int32_t>(&req, rank);
  char ack;
  Request(req, &ack, 1, ToMs(timeout_));
}

TcpStore::~TcpStore() {
  try {
    Close();
  } catch (...) {  // the server may be gone already; nothing to report in a destructor
  }
}

std::string TcpStore::address() const { return StrCat(host_, ":", port_); }

void TcpStore::Fail(const std::string& what) {
  broken_ = what;
  throw CommError(what);
}

void TcpStore::SendAll(const std::string& bytes) {
  if (!WriteFull(fd_, bytes.data(), bytes.size())) {
    Fail(StrCat("lost the connection to the TCP store at ", address(), " (", ErrnoText(),
                "); rank 0 hosts the store: did it exit?"));
  }
}

void TcpStore::ReadReply(char* out, size_t size, Clock::time_point deadline) {
  while (size > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd_, POLLIN, 0};
    int r = left.count() > 0
                ? ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)))
                : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      Fail(StrCat("the TCP store at ", address(), " did not answer in time"));
    }
    ssize_t n = ::recv(fd_, out, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Fail(StrCat("lost the connection to the TCP store at ", address(),
                  "; rank 0 hosts the store: did it exit?"));
    }
    out += n;
    size -= static_cast<size_t>(n);
  }
}

void TcpStore::Request(const std::string& request, char* reply, size_t reply_size,
                       int64_t deadline_ms) {
  if (fd_ < 0) throw CommError(StrCat("the TCP store client of rank ", rank_, " is closed"));
  if (!broken_.empty()) throw CommError(broken_);
  SendAll(request);
  ReadReply(reply, reply_size, Clock::now() + std::chrono::milliseconds(deadline_ms));
}

void TcpStore::set(const std::string& key, const std::vector<char>& data) {
  std::string req;
  PutPod<uint8_t>(&req, kSet);
  PutString(&req, key);
  PutBytes(&req, data.data(), data.size());
  std::lock_guard<std::mutex> lock(mu_);
  char ack;
  Request(req, &ack, 1, ToMs(timeout_));
}

void TcpStore::SetNoReply(const std::string& key, const std::vector<char>& data) {
  std::string req;
  PutPod<uint8_t>(&req, kSetNoReply);
  PutString(&req, key);
  PutBytes(&req, data.data(), data.size());
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0 || !broken_.empty()) return;
  if (!WriteFull(fd_, req.data(), req.size())) broken_ = "lost the connection to the TCP store";
}

std::optional<std::vector<char>> TcpStore::TryGet(const std::string& key,
                                                  std::chrono::milliseconds timeout) {
  std::string req;
  PutPod<uint8_t>(&req, kGet);
  PutString(&req, key);
  PutPod<int64_t>(&req, ToMs(timeout));
  std::lock_guard<std::mutex> lock(mu_);
  char found;
  const int64_t deadline_ms = ToMs(timeout) + kReplyGraceMs;
  Request(req, &found, 1, deadline_ms);
  if (!found) return std::nullopt;
  uint32_t size;
  auto deadline = Clock::now() + std::chrono::milliseconds(kReplyGraceMs);
  ReadReply(reinterpret_cast<char*>(&size), sizeof(size), deadline);
  std::vector<char> value(size);
  if (size > 0) ReadReply(value.data(), size, deadline);
  return value;
}

std::vector<char> TcpStore::get(const std::string& key) {
  auto value = TryGet(key, timeout_);
  if (!value) {
    throw CommTimeoutError(StrCat("rank ", rank_, ": key '", key,
                                  "' did not appear in the TCP store at ", address(), " within ",
                                  Seconds(ToMs(timeout_)), " s"));
  }
  return std::move(*value);
}

void TcpStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void TcpStore::wait(const std::vector<std::string>& keys,
                    const std::chrono::milliseconds& timeout) {
  std::string req;
  PutPod<uint8_t>(&req, kWait);
  PutPod<uint32_t>(&req, static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) PutString(&req, k);
  PutPod<int64_t>(&req, ToMs(timeout));
  char ok;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Request(req, &ok, 1, ToMs(timeout) + kReplyGraceMs);
  }
  if (!ok) {
    std::string names;
    for (const auto& k : keys) names += (names.empty() ? "'" : ", '") + k + "'";
    throw CommTimeoutError(StrCat("rank ", rank_, ": keys ", names,
                                  " did not all appear in the TCP store at ", address(), " within ",
                                  Seconds(ToMs(timeout)), " s"));
  }
}

int64_t TcpStore::Add(const std::string& key, int64_t delta) {
  std::string req;
  PutPod<uint8_t>(&req, kAdd);
  PutString(&req, key);
  PutPod<int64_t>(&req, delta);
  std::lock_guard<std::mutex> lock(mu_);
  int64_t sum;
  Request(req, reinterpret_cast<char*>(&sum), sizeof(sum), ToMs(timeout_));
  return sum;
}

bool TcpStore::Check(const std::vector<std::string>& keys) {
  std::string req;
  PutPod<uint8_t>(&req, kCheck);
  PutPod<uint32_t>(&req, static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) PutString(&req, k);
  std::lock_guard<std::mutex> lock(mu_);
  char ok;
  Request(req, &ok, 1, ToMs(timeout_));
  return ok != 0;
}

bool TcpStore::DeleteKey(const std::string& key) {
  std::string req;
  PutPod<uint8_t>(&req, kDelete);
  PutString(&req, key);
  std::lock_guard<std::mutex> lock(mu_);
  char ok;
  Request(req, &ok, 1, ToMs(timeout_));
  return ok != 0;
}

void TcpStore::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) return;
  if (broken_.empty() && ::getpid() == owner_pid_) {
    std::string req;
    PutPod<uint8_t>(&req, kBye);
    char ack;
    // A short deadline: the goodbye is a courtesy, not worth hanging for.
    if (WriteFull(fd_, req.data(), req.size())) {
      try {
        ReadReply(&ack, 1, Clock::now() + std::chrono::seconds(5));
      } catch (const CommError&) {
      }
    }
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace distributed
}  // namespace oneflow
