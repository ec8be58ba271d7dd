#include "distributed/csrc/tcp_store.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "distributed/csrc/comm_error.h"

namespace oneflow {
namespace distributed {
namespace {

using std::chrono::milliseconds;

std::vector<char> Bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

TEST(TcpStoreTest, SetGetCheckDelete) {
  TcpStoreServer server(0);
  TcpStore store("127.0.0.1", server.port(), 0, milliseconds(5000));
  store.set("a", Bytes("hello"));
  EXPECT_EQ(store.get("a"), Bytes("hello"));
  store.set("a", Bytes(""));  // overwrite with an empty value
  EXPECT_EQ(store.get("a"), Bytes(""));
  EXPECT_TRUE(store.Check({"a"}));
  EXPECT_FALSE(store.Check({"a", "b"}));
  EXPECT_FALSE(store.TryGet("b", milliseconds(0)).has_value());
  EXPECT_TRUE(store.DeleteKey("a"));
  EXPECT_FALSE(store.DeleteKey("a"));
  EXPECT_FALSE(store.Check({"a"}));
}

TEST(TcpStoreTest, GetWaitsForAnotherClientsSet) {
  TcpStoreServer server(0);
  TcpStore reader("localhost", server.port(), 0, milliseconds(5000));
  std::thread writer([&] {
    TcpStore w("127.0.0.1", server.port(), 1, milliseconds(5000));
    std::this_thread::sleep_for(milliseconds(100));
    w.set("late", Bytes("value"));
    w.SetNoReply("late2", Bytes("v2"));
  });
  EXPECT_EQ(reader.get("late"), Bytes("value"));
  reader.wait({"late", "late2"});
  EXPECT_EQ(reader.get("late2"), Bytes("v2"));
  writer.join();
}

TEST(TcpStoreTest, AddIsAtomicAcrossClients) {
  TcpStoreServer server(0);
  constexpr int kThreads = 4, kAdds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TcpStore s("127.0.0.1", server.port(), t, milliseconds(5000));
      for (int i = 0; i < kAdds; ++i) s.Add("counter", 1);
    });
  }
  for (auto& t : threads) t.join();
  TcpStore s("127.0.0.1", server.port(), 9, milliseconds(5000));
  EXPECT_EQ(s.Add("counter", 0), kThreads * kAdds);
  EXPECT_EQ(s.get("counter"), Bytes(std::to_string(kThreads * kAdds)));
  EXPECT_EQ(s.Add("counter", -5), kThreads * kAdds - 5);
}

TEST(TcpStoreTest, WaitAndGetTimeOutWithTheKeysInTheMessage) {
  TcpStoreServer server(0);
  TcpStore store("127.0.0.1", server.port(), 3, milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  try {
    store.wait({"never"}, milliseconds(200));
    FAIL() << "wait did not time out";
  } catch (const CommTimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("'never'"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_THROW(store.get("missing"), CommTimeoutError);
  // The connection is still fine after a timeout.
  store.set("k", Bytes("v"));
  EXPECT_EQ(store.get("k"), Bytes("v"));
}

TEST(TcpStoreTest, ServerMarksClientsThatLeaveWithoutClosing) {
  TcpStoreServer server(0);
  TcpStore observer("127.0.0.1", server.port(), 0, milliseconds(5000));
  {
    TcpStore polite("127.0.0.1", server.port(), 1, milliseconds(5000));
    polite.Close();
  }
  // A process that dies: it says hello (request 1, its rank) and its socket closes.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  char hello[5] = {1};
  const int32_t rank = 2;
  std::memcpy(hello + 1, &rank, sizeof(rank));
  ASSERT_EQ(::send(fd, hello, sizeof(hello), 0), 5);
  char ack;
  ASSERT_EQ(::recv(fd, &ack, 1, 0), 1);
  ::close(fd);
  observer.wait({ExitedKey(2)}, milliseconds(2000));
  EXPECT_FALSE(observer.Check({ExitedKey(1)}));
}

TEST(TcpStoreTest, ClientsSeeTheServerGo) {
  auto server = std::make_unique<TcpStoreServer>(0);
  TcpStore store("127.0.0.1", server->port(), 1, milliseconds(2000));
  store.set("k", Bytes("v"));
  server.reset();
  try {
    store.get("k");
    FAIL() << "get after the server stopped did not fail";
  } catch (const CommError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 hosts the store"), std::string::npos) << e.what();
  }
}

TEST(TcpStoreTest, ConnectTimesOutWithoutAServerAndBusyPortsAreReported) {
  int port;
  {
    TcpStoreServer probe(0);
    port = probe.port();
  }
  try {
    TcpStore store("127.0.0.1", port, 5, milliseconds(200));
    FAIL() << "connected to nothing";
  } catch (const CommTimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("MASTER_ADDR"), std::string::npos) << e.what();
  }
  TcpStoreServer first(0);
  try {
    TcpStoreServer second(first.port());
    FAIL() << "two servers on one port";
  } catch (const CommError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on port"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distributed
}  // namespace oneflow
