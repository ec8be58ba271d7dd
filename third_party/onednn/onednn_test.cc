#include <gtest/gtest.h>

#include <dnnl.hpp>
#include <vector>

namespace {

TEST(OneDnnTest, VersionAndReluPrimitive) {
  const dnnl_version_t* v = dnnl_version();
  EXPECT_GE(v->major, 2);

  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::vector<float> src = {-2.0f, -0.5f, 0.0f, 1.5f, 3.0f, -1.0f};
  std::vector<float> dst(src.size(), 42.0f);
  dnnl::memory::desc md({2, 3}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::memory src_mem(md, engine, src.data());
  dnnl::memory dst_mem(md, engine, dst.data());
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                   dnnl::algorithm::eltwise_relu, md, 0.0f);
  dnnl::eltwise_forward relu(dnnl::eltwise_forward::primitive_desc(desc, engine));
  relu.execute(stream, {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}});
  stream.wait();
  EXPECT_EQ(dst, (std::vector<float>{0.0f, 0.0f, 0.0f, 1.5f, 3.0f, 0.0f}));
}

}  // namespace
