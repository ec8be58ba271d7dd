#include "core/runtime/device.h"

#include <gtest/gtest.h>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

TEST(DeviceTest, ParsesAndPrintsLikePyTorch) {
  EXPECT_EQ(Device::Parse("cpu").ToString(), "cpu");
  EXPECT_EQ(Device::Parse("cuda").ToString(), "cuda");
  Device d = Device::Parse("cuda:12");
  EXPECT_EQ(d.type, DeviceType::kCUDA);
  EXPECT_EQ(d.index, 12);
  EXPECT_EQ(d.ToString(), "cuda:12");
  EXPECT_EQ(Device::Parse("cpu:0").index, 0);
  EXPECT_EQ(Device::Make("cuda", 3), Device::Parse("cuda:3"));
}

TEST(DeviceTest, RejectsBadStrings) {
  for (const char* bad : {"gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda:01", "", "CUDA"}) {
    EXPECT_THROW(Device::Parse(bad), RuntimeError) << bad;
  }
  try {
    Device::Parse("tpu:0");
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("tpu:0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Device::Make("cuda", -2), RuntimeError);
}

}  // namespace
}  // namespace oneflow
