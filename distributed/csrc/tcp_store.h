#ifndef DISTRIBUTED_CSRC_TCP_STORE_H_
#define DISTRIBUTED_CSRC_TCP_STORE_H_

// A key-value store over TCP for rendezvous and fault diagnosis.
//
// One process (rank 0, as with torch's env://) runs a TcpStoreServer on
// MASTER_PORT; every rank, rank 0 included, talks to it through a TcpStore
// client. The client implements gloo::rendezvous::Store, so gloo contexts
// exchange their addresses through it. Beyond gloo's set/get/wait it offers
// add (an atomic counter), check, delete, and a fire-and-forget set that the
// process groups use to record which collective each rank has entered.
//
// The server notices a client that disconnects without saying goodbye and
// records key "__exited__/<rank>", so the survivors can name a rank that died.
//
// Wire format: one request byte, then length-prefixed strings and native-endian
// integers (every host of a job runs the same architecture).

#include <gloo/rendezvous/store.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace oneflow {
namespace distributed {

// Key that the server sets when the client of `rank` disconnects without Close().
std::string ExitedKey(int rank);

class TcpStoreServer {
 public:
  // Listens on `port` on every interface (port 0 picks a free one). Throws
  // CommError when the port cannot be bound.
  explicit TcpStoreServer(int port);
  // Stops serving: closes every connection and joins the server's threads.
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  int port() const { return port_; }

 private:
  void AcceptLoop();
  void Serve(int fd);
  // Blocks until every key exists, the deadline passes or the server stops.
  bool WaitForKeys(std::unique_lock<std::mutex>& lock, const std::vector<std::string>& keys,
                   int64_t timeout_ms);

  int port_ = 0;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd that interrupts the accept loop
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;

  std::mutex mu_;  // guards everything below
  std::condition_variable changed_;
  std::map<std::string, std::vector<char>> data_;
  std::set<int> client_fds_;
  std::vector<std::thread> workers_;
};

class TcpStore : public gloo::rendezvous::Store {
 public:
  // Connects to host:port, retrying until `timeout` (the server may start
  // later than this client), and introduces itself as `rank`.
  TcpStore(const std::string& host, int port, int rank, std::chrono::milliseconds timeout);
  ~TcpStore() override;
  TcpStore(const TcpStore&) = delete;
  TcpStore& operator=(const TcpStore&) = delete;

  // gloo::rendezvous::Store. get() waits up to timeout() for the key.
  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The value of `key` once it exists, or nullopt after `timeout` (0: no wait).
  std::optional<std::vector<char>> TryGet(const std::string& key,
                                          std::chrono::milliseconds timeout);
  // Adds `delta` to the integer at `key` (missing: 0) and returns the sum.
  int64_t Add(const std::string& key, int64_t delta);
  // True when every key exists.
  bool Check(const std::vector<std::string>& keys);
  // Removes `key`; false when it did not exist.
  bool DeleteKey(const std::string& key);
  // A set that does not wait for the server's acknowledgement; errors are ignored.
  void SetNoReply(const std::string& key, const std::vector<char>& data);
  // Says goodbye (so the server does not report this rank as exited) and disconnects.
  void Close();

  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  int rank() const { return rank_; }
  std::string address() const;

 private:
  // Sends a request and reads `reply_size` bytes of reply within `deadline_ms`.
  void Request(const std::string& request, char* reply, size_t reply_size, int64_t deadline_ms);
  void ReadReply(char* out, size_t size, std::chrono::steady_clock::time_point deadline);
  void SendAll(const std::string& bytes);
  [[noreturn]] void Fail(const std::string& what);

  std::string host_;
  int port_;
  int rank_;
  int owner_pid_;  // a forked child must not say goodbye on its parent's connection
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  std::string broken_;  // why the connection is unusable, once it is
  std::mutex mu_;       // one request at a time on the connection
};

}  // namespace distributed
}  // namespace oneflow

#endif  // DISTRIBUTED_CSRC_TCP_STORE_H_
