// The ProcessGroup interface through its gloo backend: ranks are threads of this process, each
// with its own store client and group, as processes would have.

#include "distributed/csrc/process_group.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/runtime/half.h"
#include "distributed/csrc/comm_error.h"
#include "distributed/csrc/tcp_store.h"

namespace oneflow {
namespace distributed {
namespace {

using std::chrono::milliseconds;

// Runs fn(group) on `n` ranks of a gloo group, each on its own thread; a failed
// expectation on any thread fails the test.
void OnRanks(int n, const std::function<void(ProcessGroup&)>& fn,
             milliseconds timeout = milliseconds(20000)) {
  TcpStoreServer server(0);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto store = std::make_shared<TcpStore>("127.0.0.1", server.port(), r, timeout);
      GroupOptions o;
      o.name = "test";
      o.rank = r;
      for (int g = 0; g < n; ++g) o.global_ranks.push_back(g);
      o.timeout = timeout;
      std::shared_ptr<ProcessGroup> pg = NewProcessGroup("gloo", store, o);
      fn(*pg);
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ProcessGroupTest, BackendsRegisterThemselves) {
  const std::vector<std::string> backends = ProcessGroupBackends();
  EXPECT_NE(std::find(backends.begin(), backends.end(), "gloo"), backends.end());
  TcpStoreServer server(0);
  auto store = std::make_shared<TcpStore>("127.0.0.1", server.port(), 0, milliseconds(5000));
  GroupOptions o;
  o.global_ranks = {0};
  try {
    NewProcessGroup("carrier-pigeon", store, o);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown process group backend 'carrier-pigeon'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("gloo"), std::string::npos) << e.what();
  }
  o.rank = 1;
  EXPECT_THROW(NewProcessGroup("gloo", store, o), std::invalid_argument);
}

TEST(ProcessGroupTest, Reductions) {
  OnRanks(3, [](ProcessGroup& pg) {
    EXPECT_STREQ(pg.backend(), "gloo");
    EXPECT_EQ(pg.size(), 3);
    const int r = pg.rank();
    std::vector<float> f = {1.0f * r, 2.0f};
    pg.AllReduce(f.data(), f.size(), DType::kFloat32, ReduceOp::kSum);
    EXPECT_EQ(f, (std::vector<float>{3.0f, 6.0f}));

    std::vector<Half> h = {Half(0.5f * (r + 1))};
    pg.AllReduce(h.data(), h.size(), DType::kFloat16, ReduceOp::kMax);
    EXPECT_EQ(static_cast<float>(h[0]), 1.5f);

    std::vector<int64_t> i = {10 * (r + 1)};
    pg.AllReduce(i.data(), i.size(), DType::kInt64, ReduceOp::kAvg);
    EXPECT_EQ(i[0], 20);

    std::vector<uint8_t> b = {static_cast<uint8_t>(r == 2)};
    pg.AllReduce(b.data(), b.size(), DType::kBool, ReduceOp::kSum);  // "any"
    EXPECT_EQ(b[0], 1);

    std::vector<BFloat16> bf = {BFloat16(1.0f)};
    pg.Reduce(bf.data(), bf.size(), DType::kBFloat16, ReduceOp::kSum, 1);
    EXPECT_EQ(static_cast<float>(bf[0]), r == 1 ? 3.0f : 1.0f);

    // Rank i gets i + 1 elements: the sum over ranks of each one's block i.
    std::vector<int32_t> blocks = {r, r, r, r, r, r};
    std::vector<int32_t> out(r + 1);
    pg.ReduceScatter(blocks.data(), out.data(), {1, 2, 3}, DType::kInt32, ReduceOp::kSum);
    EXPECT_EQ(out, std::vector<int32_t>(r + 1, 3));

    // Bad input raises at once on the calling rank and leaves the group usable.
    EXPECT_THROW(pg.AllReduce(f.data(), 2, DType::kFloat32, ReduceOp::kBxor),
                 std::invalid_argument);
    EXPECT_THROW(pg.Reduce(f.data(), 2, DType::kFloat32, ReduceOp::kSum, 3), std::invalid_argument);
    pg.Barrier();
  });
}

TEST(ProcessGroupTest, DataMovement) {
  OnRanks(3, [](ProcessGroup& pg) {
    const int r = pg.rank();
    std::vector<double> b = {r == 2 ? 7.0 : 0.0, r == 2 ? 8.0 : 0.0};
    pg.Broadcast(b.data(), b.size(), DType::kFloat64, 2);
    EXPECT_EQ(b, (std::vector<double>{7.0, 8.0}));

    // Uneven: rank i contributes i + 1 copies of i.
    std::vector<int16_t> mine(r + 1, static_cast<int16_t>(r)), all(6);
    pg.AllGather(mine.data(), all.data(), {1, 2, 3}, DType::kInt16);
    EXPECT_EQ(all, (std::vector<int16_t>{0, 1, 1, 2, 2, 2}));

    std::vector<int8_t> one = {static_cast<int8_t>(r)}, gathered(3, -1);
    pg.Gather(one.data(), gathered.data(), 1, DType::kInt8, 0);
    if (r == 0) {
      EXPECT_EQ(gathered, (std::vector<int8_t>{0, 1, 2}));
    }

    std::vector<int32_t> pieces = {10, 11, 12}, piece = {0};
    pg.Scatter(pieces.data(), piece.data(), 1, DType::kInt32, 1);
    EXPECT_EQ(piece[0], 10 + r);

    // Rank r sends j + 1 elements of value 10 * r + j to rank j.
    std::vector<int64_t> in;
    for (int j = 0; j < 3; ++j) in.insert(in.end(), j + 1, 10 * r + j);
    std::vector<int64_t> out(3 * (r + 1));
    pg.AllToAll(in.data(), {1, 2, 3}, out.data(), std::vector<size_t>(3, r + 1), DType::kInt64);
    std::vector<int64_t> expected;
    for (int i = 0; i < 3; ++i) expected.insert(expected.end(), r + 1, 10 * i + r);
    EXPECT_EQ(out, expected);

    std::vector<float> msg = {1.5f, 2.5f};
    if (r == 0) pg.Send(msg.data(), msg.size(), DType::kFloat32, 1, 7);
    if (r == 1) {
      std::vector<float> got(2);
      EXPECT_EQ(pg.Recv(got.data(), got.size(), DType::kFloat32, -1, 7), 0);
      EXPECT_EQ(got, msg);
    }
    EXPECT_THROW(pg.AllToAll(in.data(), {1, 2}, out.data(), {1, 2, 3}, DType::kInt64),
                 std::invalid_argument);
    pg.Barrier();
  });
}

TEST(ProcessGroupTest, MissingRankTimesOutAndBreaksTheGroup) {
  OnRanks(
      2,
      [](ProcessGroup& pg) {
        if (pg.rank() == 1) {
          // Stays out of the all-reduce until rank 0 has given up, then leaves.
          std::this_thread::sleep_for(milliseconds(2500));
          return;
        }
        std::vector<float> x = {1.0f};
        try {
          pg.AllReduce(x.data(), 1, DType::kFloat32, ReduceOp::kSum);
          ADD_FAILURE() << "expected CommTimeoutError";
        } catch (const CommTimeoutError& e) {
          const std::string what = e.what();
          EXPECT_NE(what.find("all_reduce timed out after 1 s on the group of ranks [0, 1]"),
                    std::string::npos)
              << what;
          EXPECT_NE(what.find("ranks [1] never arrived"), std::string::npos) << what;
        }
        try {
          pg.Barrier();
          ADD_FAILURE() << "expected CommError";
        } catch (const CommError& e) {
          EXPECT_NE(std::string(e.what()).find("unusable after an earlier failure"),
                    std::string::npos)
              << e.what();
        }
      },
      milliseconds(1000));
}

// A backend that overrides only what every backend must: its steps report what `result` says.
// It checks the parts ProcessGroup gives each backend (RunCollective's fault handling and the
// CommUnsupportedError of what a backend lacks), as NCCL uses them, without a GPU.
class StepOnlyGroup final : public ProcessGroup {
 public:
  StepOnlyGroup(std::shared_ptr<TcpStore> store, GroupOptions options)
      : ProcessGroup(std::move(store), std::move(options), "test group") {}
  const char* backend() const override { return "steps"; }
  void AllReduce(void*, size_t count, DType, ReduceOp) override { Step("all_reduce", count); }
  void Broadcast(void*, size_t count, DType, int) override { Step("broadcast", count); }
  void AllGather(const void*, void*, const std::vector<size_t>&, DType) override {
    Step("all_gather", 0);
  }
  void ReduceScatter(const void*, void*, const std::vector<size_t>&, DType, ReduceOp) override {
    Step("reduce_scatter", 0);
  }
  void AllToAll(const void*, const std::vector<size_t>&, void*, const std::vector<size_t>&,
                DType) override {
    Step("all_to_all", 0);
  }
  void Barrier() override { Step("barrier", 0); }

  StepResult result;
  std::vector<uint64_t> seqs;

 private:
  void Step(const char* name, size_t count) {
    RunCollective(name, StrCat(count, " elements"), [&](uint64_t seq, const std::string& sig) {
      EXPECT_EQ(sig, StrCat(name, "(", count, " elements)"));
      seqs.push_back(seq);
      return result;
    });
  }
};

TEST(ProcessGroupTest, BaseRunsStepsAndRaisesWhatABackendLacks) {
  TcpStoreServer server(0);
  auto store = std::make_shared<TcpStore>("127.0.0.1", server.port(), 0, milliseconds(5000));
  GroupOptions o;
  o.name = "steps";
  o.global_ranks = {0};
  StepOnlyGroup pg(store, o);
  float x = 1;
  try {
    pg.Gather(&x, &x, 1, DType::kFloat32, 0);
    FAIL() << "expected CommUnsupportedError";
  } catch (const CommUnsupportedError& e) {
    EXPECT_EQ(std::string(e.what()),
              "gather: the steps backend has no gather; use a gloo group (CPU tensors)");
  }
  EXPECT_THROW(pg.Reduce(&x, 1, DType::kFloat32, ReduceOp::kSum, 0), CommUnsupportedError);
  EXPECT_THROW(pg.Scatter(&x, &x, 1, DType::kFloat32, 0), CommUnsupportedError);
  EXPECT_THROW(pg.Send(&x, 1, DType::kFloat32, 0, 0), CommUnsupportedError);
  EXPECT_THROW(pg.Recv(&x, 1, DType::kFloat32, 0, 0), CommUnsupportedError);

  // Steps are numbered; one that fails makes the group unusable, naming the operation.
  pg.AllReduce(&x, 3, DType::kFloat32, ReduceOp::kSum);
  pg.Barrier();
  EXPECT_EQ(pg.seqs, (std::vector<uint64_t>{1, 2}));
  pg.result = {"the wire broke", false};
  try {
    pg.Broadcast(&x, 1, DType::kFloat32, 0);
    FAIL() << "expected CommError";
  } catch (const CommTimeoutError&) {
    FAIL() << "not a timeout";
  } catch (const CommError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broadcast failed after"), std::string::npos) << what;
    EXPECT_NE(what.find("collective #3"), std::string::npos) << what;
    EXPECT_NE(what.find("[the wire broke]"), std::string::npos) << what;
  }
  pg.result = {};
  try {
    pg.Barrier();
    FAIL() << "expected CommError";
  } catch (const CommError& e) {
    EXPECT_NE(std::string(e.what()).find("unusable after an earlier failure"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(pg.seqs.size(), 3u);
}

}  // namespace
}  // namespace distributed
}  // namespace oneflow
