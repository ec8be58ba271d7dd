#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

TEST(GlooTest, StoreAndSingleRankAllreduce) {
  gloo::rendezvous::HashStore store;
  store.set("key", std::vector<char>{'o', 'k'});
  EXPECT_EQ(store.get("key"), (std::vector<char>{'o', 'k'}));

  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(/*rank=*/0, /*size=*/1);
  context->connectFullMesh(store, device);

  std::vector<float> data = {1.0f, 2.0f, 3.0f};
  gloo::AllreduceOptions opts(context);
  opts.setOutput(data.data(), data.size());
  opts.setReduceFunction(
      static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
  gloo::allreduce(opts);
  EXPECT_EQ(data, (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(context->size, 1);
}

}  // namespace
